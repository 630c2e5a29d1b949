"""The loop's commits on a SQLite file go on a connection of the store's own (server/sqlite_file.py
LoopCommits), not a pooled one of the library's: as durable (synchronous=FULL, WAL), all of a group or
none, a taken version still VersionConflict, and what they write is what the library's readers read."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from server.store import EventStore, VersionConflict


def no_pooled_transactions(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Any pooled transaction of the library from here on is noted (its reads still run)."""
    datastore = store._app.recorder.datastore  # type: ignore[attr-defined]
    taken: list[str] = []
    transaction = datastore.transaction

    def noted(*, commit: bool) -> Any:
        taken.append("commit" if commit else "read")
        return transaction(commit=commit)

    monkeypatch.setattr(datastore, "transaction", noted)
    return taken


def test_the_loops_commits_take_no_pooled_connection_and_the_librarys_reader_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = EventStore(f"sqlite:{tmp_path / 'm.db'}")
    match = uuid.uuid4()
    taken = no_pooled_transactions(store, monkeypatch)
    store.append_encoded([(match, 0, [{"kind": "created"}], None)], wait_for_lock=False)
    store.append_encoded([(match, 1, [{"kind": "game", "n": 1}, {"kind": "game", "n": 2}], None)], wait_for_lock=False)
    assert "commit" not in taken
    assert [r.get("n") for r in store.read(match)] == [None, 1, 2]
    store.append(match, 3, [{"kind": "game", "n": 3}])  # the store thread's writes: the library's, as before
    assert taken.count("commit") == 1
    assert len(store.read(match)) == 4
    store.close()


def test_a_group_with_a_taken_version_is_a_version_conflict_and_writes_none_of_its_batches(tmp_path: Path) -> None:
    store = EventStore(f"sqlite:{tmp_path / 'm.db'}")
    first, second = uuid.uuid4(), uuid.uuid4()
    store.append_encoded([(first, 0, [{"kind": "created"}], None)], wait_for_lock=False)
    with pytest.raises(VersionConflict):
        store.append_encoded(
            [(second, 0, [{"kind": "created"}], None), (first, 0, [{"kind": "created"}], None)], wait_for_lock=False
        )
    assert store.read(second) == []
    assert len(store.read(first)) == 1
    store.append_encoded([(second, 0, [{"kind": "created"}], None)], wait_for_lock=False)  # the connection goes on
    assert len(store.read(second)) == 1
    store.close()


def test_the_loops_connection_is_as_durable_as_the_librarys_and_closes_with_the_store(tmp_path: Path) -> None:
    store = EventStore(f"sqlite:{tmp_path / 'm.db'}")
    store.append_encoded([(uuid.uuid4(), 0, [{"kind": "created"}], None)], wait_for_lock=False)
    commits = store._loop_commits
    assert commits is not None and commits._connection is not None
    connection = commits._connection
    assert connection.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL: the WAL synced at every commit
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("PRAGMA busy_timeout").fetchone()[0] == 0  # busy at once: the writer waits elsewhere
    store.close()
    assert commits._connection is None
