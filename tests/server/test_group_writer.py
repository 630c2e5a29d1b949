"""Group commit on a real SQLite file: queued appends share a transaction; only a loser conflicts."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from server.store import EventStore, VersionConflict
from server.writer import GroupWriter, WriterClosed


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
