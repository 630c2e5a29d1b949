"""Fan-out to Subscribe streams: a change wakes them without making the writer wait, and each update is
built and serialized once per viewer class, then shared by every stream of that class.

Viewer classes are the values of engine.contract.Viewer: the host (its token, the admin, the host key
that created the match: all Viewer("host")), each player, the spectators. Redaction and views depend on
nothing else, so streams of one class may share the same bytes, and streams of different classes never
do (the class is part of the key).

What version v looks like to a class while the match is at version `last` never changes: records are
only appended, and `last` fixes what the record's redaction may reveal (the seed and secret settings
once the match is over) and whether the update carries the view (only the last version does).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from engine.contract import Viewer

# (match, viewer class, version, the match's version when it was built)
UpdateKey = tuple[uuid.UUID, Viewer, int, int]
ENTRY_OVERHEAD = 200  # bytes an entry costs beyond its payload (its key, a dict slot)


class Versioned(Protocol):
    """What StreamWake reads of a cached match (server.live.LiveMatch): its version."""

    @property
    def version(self) -> int: ...


@dataclass
class _Waiting:
    future: asyncio.Future[None]
    waiters: int = 0


class _NextChange:
    """Changes.next_change's context: a class, not a generator-based contextmanager, which costs several
    times as much to enter and leave, and every stream enters one per update it waits for."""

    __slots__ = ("changes", "match_id", "waiting")

    def __init__(self, changes: Changes, match_id: uuid.UUID) -> None:
        self.changes, self.match_id = changes, match_id
        waiting = changes.get(match_id)
        if waiting is None:
            waiting = changes[match_id] = _Waiting(asyncio.get_running_loop().create_future())
        waiting.waiters += 1
        self.waiting = waiting

    def __enter__(self) -> asyncio.Future[None]:
        return self.waiting.future

    def __exit__(self, *exc: object) -> None:
        waiting, changes = self.waiting, self.changes
        waiting.waiters -= 1
        if waiting.waiters == 0 and changes.get(self.match_id) is waiting:
            del changes[self.match_id]


class Changes(dict[uuid.UUID, _Waiting]):
    """Per match, a future resolved at its next change, shared by every stream waiting on the match, and the
    futures of the streams that wait with a StreamWake. The writer only resolves them (no lock, no await):
    the streams run after the writer's reply is on its way."""

    def __init__(self) -> None:
        super().__init__()
        self.woken_directly: dict[uuid.UUID, dict[asyncio.Future[None], None]] = {}  # StreamWake's, in order

    def notify(self, match_id: uuid.UUID) -> None:
        waiting = self.pop(match_id, None)
        if waiting is not None and not waiting.future.done():
            waiting.future.set_result(None)
        direct = self.woken_directly.pop(match_id, None)
        if direct is not None:
            for future in direct:
                if not future.done():
                    future.set_result(None)

    def next_change(self, match_id: uuid.UUID) -> _NextChange:
        """(A context:) the future resolved at the match's next change; wait on it with first_of, which never
        cancels it. On leaving, a match nobody waits on any more holds nothing here."""
        return _NextChange(self, match_id)


async def first_of(
    changed: asyncio.Future[None], until: asyncio.Future[Any] | None, timeout: float, *more: asyncio.Future[Any]
) -> None:
    """Return once `changed`, `until` or any of `more` is done, or after `timeout` seconds; none is cancelled
    (every stream of a match shares `changed`). asyncio.wait does the same with more bookkeeping per call,
    and this runs once per stream per update."""
    loop = asyncio.get_running_loop()
    woken = loop.create_future()

    def wake(_: object = None) -> None:
        if not woken.done():
            woken.set_result(None)

    watched = [future for future in (changed, until, *more) if future is not None]
    for future in watched:
        future.add_done_callback(wake)
    timer = loop.call_later(timeout, wake)
    try:
        await woken
    finally:
        timer.cancel()
        for future in watched:
            future.remove_done_callback(wake)


class StreamWake:
    """One stream's waits for its match's next change, for a stream that waits after every update (Subscribe:
    every spectator, once per move; Play: each seat once per pass, woken by its client's requests too).
    first_of costs each wait a shared future's callback that wakes a second future, and a timer armed and
    cancelled; here notify resolves the wait's own future, and one timer per stream, re-armed only when it
    rings early, ends a wait that nothing else ended by its deadline; `until` (the stream asked to end) ends
    the wait under way through one callback for the stream's life."""

    __slots__ = ("_deadline", "_loop", "_timer", "_woken", "cached", "changes", "match_id", "until")

    def __init__(
        self,
        changes: Changes,
        match_id: uuid.UUID,
        until: asyncio.Future[Any],
        cached: Callable[[uuid.UUID], Versioned | None],
    ) -> None:
        self.changes, self.match_id, self.until = changes, match_id, until
        self.cached = cached  # the match as this process holds it, if it does (LiveMatches.cached)
        self._loop = asyncio.get_running_loop()
        self._woken: asyncio.Future[None] | None = None
        self._deadline = 0.0
        self._timer: asyncio.TimerHandle | None = None
        until.add_done_callback(self._wake)

    async def wait(self, sent: int, timeout: float) -> None:
        """Return once the match changes, `until` is done or `timeout` seconds have passed; at once if the
        match is already past `sent`, the version the stream last sent (it moved on while the stream wrote;
        asked after this wait is registered: no change is missed)."""
        loop = self._loop
        if self.until.done():
            return
        woken: asyncio.Future[None] = loop.create_future()
        waiters = self.changes.woken_directly.get(self.match_id)
        if waiters is None:
            waiters = self.changes.woken_directly[self.match_id] = {}
        waiters[woken] = None  # a dict: woken in the order they waited, as a future's callbacks are
        try:
            live = self.cached(self.match_id)
            if live is not None and live.version > sent:
                return
            self._woken, self._deadline = woken, loop.time() + timeout
            if self._timer is None or self._timer.when() > self._deadline:
                if self._timer is not None:
                    self._timer.cancel()
                self._timer = loop.call_at(self._deadline, self._ring)
            await woken
        finally:
            self._woken = None
            waiters.pop(woken, None)
            if not waiters and self.changes.woken_directly.get(self.match_id) is waiters:
                del self.changes.woken_directly[self.match_id]

    def poke(self) -> None:
        """End the wait under way, if there is one (a Play stream's client sent a request meanwhile)."""
        self._wake()

    def _wake(self, _: object = None) -> None:
        woken = self._woken
        if woken is not None and not woken.done():
            woken.set_result(None)

    def _ring(self) -> None:
        self._timer = None
        if self._woken is None:
            return  # not waiting: the next wait arms the timer again
        if self._loop.time() >= self._deadline:
            self._wake()
        else:
            self._timer = self._loop.call_at(self._deadline, self._ring)

    def close(self) -> None:
        self.until.remove_done_callback(self._wake)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class WriteWatch:
    """A stream's write deadline without a timer per write: a write notes when it began, and one timer,
    armed by the first write and re-armed only while writes go on, cancels the writing task once a write
    has waited `timeout` seconds (`expired` then says why it was cancelled). asyncio.timeout would arm and
    cancel a timer for every message."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.began: float | None = None  # loop time the write under way began; None between writes
        self.expired = False
        self._task: asyncio.Task[Any] | None = None
        self._timer: asyncio.TimerHandle | None = None

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.began = loop.time()
        if self._timer is None:
            self._task = asyncio.current_task()
            self._timer = loop.call_at(self.began + self.timeout, self._check)

    def done(self) -> None:
        self.began = None

    def _check(self) -> None:
        self._timer = None
        if self.began is None or self._task is None:
            return  # no write under way: the next one arms the timer again
        loop = asyncio.get_running_loop()
        if loop.time() - self.began >= self.timeout:
            self.expired = True
            self._task.cancel()
        else:
            self._timer = loop.call_at(self.began + self.timeout, self._check)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def write(self, context: Any, message: Any) -> bool:
        """Write one message on a stream (`context`: a grpc.aio servicer context); False if the client has
        not taken it within `timeout` s. A client that closed the stream meanwhile ends the handler."""
        self.start()
        try:
            await context.write(message)
        except asyncio.CancelledError:
            if self.expired:
                current = asyncio.current_task()
                if current is not None:
                    current.uncancel()
                return False
            raise
        except Exception:
            if context.cancelled():
                raise asyncio.CancelledError() from None
            raise
        finally:
            self.done()
        return True


@dataclass
class FanoutStats:
    """How many updates were built (each serialized once) and how many times a built one was reused."""

    builds: int = 0
    reuses: int = 0


class Updates:
    """The serialized updates of recent versions, bounded by bytes: the oldest built go first (streams ask
    for recent versions; a plain dict keeps the per-stream lookup at a dict's cost)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._held: dict[UpdateKey, bytes] = {}  # in the order built
        self.held_bytes = 0
        self.stats = FanoutStats()

    def get(self, key: UpdateKey, build: Callable[..., bytes], *args: Any) -> bytes:
        """The update for `key`, built (and serialized) by `build(*args)` only if no stream of the class has
        asked for it yet. Synchronous: no other stream can build the same key meanwhile."""
        data = self._held.get(key)
        if data is not None:
            self.stats.reuses += 1
            return data
        self.stats.builds += 1
        return self._keep(key, build(*args))

    def bundle(
        self, match_id: uuid.UUID, viewer: Viewer, first: int, last: int, build: Callable[..., bytes], *args: Any
    ) -> bytes:
        """Versions `first` to `last` (the match's version) as one message for the class, built by
        `build(*args)` once and shared by its streams, as each of its updates is (held beside them under
        -first: a version is never below 1; not counted in stats, which count updates)."""
        key = (match_id, viewer, -first, last)
        data = self._held.get(key)
        return data if data is not None else self._keep(key, build(*args))

    def _keep(self, key: UpdateKey, data: bytes) -> bytes:
        size = len(data) + ENTRY_OVERHEAD
        if size <= self.max_bytes:  # one larger than the whole budget is sent, not kept
            while self.held_bytes + size > self.max_bytes:
                oldest = next(iter(self._held))
                self.held_bytes -= len(self._held.pop(oldest)) + ENTRY_OVERHEAD
            self._held[key] = data
            self.held_bytes += size
        return data

    def forget(self, match_id: uuid.UUID) -> None:
        """Drop a match's updates: it was set aside (a stored record cannot be read), and what is restored
        for it may differ from what was built."""
        for key in [key for key in self._held if key[0] == match_id]:
            self.held_bytes -= len(self._held.pop(key)) + ENTRY_OVERHEAD
