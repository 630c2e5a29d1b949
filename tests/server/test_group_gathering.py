"""A group commit on the loop's thread gathers the appends other writers are about to make (server/writer.py
GATHER_FOR): it waits until as many have come as it expects, learns to expect one more each time it fills,
stops gathering for a while when nobody joined (a lone bot is not held), and a closing writer does not wait.
The waits here are bounded by generous gather times: the tests wait on what arrives, never on a clock."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from server.store import EventStore
from server.writer import PAUSE_AFTER_ALONE, GroupWriter
from tests.server.test_group_writer import spy_commits


def groups_of(store: EventStore) -> list[int]:
    """The size of each transaction the store commits, from now on."""
    sizes: list[int] = []

    def seen(batches: Any) -> None:
        sizes.append(len(batches))

    spy_commits(store, seen)
    return sizes


def test_appends_that_come_while_a_group_gathers_share_its_commit_and_the_next_expects_one_more(
    tmp_path: Path,
) -> None:
    store = EventStore(f"sqlite:{tmp_path / 'g.db'}")
    sizes = groups_of(store)

    async def scenario() -> GroupWriter:
        writer = GroupWriter(store)
        writer.gather_for, writer._expect = 600.0, 2  # it waits for two more, however long they take
        first = asyncio.ensure_future(writer.append(uuid.uuid4(), 0, [{"kind": "created"}]))
        for _ in range(5):
            await asyncio.sleep(0)  # the writer has taken the first append and gathers
        assert not first.done() and sizes == []
        others = [asyncio.ensure_future(writer.append(uuid.uuid4(), 0, [{"kind": "created"}])) for _ in range(2)]
        await asyncio.wait_for(asyncio.gather(first, *others), timeout=60)
        await writer.close()
        return writer

    writer = asyncio.run(scenario())
    assert sizes == [3]  # one transaction, one fsync, for the three
    assert writer._expect == 3  # it filled: the next gathering waits for one more
    store.close()


def test_a_gathering_nobody_joins_ends_and_the_next_groups_are_written_at_once(tmp_path: Path) -> None:
    """A lone bot's writes come one at a time: after one gathering in vain, the writer does not wait."""
    store = EventStore(f"sqlite:{tmp_path / 'g.db'}")
    sizes = groups_of(store)
    match = uuid.uuid4()

    async def scenario() -> list[int]:
        writer = GroupWriter(store)
        writer.gather_for = 0.05
        await writer.append(match, 0, [{"kind": "created"}])  # gathers 50 ms in vain, then commits
        pauses = [writer._alone]
        for version in range(1, 6):
            await writer.append(match, version, [{"kind": "game"}])
            pauses.append(writer._alone)
        await writer.close()
        return pauses

    pauses = asyncio.run(scenario())
    assert pauses == [PAUSE_AFTER_ALONE - n for n in range(6)]  # each later group written without gathering
    assert sizes == [1] * 6
    assert len(store.read(match)) == 6
    store.close()


def test_closing_ends_a_gathering_at_once_and_writes_what_it_holds(tmp_path: Path) -> None:
    store = EventStore(f"sqlite:{tmp_path / 'g.db'}")
    match = uuid.uuid4()

    async def scenario() -> None:
        writer = GroupWriter(store)
        writer.gather_for, writer._expect = 600.0, 5
        append = asyncio.ensure_future(writer.append(match, 0, [{"kind": "created"}]))
        for _ in range(5):
            await asyncio.sleep(0)
        assert not append.done()  # gathering, for ten minutes at most
        await asyncio.wait_for(writer.close(), timeout=60)
        assert append.done() and append.exception() is None

    asyncio.run(scenario())
    assert [r["kind"] for r in store.read(match)] == ["created"]
    store.close()


def test_a_writer_on_the_stores_thread_does_not_gather(tmp_path: Path) -> None:
    """PostgreSQL's commits wait on the network, and appends queue meanwhile: no wait is added there."""
    store = EventStore(f"sqlite:{tmp_path / 'g.db'}")
    assert GroupWriter(store, inline_commits=False).gather_for == 0.0
    assert GroupWriter(store).gather_for > 0.0
    store.close()
