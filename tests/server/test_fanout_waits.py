"""server/fanout.py's waits and shared bundles: what every stream does once per update (issue 30, fan-out).

- first_of returns at its timeout when nothing happens, and at once when its match changes;
- Changes.next_change holds nothing for a match once its last waiter leaves, and notify wakes them all;
- a pass's bundle is built once per viewer class and shared by its streams, never across classes.
"""

from __future__ import annotations

import asyncio
import uuid

from engine.contract import Viewer
from server.fanout import Changes, Updates, first_of


def test_waiters_woken_by_their_match_return_at_once_and_hold_nothing() -> None:
    async def scenario() -> tuple[int, bool, bool]:
        changes = Changes()
        match = uuid.uuid4()

        async def wait() -> None:
            with changes.next_change(match) as changed:
                await first_of(changed, None, 3600.0)

        waits = [asyncio.ensure_future(wait()) for _ in range(50)]
        await asyncio.sleep(0)
        waiting = changes[match].waiters
        changes.notify(match)
        done, _ = await asyncio.wait(waits, timeout=60)  # an hour's timeout: only the change can end them
        return waiting, len(done) == len(waits), match in changes

    waiting, all_woken, held = asyncio.run(scenario())
    assert waiting == 50 and all_woken
    assert held is False  # nobody waits on the match any more: nothing is kept for it


def test_first_of_returns_at_its_timeout_when_nothing_happens() -> None:
    async def scenario() -> tuple[float, float, bool]:
        loop = asyncio.get_running_loop()
        changes = Changes()
        match = uuid.uuid4()
        began = loop.time()
        with changes.next_change(match) as changed:
            await asyncio.wait_for(first_of(changed, None, 0.1), 30)
        return began, loop.time(), match in changes

    began, ended, held = asyncio.run(scenario())
    assert ended >= began + 0.1 and held is False


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
