"""Keeps the match catalog (server/catalog.py) a faithful projection of the store's notification log.

The catalog records the last notification it applied; `catch_up` applies what came after it (appends of
this process and of others on a shared store), so a crash between an append and its projection loses
nothing. It runs at start, shortly after writes (writes that come together share one transaction), on
each tick, and before a read that must see a match just made (listings, quotas, retried creations). A
store written before the catalog existed is upgraded once, before the server listens.
"""

from __future__ import annotations

import asyncio
import logging
import uuid

from server.catalog import Summary, creation_request, summary_of, token_digests
from server.errors import DataLoss, NotFound
from server.identities import is_server_stream
from server.repository import LiveMatches, rebuild
from server.store import EventStore, UnreadableRecord

log = logging.getLogger("server.matches")  # its lines are the match layer's (operators grep for them)
# Writes are projected into the catalog this long after the first of them (they share one transaction).
CATALOG_DELAY = 0.2


class CreationsAhead:
    """The creations in the log past the catalog's position, by the request each was made for and by the
    host key that made it: read once as the log grows (each lookup reads only what was appended since the
    last), dropped once catalogued."""

    def __init__(self) -> None:
        self.read_to = 0  # the log position read up to
        self.made: dict[tuple[str, str], tuple[uuid.UUID, int]] = {}  # (caller, request id) -> match, position
        self.keyed: dict[uuid.UUID, tuple[str, int]] = {}  # a match a host key made -> the key, position

    def find(self, store: EventStore, catalogued: int, request: tuple[str, str]) -> uuid.UUID | None:
        """The match made for `request` past `catalogued` (the catalog's position), if any."""
        self._read(store, catalogued)
        found = self.made.get(request)
        return found[0] if found else None

    def made_by(self, store: EventStore, catalogued: int, key_id: str) -> int:
        """The matches the host key `key_id` made past `catalogued` (the catalog's position)."""
        self._read(store, catalogued)
        return sum(1 for maker, _ in self.keyed.values() if maker == key_id)

    def _read(self, store: EventStore, catalogued: int) -> None:
        if self.read_to < catalogued:  # the catalog went past all that was read: start from it
            self.read_to = catalogued
        self.made = {key: made for key, made in self.made.items() if made[1] > catalogued}
        self.keyed = {match: keyed for match, keyed in self.keyed.items() if keyed[1] > catalogued}
        # Only as far as the log went when asked: under another node's flood of writes, a lookup that
        # chased the end would never return.
        end = store.last_position()
        while self.read_to < end and (changes := [c for c in store.changes_after(self.read_to) if c.position <= end]):
            for change in changes:  # a created record is decoded: it issues the host's token
                made_for = creation_request(change.record)
                if made_for:  # the first made for a request is the one (as the catalog's created_for)
                    self.made.setdefault(made_for, (change.match_id, change.position))
                key_id = change.record.get("host_key") if change.record.get("kind") == "created" else None
                if key_id:  # the id of the host key that made it (public), not its secret
                    self.keyed[change.match_id] = (str(key_id), change.position)
            self.read_to = changes[-1].position


class CatalogProjection:
    def __init__(self, matches: LiveMatches) -> None:
        self.matches = matches  # the repository: it reads the store and keeps the live matches
        self.store = matches.store
        self.catalog = matches.catalog
        self._io = matches.io  # runs a store or catalog call on the store's thread
        self.position = 0  # the last notification the catalog has applied (read at start)
        self._lock = asyncio.Lock()
        self._due: asyncio.TimerHandle | None = None  # a catch-up scheduled after writes
        self._task: asyncio.Task[None] | None = None
        self._ahead = CreationsAhead()  # read and changed in the store's turn only

    async def start(self) -> None:
        """Bring the catalog up to date; a store an older release wrote (no catalog yet) is upgraded first."""
        position = await self._io(self.catalog.position)
        if position is None:
            await self.upgrade()
        else:
            self.position = position
        await self.catch_up()

    async def close(self) -> None:
        """A clean stop leaves nothing for the next start to project."""
        if self._due is not None:
            self._due.cancel()
            self._due = None
        try:
            await self.catch_up()
        except Exception:
            log.exception("the match catalog could not be brought up to date before stopping")

    async def upgrade(self) -> None:
        """Build the catalog of a store written before it existed (exempt from the start-up target)."""
        with_lock = self.catalog.upgrade_lock()
        await self._io(with_lock.__enter__)
        try:
            position = await self._io(self.catalog.position)
            if position is not None:  # another node built it while this one waited for the lock
                self.position = position
                return
            upto = await self._io(self.store.last_position)
            firsts = [(m, at) for m, at in await self._io(self.store.first_positions) if not is_server_stream(m)]
            if firsts:  # a new store has nothing to upgrade, and says nothing of it
                log.info("upgrading the store: building the match catalog of %d matches", len(firsts))
            summaries: list[Summary] = []
            tokens: list[tuple[str, uuid.UUID]] = []
            for done, (match_id, first) in enumerate(firsts, start=1):
                try:
                    records = await self._io(self.store.read, match_id, 0)
                    live = rebuild(match_id, records)
                except UnreadableRecord as exc:  # listed once it is repaired; served as DATA_LOSS until then
                    log.error("upgrade: %s", exc)
                    continue
                summaries.append(summary_of(live, first))
                tokens += [(digest, match_id) for record in records for digest in token_digests(record)]
                if len(summaries) >= 200:
                    await self._io(self.catalog.apply, summaries, tokens, 0)
                    summaries, tokens = [], []
                    log.info("upgrade: %d of %d matches catalogued", done, len(firsts))
            await self._io(self.catalog.apply, summaries, tokens, upto)
            self.position = upto
            if firsts:
                log.info("upgrade done: the catalog holds %d matches", len(firsts))
        finally:
            await self._io(with_lock.__exit__, None, None, None)

    async def catch_up(self) -> int:
        """Project what was appended since the catalog's position (by this or another process) into it:
        the summaries of the matches it touched and the tokens it issued. Returns the entries applied.
        It goes as far as the log's end when it is called, no further: under steady writes a catch-up that
        chased the end would never return, and every read waiting on it would starve."""
        applied = 0
        target = await self._io(self.store.last_position)
        async with self._lock:
            while self.position < target:  # another catch-up may have gone past it while this one waited
                changes = [c for c in await self._io(self.store.changes_after, self.position) if c.position <= target]
                if not changes:
                    return applied
                touched: dict[uuid.UUID, int] = {}
                first_seen: dict[uuid.UUID, int] = {}  # a new match's first record comes first: its seq
                tokens: list[tuple[str, uuid.UUID]] = []
                for change in changes:
                    if is_server_stream(change.match_id):  # the server's own streams, never matches
                        continue
                    touched[change.match_id] = max(touched.get(change.match_id, 0), change.version)
                    first_seen.setdefault(change.match_id, change.position)
                    tokens += [(digest, change.match_id) for digest in token_digests(change.record)]
                projected = await self._io(self.catalog.versions, list(touched))
                summaries = []
                for match_id, version in touched.items():
                    if projected.get(match_id, 0) >= version:
                        continue  # another process projected it already
                    try:
                        live = await self.matches.load(match_id)
                        if live.version < version:  # appended by another process, or a write in flight
                            await self.matches.catch_up(live)
                    except (DataLoss, NotFound):
                        continue  # quarantined: it answers DATA_LOSS; catalogued once repaired
                    summaries.append(summary_of(live, first_seen[match_id]))
                position = changes[-1].position
                await self._io(self.catalog.apply, summaries, tokens, position)
                self.position = position
                applied += len(changes)
        return applied

    async def before_creating(self, caller: str, request_id: str | None, count: bool) -> tuple[uuid.UUID | None, int]:
        """What a CreateMatch checks first, in one short read (indexed lookups, and the log's token-issuing
        records since the catalog's position): the match made for `request_id` (a retry), and when `count`
        and none was, at least the unfinished matches `caller` made (its quota). On SQLite it runs on the
        loop's thread: under load its hop to the store's thread was half a CreateMatch's time in the server
        (p50 4.6 of 10.4 ms, 8 clients playing)."""
        return await self.matches.short_io(self._before_creating, self.position, caller, request_id, count)

    def _before_creating(
        self, position: int, caller: str, request_id: str | None, count: bool
    ) -> tuple[uuid.UUID | None, int]:
        """`position`: read before the catalog is, so the catalog holds at least every match up to it."""
        made = None if request_id is None else self._made(position, caller, request_id)
        return made, self._unfinished_at_most(position, caller) if count and made is None else 0

    def _made(self, position: int, caller: str, request_id: str) -> uuid.UUID | None:
        """The match a CreateMatch with this request id made, by this or another process, without a
        catch-up: the catalog holds every match up to its position, and the creations past it are indexed
        as the log is read (CreationsAhead). A catch-up under load loads and summarises every match
        touched and writes the catalog: it was half a CreateMatch's time then."""
        found = self.catalog.created_for(caller, request_id)
        if found is not None:
            return found
        return self._ahead.find(self.store, position, (caller, request_id))

    def _unfinished_at_most(self, position: int, key_id: str) -> int:
        """At least the unfinished matches the host key `key_id` made, without a catch-up: the catalog's count
        at its position and every match the key made past it (a match the catalog gained since counts twice,
        one that finished since still counts: still a bound)."""
        return self.catalog.unfinished_of(key_id) + self._ahead.made_by(self.store, position, key_id)

    def soon(self) -> None:
        """After a write: project it shortly (writes that come together share one catalog transaction)."""
        if self._due is not None or (self._task is not None and not self._task.done()):
            return

        def run() -> None:
            self._due = None
            self._task = asyncio.ensure_future(self._catch_up_quietly())

        self._due = asyncio.get_running_loop().call_later(CATALOG_DELAY, run)

    async def _catch_up_quietly(self) -> None:
        try:
            await self.catch_up()
        except Exception:  # the next write or tick tries again; the events are safe in the store
            log.exception("the match catalog could not be brought up to date")
