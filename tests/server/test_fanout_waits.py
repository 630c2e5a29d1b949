"""server/fanout.py's waits and shared bundles: what every stream does once per update (issue 30, fan-out).

- first_of returns at its timeout when nothing happens, and at once when its match changes;
- Changes.next_change holds nothing for a match once its last waiter leaves, and notify wakes them all;
- a pass's bundle is built once per viewer class and shared by its streams, never across classes;
- StreamWake (a Subscribe or Play stream's wait): notify wakes its waits in the order they began, its one timer ends
  a wait nothing else ended by its deadline, `until` and a change already past end it at once, and a match
  nobody waits on holds nothing; a poke (a Play client's request) ends the wait under way, and no later one.
"""

from __future__ import annotations

import asyncio
import uuid
from types import SimpleNamespace

from engine.contract import Viewer
from server.fanout import Changes, StreamWake, Updates, first_of


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


def test_stream_wakes_are_woken_by_their_match_in_the_order_they_waited_and_hold_nothing() -> None:
    async def scenario() -> tuple[int, list[int], bool, bool]:
        changes, match, other = Changes(), uuid.uuid4(), uuid.uuid4()
        ending = asyncio.get_running_loop().create_future()
        cache: dict[uuid.UUID, SimpleNamespace] = {}  # the match as the process holds it: none, never past
        woken: list[int] = []

        async def wait(n: int, wake: StreamWake) -> None:
            await wake.wait(0, 3600.0)  # an hour: only the change can end it
            woken.append(n)

        wakes = [StreamWake(changes, match, ending, cache.get) for _ in range(50)]
        waits = [asyncio.ensure_future(wait(n, wake)) for n, wake in enumerate(wakes)]
        await asyncio.sleep(0)
        waiting = len(changes.woken_directly[match])
        changes.notify(other)  # another match's change wakes none of them
        await asyncio.sleep(0)
        none_woken = not woken
        changes.notify(match)
        await asyncio.wait_for(asyncio.gather(*waits), 60)
        for wake in wakes:
            wake.close()
        return waiting, woken, none_woken, match in changes.woken_directly

    waiting, woken, none_woken, held = asyncio.run(scenario())
    assert waiting == 50 and none_woken
    assert woken == list(range(50))  # in the order they began: each spectator process gets its streams' turn
    assert held is False


def test_a_stream_wake_ends_at_its_deadline_and_at_once_for_until_or_a_change_already_past() -> None:
    async def scenario() -> dict[str, float | bool]:
        loop = asyncio.get_running_loop()
        changes, match = Changes(), uuid.uuid4()
        ending = loop.create_future()
        cache: dict[uuid.UUID, SimpleNamespace] = {}  # the match as the process holds it: none, never past
        wake = StreamWake(changes, match, ending, cache.get)
        began = loop.time()
        await asyncio.wait_for(wake.wait(0, 0.1), 30)  # arms the stream's timer
        first = loop.time() - began
        began = loop.time()
        await asyncio.wait_for(wake.wait(0, 0.3), 30)  # the first timer rang: armed anew
        second = loop.time() - began
        woken_early = asyncio.ensure_future(wake.wait(0, 0.2))
        await asyncio.sleep(0)
        changes.notify(match)  # ends this wait at once; its timer stays armed for 0.2 s
        await asyncio.wait_for(woken_early, 30)
        began = loop.time()
        await asyncio.wait_for(wake.wait(0, 0.4), 30)  # that timer rings early: re-armed
        third = loop.time() - began
        cache[match] = SimpleNamespace(version=1)
        await asyncio.wait_for(wake.wait(0, 3600.0), 30)  # the change came while it wrote
        past_held = match in changes.woken_directly
        waiting = asyncio.ensure_future(wake.wait(1, 3600.0))  # version 1 sent since
        await asyncio.sleep(0)
        ending.set_result(None)  # the stream is asked to end
        await asyncio.wait_for(waiting, 30)
        await asyncio.wait_for(wake.wait(1, 3600.0), 30)  # already ending: no wait at all
        wake.close()
        held = match in changes.woken_directly
        return {"first": first, "second": second, "third": third, "past_held": past_held, "held": held}

    got = asyncio.run(scenario())
    assert got["first"] >= 0.1 and got["second"] >= 0.3 and got["third"] >= 0.4  # never before its deadline
    assert got["past_held"] is False and got["held"] is False


def test_a_poke_ends_the_wait_under_way_and_a_poke_between_waits_ends_none() -> None:
    """A Play stream's wait is ended by its client's request (the reader pokes it) as by a change; a poke
    while the stream is not waiting (the request is already queued, and seen before the next wait) must not
    end the next wait early."""

    async def scenario() -> tuple[bool, bool, bool]:
        loop = asyncio.get_running_loop()
        changes, match = Changes(), uuid.uuid4()
        cache: dict[uuid.UUID, SimpleNamespace] = {}  # the match as the process holds it: none, never past
        wake = StreamWake(changes, match, loop.create_future(), cache.get)
        waiting = asyncio.ensure_future(wake.wait(0, 3600.0))  # an hour: only the poke can end it
        await asyncio.sleep(0)
        still_waiting = not waiting.done()
        wake.poke()
        await asyncio.wait_for(waiting, 60)
        wake.poke()  # nobody waits: nothing to end
        later = asyncio.ensure_future(wake.wait(0, 3600.0))
        for _ in range(5):
            await asyncio.sleep(0)
        next_waits = not later.done()
        wake.poke()
        await asyncio.wait_for(later, 60)
        wake.close()
        return still_waiting, next_waits, match in changes.woken_directly

    still_waiting, next_waits, held = asyncio.run(scenario())
    assert still_waiting and next_waits
    assert held is False
