"""The live matches: loaded from the store on first use, kept in a cache bounded by memory, caught up with
what other server processes appended, and set aside (quarantined) when a stored record cannot be read.

Nothing here decides or writes a match: server/unit_of_work.py appends, the application decides.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from cachetools import Cache, LRUCache

from engine.registry import get_game
from server.access import Access
from server.errors import BadRequest, DataLoss, NotFound, Unavailable
from server.fanout import Changes
from server.identities import is_server_stream
from server.live import LiveMatch
from server.records import Record
from server.store import TRANSIENT, EventStore, UnreadableRecord
from server.streams import StreamRegistry
from server.writer import GroupWriter

log = logging.getLogger(__name__)
T = TypeVar("T")
# A cached match that no call loaded for this long (at least; at most twice) is settled (LiveMatch.settle):
# what only play reads again is dropped, so the garbage collector's full collections walk less of it.
SETTLE_AFTER = 10.0


@dataclass(frozen=True)
class Quarantined:
    """A match with a stored record that cannot be read or applied: it answers DATA_LOSS, others are served."""

    version: int
    reason: str
    prefix: LiveMatch | None  # the records before it, rebuilt: who may verify it (None: the admin only)

    def message(self, match_id: uuid.UUID) -> str:
        return (
            f"match {match_id} is quarantined: its stored record at version {self.version} cannot be read "
            f"({self.reason}); restore that record from a backup (other matches are served)"
        )


def parse_id(text: str) -> uuid.UUID:
    try:
        return uuid.UUID(text)
    except (ValueError, AttributeError, TypeError):
        raise BadRequest(f"match_id {text!r} is not a match id (a UUID)") from None


class LiveMatches:
    def __init__(
        self,
        store: EventStore,
        writer: GroupWriter,
        access: Access,
        streams: StreamRegistry,
        changes: Changes,
        cache_bytes: int,
        refresh_every: float | None,
    ) -> None:
        self.store = store
        self.catalog = store.catalog()  # match summaries and token owners (server/catalog.py)
        self.writer = writer
        self.access = access
        self.streams = streams
        self.changes = changes
        # refresh_every: when other processes write to the same store, how stale a cached match may get
        # before a read catches up from the store (None: this process is the only writer).
        self.refresh_every = refresh_every
        self._fresh: dict[uuid.UUID, float] = {}
        # Live matches, bounded by memory (their estimated size), not by count: a few long matches weigh
        # as much as thousands of short ones. Evicted matches are read again on their next use.
        self._cache: LRUCache[uuid.UUID, LiveMatch] = LRUCache(maxsize=cache_bytes, getsizeof=_size_of)
        self.locks: defaultdict[uuid.UUID, asyncio.Lock] = defaultdict(asyncio.Lock)  # one writer per match
        self._quarantined: dict[uuid.UUID, Quarantined] = {}
        self._used: set[uuid.UUID] = set()  # the cached matches loaded or kept since the last settling
        self._settled: set[uuid.UUID] = set()  # and those settled, not used since
        self._settled_at = time.monotonic()

    async def io(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a store call on the writer's thread (the event loop never blocks on the store)."""
        try:
            return await self.writer.call(fn, *args)
        except TRANSIENT as exc:
            raise Unavailable(f"the store did not answer ({type(exc).__name__}); retry") from exc

    async def short_io(self, fn: Callable[..., T], *args: Any) -> T:
        """`io` for a read of a fraction of a millisecond: on SQLite it runs on the loop's thread in the
        store's turn (GroupWriter.short_read), sparing the two waits of a hop on a busy loop."""
        try:
            return await self.writer.short_read(fn, *args)
        except TRANSIENT as exc:
            raise Unavailable(f"the store did not answer ({type(exc).__name__}); retry") from exc

    def cached(self, match_id: uuid.UUID) -> LiveMatch | None:
        """The cached copy, if any. Not counted as a use (`settle_idle`): streams ask this on every move, and
        a match in play is loaded by each of its writes."""
        return self._cache.get(match_id)

    def settle_idle(self, now: float) -> int:
        """Settle the cached matches no call loaded since the last settling, once SETTLE_AFTER has passed since
        it (`now`: time.monotonic()); returns how many. The cache's order of use is left as it was."""
        if now - self._settled_at < SETTLE_AFTER:
            return 0
        self._settled_at = now
        cached = set(self._cache)  # iterating a cache does not count as a use; reading one through it does
        self._settled = (self._settled - self._used) & cached
        idle = cached - self._used - self._settled
        for match_id in idle:
            Cache.__getitem__(self._cache, match_id).settle()  # the base class's read: no use recorded
        self._settled |= idle
        self._used = set()
        return len(idle)

    def forget(self, match_id: uuid.UUID) -> None:
        """Drop a cached copy (a write's outcome is unknown, or another process wrote first): read it again."""
        self._cache.pop(match_id, None)

    async def load(self, match_id: uuid.UUID) -> LiveMatch:
        if is_server_stream(match_id):  # one of the server's own streams: never a match
            raise NotFound(f"no match {match_id}")
        quarantined = self._quarantined.get(match_id)
        if quarantined is not None:
            raise DataLoss(quarantined.message(match_id))
        cached = self._cache.get(match_id)
        if cached is not None:
            self._used.add(match_id)
            if self.refresh_every is not None and time.monotonic() - self._fresh.get(match_id, 0) >= self.refresh_every:
                await self.catch_up(cached)
            return cached
        read_at = time.monotonic()
        try:
            records = await self.io(self.store.read, match_id, 0)
        except UnreadableRecord as exc:
            raise self.quarantine(exc, exc.readable) from None
        if not records:
            # A request for an unknown id leaves nothing behind (a lock taken for it is dropped), so
            # random ids cannot grow this process's memory.
            self.locks.pop(match_id, None)
            self.changes.pop(match_id, None)
            raise NotFound(f"no match {match_id}")
        self._fresh[match_id] = read_at
        raced = self._cache.get(match_id)
        if raced is not None:  # another coroutine loaded it while we read: one copy per match
            return raced
        try:
            live = rebuild(match_id, records)
        except UnreadableRecord as exc:
            raise self.quarantine(exc, records[: exc.version - 1]) from None
        self.remember(live)
        self.access.index(live)
        return live

    def cache_use(self) -> tuple[int, int, int]:
        """(matches live in memory, their estimated bytes, the cache's limit in bytes): for tests and benches."""
        return len(self._cache), int(self._cache.currsize), int(self._cache.maxsize)

    def remember(self, live: LiveMatch) -> None:
        """Keep a match live (or measure it again after it grew). One larger than the whole cache is
        served uncached: it is read from the store on each use rather than refused."""
        try:
            self._cache[live.id] = live
            self._used.add(live.id)
        except ValueError:  # cachetools: the value is larger than the cache
            self._cache.pop(live.id, None)
            log.warning("match %s (about %d bytes) is larger than the match cache", live.id, live.approx_bytes())

    def remeasure(self, live: LiveMatch) -> None:
        if self._cache.get(live.id) is live:
            self.remember(live)  # measured again: it grew

    def quarantine(self, exc: UnreadableRecord, readable: list[Record]) -> DataLoss:
        """Set the match aside (its readable records kept to check who may verify it); the error to raise."""
        try:
            prefix: LiveMatch | None = rebuild(exc.match_id, readable) if readable else None
        except UnreadableRecord as earlier:  # an earlier record does not apply either: report the first
            exc, prefix = earlier, None
        quarantined = Quarantined(exc.version, exc.reason, prefix)
        self._quarantined[exc.match_id] = quarantined
        self._cache.pop(exc.match_id, None)
        log.error("%s", exc, exc_info=exc.__cause__)
        message = quarantined.message(exc.match_id)
        self.streams.end_match(exc.match_id, message)  # its subscribers learn now, not at their next wake-up
        return DataLoss(message)

    def quarantined(self) -> dict[uuid.UUID, Quarantined]:
        return dict(self._quarantined)

    async def catch_up(self, live: LiveMatch) -> None:
        """Apply what other processes appended since this copy was read. A record that cannot be read
        or applied quarantines the match (DataLoss)."""
        self._fresh[live.id] = time.monotonic()
        after = live.version
        try:
            newer = await self.io(self.store.read, live.id, after)
            applied = False
            for version, record in enumerate(newer, start=after + 1):
                if live.version < version:  # idempotent by version: our own append may have applied it already
                    apply_stored(live, version, record)
                    applied = True
                    if record["kind"] == "joined":
                        self.access.token_owner[record["token"]] = live.id
        except UnreadableRecord as exc:
            raise self.quarantine(exc, live.records[: exc.version - 1]) from None
        if applied:
            self.changes.notify(live.id)

    async def on_remote_append(self, stream: uuid.UUID, version: int) -> None:
        """Another node appended to match `stream` up to `version`. A cached copy that streams here follow
        catches up now (under the match's lock, so never in the middle of a local write) and wakes them;
        one nobody follows is only marked stale, and catches up on its next use (a read saved per append).
        A match not in memory needs nothing: it is read from the store when it is next used."""
        cached = self._cache.get(stream)
        if cached is None or cached.version >= version:
            return
        if not self.streams.count(stream):
            self._fresh.pop(stream, None)
            return
        async with self.locks[stream]:
            live = self._cache.get(stream)  # a lost race may have dropped or replaced it meanwhile
            if live is None or live.version >= version:
                return
            try:
                await self.catch_up(live)
            except DataLoss:  # quarantined, and its streams ended with the reason
                return

    async def was_behind(self, live: LiveMatch) -> bool:
        """On a shared store: whether this copy lacked records another process had appended (now applied)."""
        if self.refresh_every is None or self._cache.get(live.id) is not live:
            return False
        before = live.version
        await self.catch_up(live)
        return live.version > before

    def on_notification_gap(self) -> None:
        """Appends may have gone unheard (the listener reconnected): every cached copy catches up from the
        store on its next use, as if its refresh time had passed."""
        self._fresh.clear()


def _size_of(live: LiveMatch) -> int:
    return live.approx_bytes()


def apply_stored(live: LiveMatch, version: int, record: Record) -> None:
    """Apply a stored record; one that cannot be applied is an unreadable record at its version."""
    try:
        live.apply(record)
    except Exception as exc:  # a damaged row: its content is not echoed (it may hold hidden information)
        raise UnreadableRecord(live.id, version, f"it cannot be applied: {type(exc).__name__}") from exc


def rebuild(match_id: uuid.UUID, records: list[Record]) -> LiveMatch:
    """LiveMatch.from_records, naming the version of the first record that cannot be applied."""
    try:
        header = records[0]  # under the rules version the match recorded
        live = LiveMatch(match_id, get_game(str(header["game"]), header.get("rules_version")))
    except Exception as exc:
        raise UnreadableRecord(match_id, 1, f"it names no known game: {type(exc).__name__}") from exc
    for version, record in enumerate(records, start=1):
        apply_stored(live, version, record)
    return live
