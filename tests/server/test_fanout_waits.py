"""server/fanout.py's waits and shared bundles: what every stream does once per update (issue 30, fan-out).

- first_of's timeouts share one timer per TIMEOUT_GRAIN: streams that wait together arm one, never return
  before their timeout, and a stream woken by its match leaves the shared deadline at once;
- Changes.next_change holds nothing for a match once its last waiter leaves, and notify wakes them all;
- a pass's bundle is built once per viewer class and shared by its streams, never across classes.
"""

from __future__ import annotations

import asyncio
import uuid

from engine.contract import Viewer
from server.fanout import TIMEOUT_GRAIN, Changes, Updates, _deadlines, first_of


def test_waits_that_end_together_share_one_timer_and_none_returns_before_its_timeout() -> None:
    async def scenario() -> tuple[int, list[float], float, int]:
        loop = asyncio.get_running_loop()
        changes = Changes()
        match = uuid.uuid4()
        began = loop.time()

        async def wait() -> float:
            with changes.next_change(match) as changed:
                await first_of(changed, None, 0.3)
            return loop.time()

        waits = [asyncio.ensure_future(wait()) for _ in range(200)]
        await asyncio.sleep(0)  # every wait has joined its deadline
        deadlines = _deadlines(loop)
        timers = len(deadlines)
        ended = await asyncio.gather(*waits)
        return timers, ended, began, len(deadlines)

    timers, ended, began, left = asyncio.run(scenario())
    assert timers <= 2  # 200 waits, one grain (or two, if the clock crossed a grain boundary between them)
    assert min(ended) >= began + 0.3  # rounded up to the grain, never down
    assert left == 0  # a fired deadline is dropped


def test_a_stream_woken_by_its_match_leaves_the_shared_deadline_and_holds_nothing() -> None:
    async def scenario() -> tuple[int, int, bool]:
        loop = asyncio.get_running_loop()
        changes = Changes()
        match = uuid.uuid4()
        arrived = loop.create_future()

        async def wait() -> None:
            with changes.next_change(match) as changed:
                await first_of(changed, None, 30.0, arrived)

        waits = [asyncio.ensure_future(wait()) for _ in range(50)]
        await asyncio.sleep(0)
        deadline = next(iter(_deadlines(loop).values()))
        joined = len(deadline)
        changes.notify(match)
        await asyncio.wait_for(asyncio.gather(*waits), 30)
        return joined, len(deadline), match in changes

    joined, waiting_after, held = asyncio.run(scenario())
    assert joined == 50
    assert waiting_after == 0  # woken by the change, each left the 30 s deadline at once
    assert held is False  # nobody waits on the match any more: nothing is kept for it


def test_first_of_returns_at_its_timeout_when_nothing_happens() -> None:
    async def scenario() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        changed: asyncio.Future[None] = loop.create_future()
        began = loop.time()
        await asyncio.wait_for(first_of(changed, None, 2 * TIMEOUT_GRAIN), 30)
        return began, loop.time()

    began, ended = asyncio.run(scenario())
    assert ended >= began + 2 * TIMEOUT_GRAIN


def test_a_bundle_is_built_once_per_viewer_class_and_never_shared_across_classes() -> None:
    updates = Updates(max_bytes=1 << 20)
    match = uuid.uuid4()
    built: list[str] = []

    def build(name: str) -> bytes:
        built.append(name)
        return f"bundle for {name}".encode()

    ann = [updates.bundle(match, Viewer.of("ann"), 5, 7, lambda: build("ann")) for _ in range(3)]
    bob = updates.bundle(match, Viewer.of("bob"), 5, 7, lambda: build("bob"))
    later = updates.bundle(match, Viewer.of("ann"), 5, 8, lambda: build("ann, to 8"))
    assert built == ["ann", "bob", "ann, to 8"]  # each (class, first, last) once
    assert len(set(ann)) == 1 and ann[0] == b"bundle for ann"
    assert bob == b"bundle for bob" and later == b"bundle for ann, to 8"
    assert updates.stats.builds == 0  # the stats count updates, not bundles
    updates.forget(match)  # a match set aside drops its bundles with its updates
    assert updates.held_bytes == 0
