"""Group commit on a real SQLite file: queued appends share a transaction; only a loser conflicts; on SQLite
the group commits run on the loop's thread, reads on the store's, one at a time."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from server import store as store_module
from server.store import EventStore, StoreBusy, VersionConflict
from server.writer import GroupWriter, WriterClosed


def spy_commits(store: EventStore, seen: Callable[[Any], None]) -> None:
    """Call `seen(batches)` on each commit, on the thread it runs on, then commit as before."""
    append_encoded = store.append_encoded

    def spied(batches: Any, wait_for_lock: bool = True) -> Any:
        seen(batches)
        return append_encoded(batches, wait_for_lock)

    store.append_encoded = spied  # type: ignore[method-assign]


def test_appends_queued_together_all_land_and_a_conflict_fails_only_its_own(tmp_path: Path) -> None:
    store = EventStore(f"sqlite:{tmp_path / 'g.db'}")
    matches = [uuid.uuid4() for _ in range(20)]

    async def scenario() -> list[BaseException | None]:
        writer = GroupWriter(store)
        await asyncio.gather(*(writer.append(m, 0, [{"kind": "created"}]) for m in matches))
        # 20 appends at once, one of them at a version already taken
        calls = [writer.append(m, 1, [{"kind": "game"}]) for m in matches] + [
            writer.append(matches[0], 0, [{"kind": "clash"}])
        ]
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
        await writer.close()
        return list(outcomes)

    outcomes = asyncio.run(scenario())
    assert outcomes[:20] == [None] * 20
    assert isinstance(outcomes[20], VersionConflict)
    assert all([r["kind"] for r in store.read(m)] == ["created", "game"] for m in matches)
    store.close()


def test_a_store_error_reaches_every_caller_of_its_group(tmp_path: Path) -> None:
    store = EventStore(f"sqlite:{tmp_path / 'g.db'}")

    async def scenario() -> None:
        writer = GroupWriter(store)
        with pytest.raises(TypeError):
            await writer.append(uuid.uuid4(), 0, [{"kind": "created", "bad": object()}])  # not JSON
        await writer.close()

    asyncio.run(scenario())
    store.close()


def test_close_writes_every_queued_append_first_and_refuses_later_ones(tmp_path: Path) -> None:
    store = EventStore(f"sqlite:{tmp_path / 'g.db'}")
    matches = [uuid.uuid4() for _ in range(200)]  # more than one group (max_group 64)

    async def scenario() -> None:
        writer = GroupWriter(store)
        appends = [asyncio.ensure_future(writer.append(m, 0, [{"kind": "created"}])) for m in matches]
        await asyncio.sleep(0)  # every append is queued; none has been written yet
        await writer.close()
        assert all(append.done() and append.exception() is None for append in appends)
        with pytest.raises(WriterClosed):
            await writer.append(uuid.uuid4(), 0, [{"kind": "created"}])

    asyncio.run(scenario())
    assert all([r["kind"] for r in store.read(m)] == ["created"] for m in matches)
    store.close()


def test_on_sqlite_group_commits_run_on_the_loops_thread_and_queued_appends_still_share_them(tmp_path: Path) -> None:
    store = EventStore(f"sqlite:{tmp_path / 'g.db'}")
    threads: list[int] = []
    transactions: list[int] = []

    def seen(batches: Any) -> None:
        threads.append(threading.get_ident())
        transactions.append(len(batches))

    spy_commits(store, seen)

    async def scenario() -> tuple[int, int]:
        writer = GroupWriter(store)
        assert writer.inline_commits  # SQLite: no hand-off to a thread and back per commit
        await asyncio.gather(*(writer.append(uuid.uuid4(), 0, [{"kind": "created"}]) for _ in range(30)))
        read_on = await writer.call(threading.get_ident)  # reads stay off the loop
        await writer.close()
        return threading.get_ident(), read_on

    loop_thread, read_on = asyncio.run(scenario())
    assert set(threads) == {loop_thread}
    assert read_on != loop_thread
    assert sum(transactions) == 30 and len(transactions) < 30  # group commit: queued appends went together
    store.close()


def test_a_commit_waits_for_a_read_in_flight_on_the_stores_thread(tmp_path: Path) -> None:
    """One store call at a time, as with one thread: a group commit on the loop never runs beside a read
    (or a catalog write) on the store's thread."""
    store = EventStore(f"sqlite:{tmp_path / 'g.db'}")
    release = threading.Event()
    overlapped: list[bool] = []
    spy_commits(store, lambda _: overlapped.append(not release.is_set()))

    def slow_read() -> None:
        release.wait(timeout=60)

    async def scenario() -> None:
        writer = GroupWriter(store)
        reading = asyncio.ensure_future(writer.call(slow_read))
        await asyncio.sleep(0)  # the read has its turn and is on the store's thread
        appending = asyncio.ensure_future(writer.append(uuid.uuid4(), 0, [{"kind": "created"}]))
        for _ in range(20):
            await asyncio.sleep(0.01)
        assert not appending.done()  # it waits its turn
        release.set()
        await asyncio.wait_for(asyncio.gather(reading, appending), timeout=60)
        await writer.close()

    asyncio.run(scenario())
    assert overlapped == [False]
    store.close()


def test_a_backlog_of_group_commits_lets_the_loops_other_tasks_run_between_them(tmp_path: Path) -> None:
    """Groups written back to back on the loop's thread: each gives the loop back, so streams are served."""
    store = EventStore(f"sqlite:{tmp_path / 'g.db'}")
    ticks = 0
    seen: list[int] = []
    spy_commits(store, lambda _: seen.append(ticks))

    async def scenario() -> None:
        nonlocal ticks
        writer = GroupWriter(store, max_group=1)  # 50 queued appends: 50 groups in a row

        async def other_task() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        other = asyncio.create_task(other_task())
        await asyncio.gather(*(writer.append(uuid.uuid4(), 0, [{"kind": "created"}]) for _ in range(50)))
        other.cancel()
        await writer.close()

    asyncio.run(scenario())
    assert len(seen) == 50
    assert seen[-1] - seen[0] >= 40  # the other task ran between (nearly) every pair of commits
    store.close()


def test_a_writer_told_not_to_commit_inline_commits_on_its_own_thread(tmp_path: Path) -> None:
    """PostgreSQL's default (a commit waits on the network): the loop goes on while the store thread waits."""
    store = EventStore(f"sqlite:{tmp_path / 'g.db'}")
    threads: list[int] = []
    spy_commits(store, lambda _: threads.append(threading.get_ident()))

    async def scenario() -> int:
        writer = GroupWriter(store, inline_commits=False)
        await writer.append(uuid.uuid4(), 0, [{"kind": "created"}])
        await writer.close()
        return threading.get_ident()

    loop_thread = asyncio.run(scenario())
    assert threads and loop_thread not in threads
    store.close()


def test_a_commit_that_must_not_wait_meets_a_held_write_lock_at_once_writes_nothing_and_leaves_the_wait_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loop's commits ask SQLite not to wait (server/store.py StoreBusy); the connection they borrowed
    goes back to the pool waiting as long as ever (the store's thread waits out the lock with it). The
    outside lock is let go after 30 s: a commit that waited for it would land, not raise."""
    monkeypatch.setattr(store_module, "SQLITE_LOCK_TIMEOUT", 300)
    path = tmp_path / "g.db"
    store = EventStore(f"sqlite:{path}")
    match = uuid.uuid4()
    store.append(match, 0, [{"kind": "created"}])
    outside = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    outside.execute("BEGIN IMMEDIATE")
    held = threading.Lock()

    def let_go() -> None:
        with held:
            if not outside.in_transaction:
                return
            outside.execute("ROLLBACK")

    release = threading.Timer(30, let_go)
    release.start()
    try:
        with pytest.raises(StoreBusy):
            store.append_encoded([(match, 1, [{"kind": "game"}], None)], wait_for_lock=False)
    finally:
        release.cancel()
        let_go()
        outside.close()
    assert [r["kind"] for r in store.read(match)] == ["created"]
    with store._app.recorder.datastore.transaction(commit=False) as cursor:  # type: ignore[attr-defined]
        cursor.execute("PRAGMA busy_timeout")
        assert cursor.fetchone()[0] == 300 * 1000
    store.append_encoded([(match, 1, [{"kind": "game"}], None)], wait_for_lock=False)  # free again: it lands
    assert [r["kind"] for r in store.read(match)] == ["created", "game"]
    store.close()


def test_a_short_read_on_sqlite_runs_on_the_loops_thread_and_waits_its_turn(tmp_path: Path) -> None:
    """A CreateMatch's first checks (server/projection.py before_creating): on SQLite no hop to the store's
    thread and back, but still one store call at a time: never beside a read on the store's thread."""
    store = EventStore(f"sqlite:{tmp_path / 'g.db'}")
    release = threading.Event()

    def slow_read() -> None:
        release.wait(timeout=60)

    def short() -> tuple[int, bool]:
        return threading.get_ident(), release.is_set()

    async def scenario() -> tuple[int, tuple[int, bool]]:
        writer = GroupWriter(store)
        reading = asyncio.ensure_future(writer.call(slow_read))
        await asyncio.sleep(0)  # the slow read has its turn and is on the store's thread
        short_read = asyncio.ensure_future(writer.short_read(short))
        for _ in range(20):
            await asyncio.sleep(0.01)
        assert not short_read.done()  # it waits its turn
        release.set()
        _, answer = await asyncio.wait_for(asyncio.gather(reading, short_read), timeout=60)
        await writer.close()
        return threading.get_ident(), answer

    loop_thread, (read_on, after_release) = asyncio.run(scenario())
    assert read_on == loop_thread
    assert after_release
    store.close()


def test_a_short_read_where_commits_are_not_inline_runs_on_the_stores_thread(tmp_path: Path) -> None:
    """PostgreSQL's default: a read waits on the network, so it stays off the loop."""
    store = EventStore(f"sqlite:{tmp_path / 'g.db'}")

    async def scenario() -> tuple[int, int]:
        writer = GroupWriter(store, inline_commits=False)
        read_on = await writer.short_read(threading.get_ident)
        await writer.close()
        return threading.get_ident(), read_on

    loop_thread, read_on = asyncio.run(scenario())
    assert read_on != loop_thread
    store.close()
