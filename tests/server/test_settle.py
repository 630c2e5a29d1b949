"""An idle cached match settles (LiveMatch.settle): it drops what only play reads again, so every full
collection of the garbage collector, which stops the event loop while it walks every tracked object, walks
less of it. What it drops is derived: the match answers every question as before."""

from __future__ import annotations

import asyncio
import gc
import tempfile
import types
import uuid
import weakref
from typing import Any

import pytest

from bench.bot_records import bot_match_records
from engine.contract import Viewer
from engine.registry import shipped
from server.app import Settings, start_server
from server.live import LiveMatch
from server.repository import SETTLE_AFTER
from server.visibility import visible_record
from tests.server.test_live_compact import states_from_scratch

VIEWERS = (Viewer.host(), Viewer.spectator())


def tracked_objects(live: LiveMatch) -> int:
    """The objects the garbage collector tracks that the match holds (not its game's, classes or modules)."""
    seen: set[int] = {id(live.game)}
    stack: list[Any] = [live]
    count = 0
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, type | types.ModuleType | types.FunctionType | types.MethodType):
            continue
        seen.add(id(item))
        if gc.is_tracked(item):
            count += 1
            stack.extend(gc.get_referents(item))
    return count


def played(live: LiveMatch) -> None:
    """What play asks of a match: the last records as each viewer sees them, their statuses and views."""
    for version in range(max(1, live.version - 8), live.version + 1):
        for viewer in VIEWERS:
            visible_record(live, version, viewer)
            live.view_at(version, viewer)
        live.status(version)


@pytest.mark.parametrize("game", shipped())
def test_a_settled_match_answers_as_before_at_every_version(game: str) -> None:
    records = bot_match_records(game, seed=4)
    whole = LiveMatch.from_records(uuid.uuid4(), records)
    live = LiveMatch.from_records(uuid.uuid4(), records[:1])
    for index, record in enumerate(records[1:], start=2):
        live.apply(record)
        if index % 5 == 0:  # settled now and then while it is played on
            played(live)
            live.settle()
    live.settle()
    expected = states_from_scratch(records)
    for version in range(len(records) + 1):
        assert live.state_at(version) == expected[version], version
    for version in range(1, len(records) + 1):
        assert live.status(version) == whole.status(version)
        for viewer in VIEWERS:
            assert visible_record(live, version, viewer) == visible_record(whole, version, viewer)
            assert live.view_at(version, viewer) == whole.view_at(version, viewer)


def test_a_settled_match_holds_far_fewer_objects_for_the_collector() -> None:
    live = LiveMatch.from_records(uuid.uuid4(), bot_match_records("mining", seed=2))
    played(live)
    live.state_at(live.version // 2)  # a state folded lately, as a history page leaves one
    gc.collect()
    busy = tracked_objects(live)
    live.settle()
    gc.collect()
    assert tracked_objects(live) < busy * 2 / 3, (busy, tracked_objects(live))
    assert not live.records._decoded and not live.facts.views and not live._recent and len(live._tail) == 1


def test_the_cache_settles_the_matches_no_call_used_and_keeps_their_order_of_use() -> None:
    async def run() -> None:
        with tempfile.TemporaryDirectory() as folder:
            running = await start_server(Settings(address="127.0.0.1:0", var_dir=folder, store="memory"))
            try:
                m, repository = running.matches, running.matches.repository
                admin = m.admin_token
                made = [await m.commands.create("mining", ["a", "b"], 1, "", admin, False, None) for _ in range(2)]
                first, second = (created.live for created in made)
                now = repository._settled_at
                assert repository.settle_idle(now + SETTLE_AFTER / 2) == 0  # too soon: nothing is looked at
                assert repository.settle_idle(now + SETTLE_AFTER) == 0  # both were used since
                await m.repository.load(second.id)
                for live in (first, second):  # read as live objects already held: not uses of the cache
                    played(live)
                assert repository.settle_idle(now + 2 * SETTLE_AFTER) == 1
                assert len(first._tail) == 1 and not first._recent and not first.facts.views
                assert second.facts.views  # used: left as it was
                assert repository._cache.popitem()[0] == first.id  # settling it was no use: still the least recent
                assert repository.settle_idle(now + 3 * SETTLE_AFTER) == 1  # now the second
                assert not second.facts.views
            finally:
                await running.stop()

    asyncio.run(run())


def test_a_match_dropped_by_the_cache_is_freed_without_the_collector() -> None:
    """The server runs full collections a tenth as often (server/main.py collect_less_often): a match the
    cache drops must not wait for one, or evicted matches would pile up past the cache's bound meanwhile."""
    records = bot_match_records("cookoff", seed=3)
    gc.collect()
    gc.disable()
    try:
        live = LiveMatch.from_records(uuid.uuid4(), records)
        played(live)  # every cache of a match in play filled: states, decoded records, facts, views
        live.state_at(live.version // 2)
        live.settle()
        played(live)
        dropped = weakref.ref(live)
        del live
        assert dropped() is None, [type(holder).__name__ for holder in gc.get_referrers(dropped())]
    finally:
        gc.enable()
