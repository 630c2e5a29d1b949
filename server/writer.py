"""Group commit: one writer; appends that queue up while it writes go together in the next
transaction. Store calls take turns, one at a time, as the one writer thread ran them. Reads, catch-ups and
the catalog run on the store's thread, off the event loop. On SQLite (and in memory) the group commits
themselves run on the loop's thread: handing each to a thread and back cost more CPU than the commit (a
Play move's CPU fell 4% in a long match and 12% with new matches, docs/BENCHMARKS.md). A commit's fsync
holds the loop for its length (gRPC's own threads go on receiving), and the writer yields after each, so a
backlog of groups does not starve the streams. A commit that finds the file locked by another program does
not wait on the loop: it waits on the store's thread. On PostgreSQL, where a commit waits on the network,
they stay on the thread.

A group commit on the loop's thread first gathers other appends for up to GATHER_FOR seconds, ending
as soon as as many have come as joined the last group (one more each time, so it grows to the writers
there are). Without it a group was 1.2 appends at 8 clients, and its fsync and statements were paid nearly
once per write; with it a unary Submit cost about 20% less CPU (docs/BENCHMARKS.md). A gathering that no
append joined (a lone bot's writes come one at a time) stops gathering for the next PAUSE_AFTER_ALONE
groups. On the store's thread (PostgreSQL) appends gather anyway while a commit waits on the network.

A conflict in a group is found by writing that group's appends one by one, so only the loser gets
VersionConflict. Closing drains the queue first: an append that was queued is written."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from server.records import Record
from server.store import Batch, EventStore, StoreBusy, VersionConflict

T = TypeVar("T")
log = logging.getLogger("server.matches")  # the match layer's lines (operators grep for them)
Pending = tuple[Batch, "asyncio.Future[None]"]
GATHER_FOR = 0.002  # seconds a group waits for the appends other matches are about to make
PAUSE_AFTER_ALONE = 32  # groups written at once after a gathering that no other append joined


class WriterClosed(RuntimeError):
    """An append after close(): the store is being shut down."""


class GroupWriter:
    def __init__(self, store: EventStore, max_group: int = 64, inline_commits: bool | None = None) -> None:
        self.store = store
        self.max_group = max_group
        # Group commits on the loop's thread; by default unless the store is across a network.
        self.inline_commits = not store.url.startswith("postgres:") if inline_commits is None else inline_commits
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store")
        self._turn: asyncio.Lock | None = None  # one store call at a time, on either thread
        self.lock_waits = 0  # commits that found the file locked by another program
        self._queue: asyncio.Queue[Pending | None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self.gather_for = GATHER_FOR if self.inline_commits else 0.0
        self._expect = 1  # other appends a gathering waits for: as many as joined the last one, plus one
        self._alone = 0  # groups still to write at once: the last gathering found no other writer
        self._gathering: tuple[int, asyncio.Future[None]] | None = None  # (appends awaited, done when there)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run any store call (reads included) on the store's thread, off the event loop, in its turn."""
        async with self._take_turn():
            return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    async def short_read(self, fn: Callable[..., T], *args: Any) -> T:
        """A read that takes a fraction of a millisecond: with group commits on the loop's thread, run there
        in its turn too; a hop to the store's thread and back waits on a busy loop twice."""
        if not self.inline_commits:
            return await self.call(fn, *args)
        async with self._take_turn():
            return fn(*args)

    def _take_turn(self) -> asyncio.Lock:
        if self._turn is None:  # made on first use, inside the loop that uses it
            self._turn = asyncio.Lock()
        return self._turn

    async def _commit(self, batches: list[Batch]) -> None:
        if not self.inline_commits:
            await self.call(self.store.append_encoded, batches)
            return
        async with self._take_turn():  # uncontended: no wait; else behind a read on the store's thread
            try:
                self.store.append_encoded(batches, wait_for_lock=False)
            except StoreBusy:
                busy = True
            else:
                busy = False
        if not busy:
            await asyncio.sleep(0)  # the acknowledged callers answer before the next group is written
            return
        # Another program holds the file's write lock: wait for it on the store's thread, not the loop.
        self.lock_waits += 1
        log.warning("the store's file is locked by another program: a commit waits for it on the store's thread")
        await self.call(self.store.append_encoded, batches)

    async def append(
        self, match_id: uuid.UUID, after_version: int, records: Sequence[Record], rows: Sequence[bytes] | None = None
    ) -> None:
        """Append `records` (and their compact JSON, `rows`, when the caller has it) in the next group."""
        if self._closed:
            raise WriterClosed("the store is closing; nothing was written")
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._task = asyncio.create_task(self._run(self._queue))
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._queue.put_nowait(((match_id, after_version, records, rows), done))
        if self._gathering is not None and self._queue.qsize() >= self._gathering[0]:
            self._enough()
        await done

    async def _run(self, queue: asyncio.Queue[Pending | None]) -> None:
        while True:
            first = await queue.get()
            if first is None:  # queued by close(): everything before it has been written
                return
            await self._gather(queue)
            group = [first]
            draining = False
            while not queue.empty() and len(group) < self.max_group:
                pending = queue.get_nowait()
                if pending is None:
                    draining = True
                    break
                group.append(pending)
            await self._write(group)
            if draining:
                return

    async def _gather(self, queue: asyncio.Queue[Pending | None]) -> None:
        """Wait up to gather_for for `_expect` more appends (or the writer's closing), unless the last
        gathering found nobody else writing; then learn how many to expect next time."""
        if self.gather_for <= 0 or self.max_group < 2 or self._closed:
            return
        if self._alone:
            self._alone -= 1
            return
        expect = min(self._expect, self.max_group - 1)
        if queue.qsize() < expect:
            loop = asyncio.get_running_loop()
            arrived: asyncio.Future[None] = loop.create_future()
            self._gathering = (expect, arrived)
            timer = loop.call_later(self.gather_for, self._enough)
            try:
                await arrived
            finally:
                timer.cancel()
                self._gathering = None
        joined = queue.qsize()
        if joined == 0:
            self._alone, self._expect = PAUSE_AFTER_ALONE, 1
        else:
            self._expect = joined + 1 if joined >= expect else joined

    def _enough(self) -> None:
        if self._gathering is not None and not self._gathering[1].done():
            self._gathering[1].set_result(None)

    async def _write(self, group: list[Pending]) -> None:
        try:
            await self._commit([batch for batch, _ in group])
            outcomes: list[BaseException | None] = [None] * len(group)
        except VersionConflict:
            outcomes = [await self._one(batch) for batch, _ in group]
        except Exception as exc:
            outcomes = [exc] * len(group)
        for (_, done), outcome in zip(group, outcomes, strict=True):
            if done.done():
                continue
            if outcome is None:
                done.set_result(None)
            else:
                done.set_exception(outcome)

    async def _one(self, batch: Batch) -> BaseException | None:
        try:
            await self._commit([batch])
            return None
        except Exception as exc:
            return exc

    async def close(self) -> None:
        """Write every queued append, then stop. Appends after this raise WriterClosed."""
        self._closed = True
        self._enough()  # a group gathering is written now
        if self._queue is not None and self._task is not None:
            self._queue.put_nowait(None)
            await self._task
        self.pool.shutdown(wait=True)
