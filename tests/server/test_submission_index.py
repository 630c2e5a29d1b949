"""A seat's page lists the seat's own submissions from an index the live match keeps as it applies records
(server/submissions.py): the same list a scan of the whole log finds, without decoding the log."""

from __future__ import annotations

import gc
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from bench.bot_records import bot_match_records
from engine.registry import shipped
from server.application.seat_views import seat_submissions
from server.batches import Batches
from server.clock import ManualClock
from server.compact import CompactRecords
from server.live import LiveMatch
from server.submissions import head_text, packed_head
from tests.conftest import make_server
from tests.server.test_live_compact import eventful_duel

Record = dict[str, Any]


def scanned(records: list[Record], seat: str) -> list[tuple[int, str, int, str, str, bool]]:
    """The seat's submissions found by walking every record: (version, words, receipt version, chain head,
    key id, retracted), as the seat's page found them before the index."""
    batches = Batches()
    for record in records:
        batches.append(record)
    retracted = batches.retracted()
    found = []
    for version, record in enumerate(records, start=1):
        cause = record.get("cause") or {}
        if record.get("kind") != "game" or cause.get("actor") != seat or record.get("start"):
            continue
        if "text" not in cause and "command" not in cause:
            continue  # a timeout's or the host's record names no command of the seat's
        end = batches.end_from(version)
        last = records[end - 1]
        text = str(cause.get("text") or cause.get("command"))
        found.append((version, text, end, str(last["hash"]), str(last.get("key_id", "")), version in retracted))
    return found


def indexed(live: LiveMatch, seat: str) -> list[tuple[int, str, int, str, str, bool]]:
    return [
        (s.version, s.text, s.receipt.version, s.receipt.chain_head, s.receipt.key_id, s.retracted)
        for s in seat_submissions(live, seat)
    ]


@pytest.fixture(scope="module")
def duel_records(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Record]]:
    server = make_server(tmp_path_factory.mktemp("duel"), ManualClock())
    try:
        yield eventful_duel(server)[1]
    finally:
        server.stop()


def assert_index_is_the_scan(records: list[Record]) -> None:
    seats = list(records[0]["players"])
    # Every length of the log: the last batch still open (its end is the log's end) and closed.
    for length in range(1, len(records) + 1):
        live = LiveMatch.from_records(uuid.uuid4(), records[:length])
        for seat in seats:
            assert indexed(live, seat) == scanned(records[:length], seat), (seat, length)


def test_the_index_finds_what_a_scan_finds_through_rollbacks_forced_ends_and_host_records(
    duel_records: list[Record],
) -> None:
    assert_index_is_the_scan(duel_records)
    live = LiveMatch.from_records(uuid.uuid4(), duel_records)
    found = indexed(live, "ann") + indexed(live, "bob")
    assert any(entry[-1] for entry in found) and not all(entry[-1] for entry in found)  # some retracted, not all
    assert len({entry[2] for entry in found}) == len(found)  # each its own batch, so its own receipt


@pytest.mark.parametrize("game", shipped())
def test_the_index_finds_what_a_scan_finds_in_a_played_match_of_each_game(game: str) -> None:
    records = bot_match_records(game, seed=5)
    live = LiveMatch.from_records(uuid.uuid4(), records)
    for seat in records[0]["players"]:
        assert indexed(live, seat) == scanned(records, seat), seat
        assert indexed(live, seat), f"{seat} submitted nothing: the test would prove nothing"
    assert_index_is_the_scan(records[: min(len(records), 60)])


def test_a_seats_submissions_on_a_long_log_decode_no_record_of_it(
    duel_records: list[Record], monkeypatch: pytest.MonkeyPatch
) -> None:
    settle = {"kind": "host", "action": "settle", "by": "host", "reason": "", "at": 1.0, "hash": "h", "prev": "p"}
    records = duel_records + [settle] * 2000  # a long log: what a scan would decode, record by record
    live = LiveMatch.from_records(uuid.uuid4(), records)
    expected = scanned(records, "ann")
    decoded: list[int] = []
    items, walk = CompactRecords.__getitem__, CompactRecords.__iter__

    def counted_item(self: CompactRecords, index: Any) -> Any:
        decoded.append(1 if isinstance(index, int) else len(range(*index.indices(len(self)))))
        return items(self, index)

    def counted_walk(self: CompactRecords) -> Any:
        for record in walk(self):
            decoded.append(1)
            yield record

    monkeypatch.setattr(CompactRecords, "__getitem__", counted_item)
    monkeypatch.setattr(CompactRecords, "__iter__", counted_walk)
    assert indexed(live, "ann") == expected and expected
    assert sum(decoded) <= 1, f"{sum(decoded)} records read for {len(expected)} submissions"  # the log's last at most


def test_the_index_adds_no_object_the_garbage_collector_keeps_tracking(duel_records: list[Record]) -> None:
    """A cache full of idle matches is walked whole by every full collection, the event loop stopped meanwhile
    (30-200 ms a time in the peers bench, docs/BENCHMARKS.md): the index holds plain tuples, which it drops."""
    live = LiveMatch.from_records(uuid.uuid4(), duel_records)
    gc.collect()
    entries = [entry for seat in live.submissions._by_seat.values() for entry in seat]
    assert entries and not any(gc.is_tracked(entry) for entry in entries)


@pytest.mark.parametrize("head", ["", "ab" * 32, "0123456789abcdef", "AB" * 32, "abc", "h", "zz", " ab", "ab\n"])
def test_a_chain_head_is_given_back_exactly_as_recorded(head: str) -> None:
    assert head_text(packed_head(head)) == head


def test_an_entry_keeps_its_chain_head_as_its_32_bytes_and_shares_its_key_id(duel_records: list[Record]) -> None:
    """Each entry holds its batch's chain head: as bytes it is 65 bytes held instead of 113 (bench/memory.py)."""
    live = LiveMatch.from_records(uuid.uuid4(), duel_records)
    closed = [entry for seat in live.submissions._by_seat.values() for entry in seat if entry[2] is not None]
    assert closed and all(isinstance(entry[3], bytes) and len(entry[3]) == 32 for entry in closed)
    assert len({id(entry[4]) for entry in closed}) == len({entry[4] for entry in closed})
