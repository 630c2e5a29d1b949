"""Each seat's own submissions, indexed as a live match applies its records: a seat's page lists them on
every update, and finding them by decoding the whole log cost 20 ms a view at 4,004 records and 81 ms at
16,004 (bench/seat_view.py). Kept here: each one's version, its words, and once the batch it opened has
ended, that batch's last record (its receipt), so a view decodes no record but the log's last.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.batches import starts_batch
from server.records import Record

ENTRY_BYTES = 120  # an entry's tuple, its list slot and its word string's header (approx_bytes)


# A seat's submission: (version, words, end, chain_head, key_id). The last three are its batch's last record
# (the receipt its Submit answered), known once the next batch starts (end None until then). Plain tuples of
# plain values, which the garbage collector stops tracking (a NamedTuple it tracks for good): a cache of idle
# matches full of them adds nothing to a full collection's pause, and a view unpacks them as they are kept.
Entry = tuple[int, str, int | None, str, str]


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
        self._last: tuple[str, str] = ("", "")  # the last record's hash and key id
        self.bytes = 0

    def applied(self, version: int, record: Record) -> None:
        if starts_batch(record):  # the last batch ended at the record before this one
            for seat, index in self._open:
                entries = self._by_seat[seat]
                entries[index] = (*entries[index][:2], version - 1, *self._last)
            self._open = []
        self._last = (str(record.get("hash", "")), str(record.get("key_id", "")))
        found = submitted_text(record)
        if found is not None:
            seat, text = found
            entries = self._by_seat.setdefault(seat, [])
            self._open.append((seat, len(entries)))
            entries.append((version, text, None, "", ""))
            self.bytes += ENTRY_BYTES + len(text)

    def entries(self, seat: str) -> Sequence[Entry]:
        """The seat's entries as kept (a seat's page reads them on every update: making an object of each
        cost as much as the rest of the view)."""
        return self._by_seat.get(seat, ())
