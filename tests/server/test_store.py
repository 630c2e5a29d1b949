"""The event store on a real SQLite file, in memory, and on a real PostgreSQL."""

from __future__ import annotations

import sqlite3
import threading
import uuid
from pathlib import Path

import pytest

from server import store as server_store
from server.records import chain, first_broken_link, retracted_versions
from server.store import EventStore, VersionConflict
from tests.conftest import postgres_url


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:{tmp_path / 'store.db'}"
    if request.param == "postgres":
        return postgres_url()
    return "memory"


def test_records_come_back_as_written_in_order(store_url: str) -> None:
    store = EventStore(store_url)
    match = uuid.uuid4()
    records = chain("", [{"kind": "created", "config": {"a": [1, 2]}, "at": 1.5}, {"kind": "game", "n": None}])
    assert store.append(match, 0, records) == 2
    assert store.read(match) == records
    assert store.read(match, 1) == records[1:]
    assert match in store.match_ids()
    store.close()


def test_two_conflicting_writes_never_both_land(store_url: str) -> None:
    store = EventStore(store_url)
    match = uuid.uuid4()
    store.append(match, 0, [{"kind": "created"}])
    store.append(match, 1, [{"kind": "first"}])
    with pytest.raises(VersionConflict):
        store.append(match, 1, [{"kind": "second"}])
    assert [record["kind"] for record in store.read(match)] == ["created", "first"]
    store.close()


def test_a_group_commit_lands_whole_or_not_at_all(store_url: str) -> None:
    store = EventStore(store_url)
    one, two = uuid.uuid4(), uuid.uuid4()
    store.append(one, 0, [{"kind": "created"}])
    with pytest.raises(VersionConflict):
        store.append_many([(two, 0, [{"kind": "created"}]), (one, 0, [{"kind": "clash"}])])
    assert store.read(two) == []
    assert store.append_many([(two, 0, [{"kind": "created"}]), (one, 1, [{"kind": "ok"}])]) == [1, 2]
    store.close()


def test_racing_threads_on_one_version_land_exactly_once(store_url: str) -> None:
    store_a, store_b = EventStore(store_url), EventStore(store_url)
    match = uuid.uuid4()
    store_a.append(match, 0, [{"kind": "created"}])
    outcomes: list[str] = []

    def write(store: EventStore, name: str) -> None:
        try:
            store.append(match, 1, [{"kind": name}])
            outcomes.append("landed")
        except VersionConflict:
            outcomes.append("conflict")

    if store_url == "memory":  # two in-memory stores are two databases: race on one store instead
        store_b = store_a
    threads = [threading.Thread(target=write, args=(s, n)) for s, n in ((store_a, "a"), (store_b, "b"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["conflict", "landed"]
    assert len(store_a.read(match)) == 2
    store_a.close()
    if store_b is not store_a:
        store_b.close()


def test_a_reopened_sqlite_file_has_every_record(tmp_path: Path) -> None:
    url = f"sqlite:{tmp_path / 'store.db'}"
    store = EventStore(url)
    match = uuid.uuid4()
    store.append(match, 0, [{"kind": "created"}, {"kind": "game"}])
    store.close()
    again = EventStore(url)
    assert [record["kind"] for record in again.read(match)] == ["created", "game"]
    assert again.match_ids() == [match]
    again.close()


def test_the_hash_chain_finds_a_row_edited_in_the_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    store = EventStore(f"sqlite:{path}")
    match = uuid.uuid4()
    store.append(match, 0, chain("", [{"kind": "created"}, {"kind": "game", "bid": 3}, {"kind": "game", "bid": 4}]))
    store.close()
    assert first_broken_link(EventStore(f"sqlite:{path}").read(match)) is None
    with sqlite3.connect(path) as db:
        (table,) = db.execute("select name from sqlite_master where type='table' and name like '%events'").fetchone()
        rows = db.execute(f"select rowid, state from {table}").fetchall()
        rowid, state = rows[1]
        db.execute(f"update {table} set state=? where rowid=?", (state.replace(b'"bid":3', b'"bid":9'), rowid))
    broken = first_broken_link(EventStore(f"sqlite:{path}").read(match))
    assert broken is not None and broken[0] == 2


def test_rollback_records_mark_the_versions_they_retract() -> None:
    records = [{"kind": "created"}, {"kind": "game"}, {"kind": "game"}, {"kind": "rollback", "to": 2}, {"kind": "game"}]
    assert retracted_versions(records) == {3}


def test_an_event_written_directly_is_what_the_library_writes_and_reads_back(store_url: str) -> None:
    """append_many writes the stored state itself, not through the library's mapper (stored_stamp): the
    bytes of an ASCII record are the mapper's own, and any record (non-ASCII, a lone surrogate) reads back
    through the library as written."""
    from datetime import UTC, datetime

    from server.store import MatchRecorded

    store = EventStore(store_url)
    match, at = uuid.uuid4(), datetime(2026, 12, 2, 10, 30, 0, 123456, tzinfo=UTC)
    ascii_record = {"kind": "game", "event": {"type": "Picked", "number": 2}, "at": 1.25, "note": None}
    mine = store._stored(match, 1, at, server_store.stored_stamp(at), ascii_record)
    theirs = store._app.mapper.to_stored_event(
        MatchRecorded(originator_id=match, originator_version=1, timestamp=at, record=ascii_record)
    )
    assert (mine.topic, mine.state) == (theirs.topic, theirs.state)
    records = chain("", [{"kind": "created", "text": "Käse ☕ 𝄞"}, {"kind": "command", "text": "pick \ud800"}])
    store.append(match, 0, records)
    assert store.read(match) == records
    assert [change.version for change in store.changes_after(0) if change.match_id == match] == [1, 2]
    store.close()
