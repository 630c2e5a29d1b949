"""Each seat's own submissions, indexed as a live match applies its records: a seat's page lists them on
every update, and finding them by decoding the whole log cost 20 ms a view at 4,004 records and 81 ms at
16,004 (bench/seat_view.py). Kept here: each one's version, its words, and once the batch it opened has
ended, that batch's last record (its receipt), so a view decodes no record but the log's last.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from server.batches import starts_batch
from server.records import Record

LOWER_HEX = re.compile("[0-9a-f]*")
ENTRY_BYTES = 185  # an entry's tuple, its list slot, its word string's header and its packed head (approx_bytes)


# A seat's submission: (version, words, end, chain_head, key_id). The last three are its batch's last record
# (the receipt its Submit answered), known once the next batch starts (end None until then); the head packed
# (`packed_head`), the key id shared by every entry with it. Plain tuples of plain values, which the garbage
# collector stops tracking (a NamedTuple it tracks for good): a cache of idle matches full of them adds nothing
# to a full collection's pause, and a view unpacks them as they are kept.
Entry = tuple[int, str, int | None, bytes | str, str]


def packed_head(chain_head: str) -> bytes | str:
    """A chain head (a SHA-256 in lowercase hex) as its 32 bytes: 65 bytes held instead of 113, on every
    entry. Anything else is kept as it is, so that `head_text` always gives back the text recorded."""
    if len(chain_head) % 2 or not LOWER_HEX.fullmatch(chain_head):
        return chain_head
    return bytes.fromhex(chain_head)


def head_text(head: bytes | str) -> str:
    return head.hex() if isinstance(head, bytes) else head


def submitted_text(record: Record) -> tuple[str, str] | None:
    """(seat, words) when `record` opens a batch with a seat's own command (not a timeout's or the host's)."""
    cause = record.get("cause") or {}
    if record.get("kind") != "game" or record.get("start") or not cause.get("actor"):
        return None
    if "text" not in cause and "command" not in cause:
        return None
    return str(cause["actor"]), str(cause.get("text") or cause.get("command"))


class SubmissionIndex:
    def __init__(self) -> None:
        self._by_seat: dict[str, list[Entry]] = {}
        self._open: list[tuple[str, int]] = []  # (seat, index) of those in the last batch: its end is not known yet
        self._last: tuple[bytes | str, str] = (b"", "")  # the last record's hash (packed) and key id
        self._key_ids: dict[str, str] = {}  # one string for each key id: entries share it
        self.bytes = 0

    def applied(self, version: int, record: Record) -> None:
        if starts_batch(record):  # the last batch ended at the record before this one
            for seat, index in self._open:
                entries = self._by_seat[seat]
                entries[index] = (*entries[index][:2], version - 1, *self._last)
            self._open = []
        key_id = str(record.get("key_id", ""))
        self._last = (packed_head(str(record.get("hash", ""))), self._key_ids.setdefault(key_id, key_id))
        found = submitted_text(record)
        if found is not None:
            seat, text = found
            entries = self._by_seat.setdefault(seat, [])
            self._open.append((seat, len(entries)))
            entries.append((version, text, None, b"", ""))
            self.bytes += ENTRY_BYTES + len(text)

    def entries(self, seat: str) -> Sequence[Entry]:
        """The seat's entries as kept (a seat's page reads them on every update: making an object of each
        cost as much as the rest of the view)."""
        return self._by_seat.get(seat, ())
