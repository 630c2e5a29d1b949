"""The application layer: load a match, check the caller, decide, append, notify.

Every write for a match happens under that match's lock and goes to the store at an exact version
(optimistic concurrency across processes). The store runs on one writer thread so the asyncio loop
never blocks on it. State for reads comes from the cache of live matches.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import math
import secrets
import time
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from cachetools import LRUCache

from engine import match as rules
from engine.contract import Event, Json, Status, Viewer
from engine.errors import GameError, InvalidConfig, MalformedCommand
from engine.registry import get_game
from server import audit
from server.access import Access, HostQuotas, UnknownToken
from server.bus import Appended, Bus, ServerStreamAppended
from server.catalog import Summary
from server.clock import Clock
from server.errors import (
    Aborted,
    BadRequest,
    DataLoss,
    FailedPrecondition,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
    Unavailable,
)
from server.fanout import Changes, first_of
from server.identities import BOT_KEY_PREFIX, IDENTITIES_STREAM, KEY_PREFIX, HostKey, is_server_stream, new_key_id
from server.limits import Limits, check_extend_seconds, check_game_config, check_seat_names, parse_config_json
from server.live import LiveMatch, cause, effective_events
from server.paging import FIRST_PAGE, PageRequest
from server.projection import CatalogProjection
from server.records import (
    BrokenChain,
    ChainedLog,
    ChainKey,
    Receipt,
    Record,
    chain,
    needs_chain_keyed,
    token_hash,
)
from server.requests import RequestTag, derived_secret, same_body
from server.seats import invitation_matches, seat_claimed, seat_digests, valid_invitation
from server.store import TRANSIENT, EventStore, UnreadableRecord, VersionConflict
from server.streams import StreamLimits, StreamRegistry
from server.writer import GroupWriter

log = logging.getLogger(__name__)
T = TypeVar("T")
# A write that loses an optimistic-concurrency race on a shared store is decided again on the caught-up
# state this many times before the caller is told UNAVAILABLE (nothing written; retry with the request_id).
MAX_WRITE_ATTEMPTS = 5
# What each secret the server hands out starts with (it also keeps a secret from starting with "-").
SECRET_PREFIXES = {
    "host": "msh_",
    "seat": "mss_",
    "invitation": "msi_",
    "invited": "msi_",
    "host-key": KEY_PREFIX,
    "bot-key": BOT_KEY_PREFIX,
}


class LostRace(Aborted):
    """Another process appended to the match first: nothing was written; decide again on fresh state."""


@dataclass(frozen=True)
class Created:
    live: LiveMatch
    host_token: str
    invitations: dict[str, str]  # seat -> invitation secret (shown once)


@dataclass(frozen=True)
class Accepted:
    version: int
    records: list[tuple[int, Record]]  # (version, record as the caller may see it)
    status: Status
    receipt: Receipt  # the chain's head at `version`: the writer keeps it to prove the log later
    paused: bool = False  # whether the match is paused after `version` (by the host, or by a rollback)


def receipt_at(live: LiveMatch, version: int) -> Receipt:
    """The receipt for `version` of a match (records never change once written, so any copy will do)."""
    record = live.records[version - 1]
    return Receipt(version, str(record["hash"]), str(record.get("key_id", "")))


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


class Matches:
    def __init__(
        self,
        store: EventStore,
        clock: Clock,
        admin_token: str | None = None,
        cache_bytes: int = 512 * 2**20,
        refresh_every: float | None = None,
        quotas: HostQuotas | None = None,
        limits: Limits | None = None,
        stream_limits: StreamLimits | None = None,
        *,
        chain_key: ChainKey,
    ):
        self.limits = limits or Limits()
        # refresh_every: when other processes write to the same store, how stale a cached match may get
        # before a read catches up from the store (None: this process is the only writer).
        self.refresh_every = refresh_every
        self._fresh: dict[uuid.UUID, float] = {}
        self.store = store
        self.catalog = store.catalog()  # match summaries and token owners (server/catalog.py)
        self.projection = CatalogProjection(store, self.catalog, self._io, self.load, self._catch_up, _rebuild)
        self.ticks = 0  # deadline-ticker passes completed (server/ticker.py)
        self.clock = clock
        self.admin_token = admin_token
        self._writer = GroupWriter(store)
        # Live matches, bounded by memory (their estimated size), not by count: a few long matches weigh
        # as much as thousands of short ones. Evicted matches are read again on their next use.
        self._cache: LRUCache[uuid.UUID, LiveMatch] = LRUCache(maxsize=cache_bytes, getsizeof=_size_of)
        self._locks: defaultdict[uuid.UUID, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._changed = Changes()  # wakes a match's streams (server/fanout.py)
        self.streams = StreamRegistry(stream_limits)  # the open Subscribe streams, to end them on purpose
        self.access = Access(admin_token, quotas or HostQuotas())  # who calls (SECURITY.md)
        self.chain_key = chain_key
        self._quarantined: dict[uuid.UUID, Quarantined] = {}
        # What a write did, for whoever follows it (server/bus.py): the catalog, the streams, the arena.
        self.bus = Bus()
        self.bus.subscribe(Appended, lambda appended: self.projection.soon())
        # Resolves a future, never waits: the streams build after the write's reply.
        self.bus.subscribe(Appended, lambda appended: self._changed.notify(appended.live.id))

    # --- plumbing -------------------------------------------------------------------------------

    async def _io(self, fn: Callable[..., T], *args: Any) -> T:
        try:
            return await self._writer.call(fn, *args)
        except TRANSIENT as exc:
            raise Unavailable(f"the store did not answer ({type(exc).__name__}); retry") from exc

    async def start(self) -> None:
        """Load the host keys and bring the catalog up to date; matches load on first use. A store an
        older release wrote (no catalog yet) is upgraded first: every match summarised, once."""
        await self.refresh_identities()
        await self.projection.start()

    async def catch_up_catalog(self) -> int:
        """Project into the catalog what was appended since it was last brought up to date."""
        return await self.projection.catch_up()

    async def refresh_identities(self) -> None:
        """Apply host-key records written since the last look (by this or another process)."""
        identities = self.access.identities
        if identities.broken is not None:
            return  # nothing past a record that does not hold is applied (logged when found)
        after = identities.version
        for version, record in enumerate(await self._io(self.store.read, IDENTITIES_STREAM, after), start=after + 1):
            if identities.version < version:  # idempotent by version: two refreshes may overlap
                if not self.checked(identities, record):
                    return
                identities.apply(record)

    @property
    def chain_keys(self) -> dict[str, bytes]:
        return {self.chain_key.key_id: self.chain_key.secret}

    def checked(self, stream: ChainedLog, record: Record) -> bool:
        """Whether a record read back from a server stream links to it (else it is logged, once, and it and
        what follows are not applied: writes there answer DATA_LOSS)."""
        try:
            stream.check(record, self.chain_keys)
        except BrokenChain as exc:
            log.error("%s", exc)
            return False
        return True

    async def close(self) -> None:
        await self.projection.close()
        await self._writer.close()

    @staticmethod
    def parse_id(text: str) -> uuid.UUID:
        try:
            return uuid.UUID(text)
        except (ValueError, AttributeError, TypeError):
            raise BadRequest(f"match_id {text!r} is not a match id (a UUID)") from None

    async def load(self, match_id: uuid.UUID) -> LiveMatch:
        if is_server_stream(match_id):  # the identities, the arena or a tournament: never a match
            raise NotFound(f"no match {match_id}")
        quarantined = self._quarantined.get(match_id)
        if quarantined is not None:
            raise DataLoss(quarantined.message(match_id))
        cached = self._cache.get(match_id)
        if cached is not None:
            if self.refresh_every is not None and time.monotonic() - self._fresh.get(match_id, 0) >= self.refresh_every:
                await self._catch_up(cached)
            return cached
        read_at = time.monotonic()
        try:
            records = await self._io(self.store.read, match_id, 0)
        except UnreadableRecord as exc:
            raise self._quarantine(exc, exc.readable) from None
        if not records:
            # A request for an unknown id leaves nothing behind (a lock taken for it is dropped), so
            # random ids cannot grow this process's memory.
            self._locks.pop(match_id, None)
            self._changed.pop(match_id, None)
            raise NotFound(f"no match {match_id}")
        self._fresh[match_id] = read_at
        raced = self._cache.get(match_id)
        if raced is not None:  # another coroutine loaded it while we read: one copy per match
            return raced
        try:
            live = _rebuild(match_id, records)
        except UnreadableRecord as exc:
            raise self._quarantine(exc, records[: exc.version - 1]) from None
        self._remember(live)
        self.access.index(live)
        return live

    def cache_use(self) -> tuple[int, int, int]:
        """(matches live in memory, their estimated bytes, the cache's limit in bytes)."""
        return len(self._cache), int(self._cache.currsize), int(self._cache.maxsize)

    def _remember(self, live: LiveMatch) -> None:
        """Keep a match live (or measure it again after it grew). One larger than the whole cache is
        served uncached: it is read from the store on each use rather than refused."""
        try:
            self._cache[live.id] = live
        except ValueError:  # cachetools: the value is larger than the cache
            self._cache.pop(live.id, None)
            log.warning("match %s (about %d bytes) is larger than the match cache", live.id, live.approx_bytes())

    def _quarantine(self, exc: UnreadableRecord, readable: list[Record]) -> DataLoss:
        """Set the match aside (its readable records kept to check who may verify it); the error to raise."""
        try:
            prefix: LiveMatch | None = _rebuild(exc.match_id, readable) if readable else None
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

    async def _catch_up(self, live: LiveMatch) -> None:
        """Apply what other processes appended since this copy was read. A record that cannot be read
        or applied quarantines the match (DataLoss)."""
        self._fresh[live.id] = time.monotonic()
        after = live.version
        try:
            newer = await self._io(self.store.read, live.id, after)
            applied = False
            for version, record in enumerate(newer, start=after + 1):
                if live.version < version:  # idempotent by version: our own append may have applied it already
                    _apply(live, version, record)
                    applied = True
                    if record["kind"] == "joined":
                        self.access.token_owner[record["token"]] = live.id
        except UnreadableRecord as exc:
            raise self._quarantine(exc, live.records[: exc.version - 1]) from None
        if applied:
            self._changed.notify(live.id)

    # --- other nodes' appends (server/notify.py) ---------------------------------------------------

    async def on_remote_append(self, stream: uuid.UUID, version: int) -> None:
        """Another node appended to `stream` up to `version`. A cached copy that streams here follow
        catches up now (under the match's lock, so never in the middle of a local write) and wakes them;
        one nobody follows is only marked stale, and catches up on its next use (a read saved per append).
        A match not in memory needs nothing: it is read from the store when it is next used."""
        if stream == IDENTITIES_STREAM:
            identities = self.access.identities
            if identities.version < version:
                revoked = {key.key_id for key in identities.keys.values() if key.revoked}
                bot_keys = {bot.name: bot.digest for bot in identities.bots.values() if not bot.revoked}
                await self.refresh_identities()
                for key in identities.keys.values():  # as on the node that revoked it: its streams end now
                    if key.revoked and key.key_id not in revoked:
                        self._credentials_replaced([key.digest], f"host key {key.key_id} was revoked")
                for name, digest in bot_keys.items():  # a bot key rotated or revoked there
                    bot = identities.bots[name]
                    if bot.revoked or not hmac.compare_digest(bot.digest, digest):
                        self._credentials_replaced([digest], f"bot {name}'s key was rotated or revoked")
            return
        if is_server_stream(stream):
            await self.bus.deliver(ServerStreamAppended(stream, version))
            return
        cached = self._cache.get(stream)
        if cached is None or cached.version >= version:
            return
        if not self.streams.count(stream):
            self._fresh.pop(stream, None)
            return
        async with self._locks[stream]:
            live = self._cache.get(stream)  # a lost race may have dropped or replaced it meanwhile
            if live is None or live.version >= version:
                return
            try:
                await self._catch_up(live)
            except DataLoss:  # quarantined, and its streams ended with the reason
                return

    async def _was_behind(self, live: LiveMatch) -> bool:
        """On a shared store: whether this copy lacked records another process had appended (now applied)."""
        if self.refresh_every is None or self._cache.get(live.id) is not live:
            return False
        before = live.version
        await self._catch_up(live)
        return live.version > before

    def on_notification_gap(self) -> None:
        """Appends may have gone unheard (the listener reconnected): every cached copy catches up from the
        store on its next use, as if its refresh time had passed."""
        self._fresh.clear()

    async def _append(self, live: LiveMatch, records: Sequence[Record]) -> list[tuple[int, Record]]:
        if needs_chain_keyed(live.records, self.chain_key.key_id):  # an old match: its keyed chain starts here
            at = records[0].get("at", self.now(live)) if records else self.now(live)  # as the write it opens
            records = [{"kind": "chain_keyed", "key_id": self.chain_key.key_id, "at": at}, *records]
        stamped = chain(live.last_hash, records, self.chain_key)
        try:
            await self._writer.append(live.id, live.version, stamped)
        except TRANSIENT as exc:  # whether it landed is unknown: a retry with the request id is safe
            self._cache.pop(live.id, None)
            raise Unavailable(
                f"the store did not answer ({type(exc).__name__}); retry with the same request_id"
            ) from exc
        except VersionConflict:
            self._cache.pop(live.id, None)  # another process wrote first: reload on next use
            raise LostRace("another writer changed this match first; nothing was written, reload and retry") from None
        first = live.version + 1
        for version, record in enumerate(stamped, start=first):
            if live.version < version:  # a catch-up from the store may have applied it already
                live.apply(record)
        if self._cache.get(live.id) is live:
            self._remember(live)  # measured again: it grew
        self.bus.publish(Appended(live))
        return [(first + offset, record) for offset, record in enumerate(stamped)]

    def now(self, live: LiveMatch) -> float:
        return live.clock_at(self.clock.now())

    async def viewer_for(self, live: LiveMatch, token: str | None) -> Viewer:
        """Who the caller is for this match (server/access.py). A token this copy does not know may have
        been issued by another process on a shared store since it was read (catch up once), or belong to
        a match not in memory (the catalog knows every token's match)."""
        try:
            return self.access.viewer_for(live, token)
        except UnknownToken:
            if self.refresh_every is not None:
                await self._catch_up(live)
                await self.refresh_identities()
                try:
                    return self.access.viewer_for(live, token)
                except UnknownToken:
                    pass
            owner = await self._io(self.catalog.token_owner, token_hash(token or ""))
            if owner == live.id:
                raise Unauthenticated("this token was replaced by a newer one for the same seat") from None
            if owner is not None:
                raise PermissionDenied("this token belongs to another match") from None
            raise

    async def require_host(self, live: LiveMatch, token: str | None) -> Viewer:
        """The host's view for a host's write. An arena match has no host: its organiser (or the admin)
        corrects it, seeing it as a spectator until it ends; a finished one is voided, not rolled back."""
        if token and live.header.get("arena") and self.access.is_corrector(live, token):
            if live.status().finished:
                raise FailedPrecondition(
                    "this arena match is over: a finished tournament match is corrected by voiding it "
                    "(matchctl tournament void TOURNAMENT MATCH --reason ...)"
                )
            return Viewer.spectator()
        return self.access.host_only(await self.viewer_for(live, token) if token else None)

    def _accepted(self, live: LiveMatch, viewer: Viewer, written: list[tuple[int, Record]]) -> Accepted:
        """What a write answers: the records it appended as the caller may see them, and a receipt."""
        rows = [(version, live.visible_record(version, viewer)) for version, _ in written]
        return Accepted(
            live.version, rows, live.status(), receipt_at(live, live.version), live.paused_after(live.version)
        )

    # --- idempotent writes (server/requests.py) -------------------------------------------------

    def _secret(self, tag: RequestTag | None, match: str, purpose: str, *parts: str) -> str:
        """A new secret: derived from the request id when there is one, so a retry gets it again. Its
        prefix says what it is and keeps it from starting with "-" (which a command line reads as a flag)."""
        prefix = SECRET_PREFIXES[purpose]
        if tag is None:
            return prefix + secrets.token_urlsafe(24)
        return prefix + derived_secret(self.chain_key.secret, match, purpose, *parts, tag.request_id)

    def _replayed(self, live: LiveMatch, caller: str, tag: RequestTag | None, viewer: Viewer) -> Accepted | None:
        """The original outcome of a request this caller already made, as the caller may see it now."""
        if tag is None:
            return None
        first = live.requests.get((caller, tag.request_id))
        if first is None:
            return None
        same_body(live.records[first - 1]["request"], tag)
        last = live.batch_end_from(first)
        rows = [(version, live.visible_record(version, viewer)) for version in range(first, last + 1)]
        return Accepted(last, rows, live.status(), receipt_at(live, last), live.paused_after(last))

    async def _as_host(
        self, live: LiveMatch, token: str | None, tag: RequestTag | None
    ) -> tuple[Viewer, str, Accepted | None]:
        """A host's write: (viewer, caller, the original outcome if this request was already made)."""
        viewer = await self.require_host(live, token)
        caller = self.access.caller_of(live, token)
        return viewer, caller, self._replayed(live, caller, tag, viewer)

    @staticmethod
    def _tagged(records: Sequence[Record], tag: RequestTag | None, caller: str) -> list[Record]:
        """The batch with the request recorded on its first record."""
        if tag is None or not records:
            return list(records)
        return [{**records[0], "request": tag.record(caller)}, *records[1:]]

    async def _locked_write(self, match_id: uuid.UUID, act: Callable[[LiveMatch], Awaitable[T]]) -> T:
        """Run a write under the match's lock; a lost race with another process is decided again, and so is
        a refusal made on a cached copy that turns out to be behind the store (the store checks only what
        is written, so a refusal decided on stale state would otherwise reach the caller)."""
        for _ in range(MAX_WRITE_ATTEMPTS):
            async with self._locks[match_id]:
                live = await self.load(match_id)
                try:
                    return await act(live)
                except LostRace:
                    log.info("match %s changed under a write in another process: deciding again", match_id)
                except Exception:
                    if not await self._was_behind(live):
                        raise
                    log.info("match %s was behind the store when it refused a write: deciding again", match_id)
        raise Unavailable(
            f"match {match_id} kept changing under this write ({MAX_WRITE_ATTEMPTS} attempts); nothing was "
            "written: retry with the same request_id"
        )

    # --- commands -------------------------------------------------------------------------------

    async def create(
        self,
        game_name: str,
        players: Sequence[str],
        seed: int | None,
        overrides_json: str,
        token: str | None = None,
        private: bool = False,
        tag: RequestTag | None = None,
        starts_at: float | None = None,
    ) -> Created:
        """A new match. It waits for its players: its first phase opens when its last seat is claimed, when
        the host starts it, or at `starts_at` (server time, Unix seconds) if the host set one."""
        try:
            creator = self.access.creator(token)
        except UnknownToken:
            await self.refresh_identities()  # a host key another server process has just created
            creator = self.access.creator(token)
        if tag is not None:  # a retry? The catalog, caught up, knows every match made for a request
            await self.catch_up_catalog()
            existing = await self._io(self.catalog.created_for, creator, tag.request_id)
            if existing is not None:
                return self._created_again(await self.load(existing), tag)
        if creator != "admin":
            self.access.check_quota(creator, await self.unfinished_of(creator))
        game = get_game(game_name)
        check_seat_names(players, self.limits)
        players = list(players)
        if not players or len(set(players)) != len(players):
            raise InvalidConfig("players must be distinct, non-empty names")
        overrides = parse_config_json(overrides_json, self.limits)
        config = game.default_config(players)
        config.update(overrides)
        config["players"] = list(players)
        check_game_config(game.name, config, self.limits)
        seed = secrets.randbelow(2**53) if seed is None else seed
        live = LiveMatch(uuid.uuid4(), game)
        host_token = self._secret(tag, str(live.id), "host")
        invitations = {player: self._secret(tag, str(live.id), "invitation", player) for player in players}
        now = self.clock.now()
        created = {
            "kind": "created",
            "game": game.name,
            "players": list(players),
            "config": config,
            "seed": seed,
            "rules_version": game.rules_version,
            "host_token": token_hash(host_token),
            "invitations": {player: token_hash(secret) for player, secret in invitations.items()},
            "host_key": None if creator == "admin" else creator,
            "private": private,
            "at": now,
            "waits": True,  # no clock runs before its players can act (earlier releases started at once)
        }
        if starts_at is not None:
            if not math.isfinite(starts_at) or starts_at <= now:
                raise BadRequest(f"starts_at {starts_at} is not a time to come (the server's time is {now:.0f})")
            created["starts_at"] = starts_at
        live.apply(created)  # validates the configuration before anything is written
        self._decide(lambda: game.start(live.state, rules.context(seed, live.game_version, now)))  # it can start
        live = LiveMatch(live.id, game)
        await self._append(live, self._tagged([created], tag, creator))
        self._remember(live)
        self.access.token_owner[token_hash(host_token)] = live.id
        self.access.created(creator)
        return Created(live, host_token, invitations)

    # --- the arena's writes (server/arena/service.py) ----------------------------------------------

    def arena_match(
        self, game_name: str, seats: Mapping[str, str], overrides: Mapping[str, Json], organiser: str, arena: Record
    ) -> tuple[LiveMatch, list[Record]]:
        """A bot match's first records, checked but not written: the arena writes them in one transaction
        with its own records. `seats`: seat -> bot (a bot's seat is its own name). The seed is drawn here
        and recorded; the host token is never handed out (an arena match is corrected by its organiser)."""
        game = get_game(game_name)
        players = list(seats)
        check_seat_names(players, self.limits)
        config = game.default_config(players)
        config.update(overrides)
        config["players"] = players
        check_game_config(game.name, config, self.limits)
        seed = secrets.randbelow(2**53)
        live = LiveMatch(uuid.uuid4(), game)
        now = self.clock.now()
        created = {
            "kind": "created",
            "game": game.name,
            "players": players,
            "config": config,
            "seed": seed,
            "rules_version": game.rules_version,
            "host_token": token_hash(secrets.token_urlsafe(24)),
            "invitations": {},
            "host_key": None if organiser == "admin" else organiser,
            "private": False,
            "at": now,
            "bots": dict(seats),
            "arena": dict(arena),
        }
        live.apply(created)  # validates the configuration before anything is written
        start_events = self._decide(lambda: game.start(live.state, rules.context(seed, live.game_version, now)))
        records = [created] + game_records(start_events, cause("server", start=True), now, start=True)
        return LiveMatch(live.id, game), records

    async def write_together(
        self, writes: Sequence[tuple[uuid.UUID, int, str, Sequence[Record]]]
    ) -> list[list[Record]]:
        """Append to several streams in one transaction: (stream, after version, its last hash, records).
        All land or none (VersionConflict: another node wrote to one of them first). Returns each batch
        as stamped into its stream's hash chain."""
        stamped = [chain(last_hash, records, self.chain_key) for _, _, last_hash, records in writes]
        batches = [(stream, after, batch) for (stream, after, _, _), batch in zip(writes, stamped, strict=True)]
        await self._io(self.store.append_many, batches)
        return stamped

    def adopt(self, live: LiveMatch, stamped: Sequence[Record]) -> None:
        """A new match written by write_together: kept live, catalogued, its streams woken."""
        if self._cache.get(live.id) is not None:  # a reader loaded it from the store first: that copy stays
            self.projection.soon()
            return
        for record in stamped:
            live.apply(record)
        self._remember(live)
        self.access.index(live)
        self.bus.publish(Appended(live))

    async def read_stream(self, stream: uuid.UUID, after: int) -> list[Record]:
        """The records of one of the server's own streams after a version (the arena, a tournament)."""
        return await self._io(self.store.read, stream, after)

    async def finished_among(self, match_ids: Sequence[uuid.UUID]) -> set[uuid.UUID]:
        """Which of these matches the catalog says are over (no match read)."""
        return await self._io(self.catalog.finished_among, list(match_ids))

    def new_secret(self, tag: RequestTag | None, scope: str, purpose: str, *parts: str) -> str:
        return self._secret(tag, scope, purpose, *parts)

    async def append_identity(self, record: Record) -> None:
        await self._append_identity(record)

    def end_credential(self, digest: str, why: str) -> None:
        self._credentials_replaced([digest], why)

    def notify(self, stream: uuid.UUID) -> None:
        """Wake whoever waits on a stream (the arena's BotEvents wait on the arena stream)."""
        self._changed.notify(stream)

    def _created_again(self, live: LiveMatch, tag: RequestTag, body_checked: bool = False) -> Created:
        """A retried CreateMatch or Fork: the same match, and the same secrets (derived from the request id)."""
        if not body_checked:
            same_body(live.header["request"], tag)
        host_token = self._secret(tag, str(live.id), "host")
        invitations = {player: self._secret(tag, str(live.id), "invitation", player) for player in live.players}
        return Created(live, host_token, invitations)

    async def join(
        self,
        match_id: uuid.UUID,
        player: str,
        token: str | None,
        invitation: str = "",
        reissue: bool = False,
        tag: RequestTag | None = None,
    ) -> tuple[str, int]:
        """Claim a seat with its invitation, or (host or admin) fill it; returns the seat's new token."""

        async def act(live: LiveMatch) -> tuple[str, int]:
            _refuse_bot_seats(live)
            if not invitation:
                if not token:
                    raise Unauthenticated("joining needs the seat's invitation, or the host's or admin's token")
                if not (await self.viewer_for(live, token)).is_host:
                    raise PermissionDenied(
                        "joining needs the seat's invitation; only the host or admin fills a seat without one "
                        "(one token acts for one seat)"
                    )
            # An invitation's retry is recognised by its body, which holds the invitation itself.
            caller = f"invitation:{player}" if invitation else self.access.caller_of(live, token)
            again = self._replayed(live, caller, tag, Viewer.of(player))
            if again is not None:
                return self._secret(tag, str(live.id), "seat", player, caller), again.version
            if player not in live.players:
                raise InvalidConfig(f"{player!r} is not a seat of this match; seats: {', '.join(live.players)}")
            if invitation:
                if not invitation_matches(valid_invitation(live.records, player), token_hash(invitation)):
                    raise PermissionDenied(
                        f"this invitation does not claim {player}'s seat: it is wrong, replaced, or already used "
                        "(the seat has acted); ask the host for a new one (matchctl invite)"
                    )
                via = "invitation"
            else:
                if seat_claimed(live.tokens, player) and not reissue:
                    raise FailedPrecondition(
                        f"{player}'s seat is claimed; set reissue to give it a new token (the old one stops working)"
                    )
                via = "admin" if self.access.is_admin(token) else "host"
            replaced = seat_digests(live.tokens, player)
            new_token = self._secret(tag, str(live.id), "seat", player, caller)
            digest = token_hash(new_token)
            joined = {"kind": "joined", "player": player, "token": digest, "via": via, "at": self.now(live)}
            await self._append(live, self._tagged([joined], tag, caller))
            self.access.token_owner[digest] = match_id
            self._credentials_replaced(replaced, f"{player}'s seat was given a new token")
            joined_at = live.version  # what the join answers (a retry answers the same)
            if live.waiting and live.paused_at is None and live.due_to_start(self.now(live)):
                await self._start(live, self.now(live))  # the last seat is claimed: the first phase opens
            return new_token, joined_at

        return await self._locked_write(match_id, act)

    async def invite(
        self, match_id: uuid.UUID, player: str, token: str | None, tag: RequestTag | None = None
    ) -> tuple[str, int]:
        """Host or admin: a new invitation for a seat (any earlier one stops working)."""

        async def act(live: LiveMatch) -> tuple[str, int]:
            _refuse_bot_seats(live)
            viewer = await self.require_host(live, token)
            caller = self.access.caller_of(live, token)
            again = self._replayed(live, caller, tag, viewer)
            if again is not None:
                return self._secret(tag, str(live.id), "invited", player, caller), again.version
            if player not in live.players:
                raise InvalidConfig(f"{player!r} is not a seat of this match; seats: {', '.join(live.players)}")
            secret = self._secret(tag, str(live.id), "invited", player, caller)
            invited = {"kind": "invited", "player": player, "invitation": token_hash(secret), "at": self.now(live)}
            await self._append(live, self._tagged([invited], tag, caller))
            return secret, live.version

        return await self._locked_write(match_id, act)

    def _credentials_replaced(self, digests: Sequence[str], why: str) -> None:
        """A replaced or revoked credential's open streams end now (UNAUTHENTICATED, saying why)."""
        for digest in digests:
            self.streams.end_credential(digest, why)

    # --- host keys (admin) ----------------------------------------------------------------------

    async def _append_identity(self, record: Record) -> None:
        for _ in range(MAX_WRITE_ATTEMPTS):
            async with self._locks[IDENTITIES_STREAM]:
                await self.refresh_identities()
                if self.access.identities.broken is not None:
                    raise DataLoss(str(self.access.identities.broken))
                stamped = chain(self.access.identities.last_hash, [record], self.chain_key)
                try:
                    await self._writer.append(IDENTITIES_STREAM, self.access.identities.version, stamped)
                except VersionConflict:
                    continue  # another server process changed the host keys first: catch up and write after
                self.access.identities.apply(stamped[0])
                return
        raise Unavailable("the host keys kept changing under this write; nothing was written: retry")

    async def create_host_key(self, token: str | None, name: str, tag: RequestTag | None = None) -> tuple[HostKey, str]:
        """A new host key; the secret is returned once (a retry with the request id gets it again)."""
        self.access.require_admin(token)
        if not name.strip():
            raise BadRequest("a host key needs a name (who it is for)")
        await self.refresh_identities()
        if tag is not None and (earlier := self.access.identities.requests.get(("admin", tag.request_id))) is not None:
            same_body(earlier["request"], tag)
            key_id = str(earlier["host_key_id"])
            return self.access.identities.keys[key_id], self._secret(tag, "identities", "host-key", key_id)
        key_id = new_key_id()
        secret = self._secret(tag, "identities", "host-key", key_id)
        record = self.access.identities.created_record(key_id, name, secret, self.clock.now())
        await self._append_identity(self._tagged([record], tag, "admin")[0])
        return self.access.identities.keys[key_id], secret

    async def list_host_keys(self, token: str | None) -> list[HostKey]:
        self.access.require_admin(token)
        await self.refresh_identities()
        return list(self.access.identities.keys.values())

    async def revoke_host_key(self, token: str | None, key_id: str, reason: str) -> HostKey:
        """The key can no longer create matches or act as host; its open streams end. Host tokens it
        already issued keep working (they are the matches' own credentials)."""
        self.access.require_admin(token)
        await self.refresh_identities()
        key = self.access.identities.keys.get(key_id)
        if key is None:
            raise NotFound(f"no host key {key_id!r}")
        if key.revoked:
            raise FailedPrecondition(f"host key {key_id} is already revoked")
        await self._append_identity(
            self.access.identities.revoked_record(key_id, reason or "revoked", self.clock.now())
        )
        self._credentials_replaced([key.digest], f"host key {key_id} was revoked")
        return self.access.identities.keys[key_id]

    async def submit(
        self,
        match_id: uuid.UUID,
        token: str | None,
        as_player: str,
        text: str | None,
        command: Any,
        expected_version: int | None,
        tag: RequestTag | None = None,
    ) -> Accepted:
        if not token:
            raise Unauthenticated("submitting needs a player's token (authorization metadata)")

        async def act(live: LiveMatch) -> Accepted:
            viewer = await self.viewer_for(live, token)
            if viewer.kind != "player" or viewer.player is None:
                raise PermissionDenied("only a player submits commands; use that player's token")
            player = viewer.player
            if as_player and as_player != player:
                raise PermissionDenied(f"this token is {player}'s; a player can act only as themself")
            caller = f"seat:{player}"
            again = self._replayed(live, caller, tag, viewer)
            if again is not None:
                return again
            if expected_version is not None and expected_version != live.version:
                raise Aborted(f"stale version: the match is at version {live.version}, not {expected_version}")
            if live.cancelled_at:
                raise FailedPrecondition("the match was cancelled by the host: it takes no more submissions")
            if live.paused_at is not None:
                raise FailedPrecondition("the match is paused by the host; submissions wait until it resumes")
            now = self.now(live)
            await self._expire_due(live, now)
            if live.waiting:
                raise FailedPrecondition(f"the match has not started: it is {live.status().phase}")
            most = self.limits.max_submissions_per_seat_per_phase
            if live.phase_submissions[player] >= most:
                raise ResourceExhausted(
                    f"{player} has made {live.phase_submissions[player]} submissions in this phase: "
                    f"max_submissions_per_seat_per_phase is {most}; the last one stands"
                )
            game, state = live.game, live.state
            typed = self._decide(lambda: game.parse(state, player, text)) if text is not None else command
            events = self._decide(
                lambda: rules.submit(game, state, player, typed, rules.context(live.seed, live.game_version, now))
            )
            batch = game_records(events, cause(player, typed, text), now)
            written = await self._append(live, self._tagged(batch, tag, caller))
            return self._accepted(live, viewer, written)

        return await self._locked_write(match_id, act)

    async def force_phase_end(
        self,
        match_id: uuid.UUID,
        token: str | None,
        reason: str,
        expected_version: int | None = None,
        tag: RequestTag | None = None,
    ) -> Accepted:
        async def act(live: LiveMatch) -> Accepted:
            viewer, caller, again = await self._as_host(live, token, tag)
            if again is not None:
                return again
            _check_expected(live, expected_version)
            if live.status().finished:
                raise FailedPrecondition("the match is over")
            if live.waiting:
                raise FailedPrecondition(
                    f"the match has not started ({live.status().phase}): start it with the host action start"
                )
            now = self.now(live)
            why = cause("host", timeout=True, forced=True, reason=reason)
            written = await self._timeout(live, now, why, tag, caller)
            return self._accepted(live, viewer, written)

        return await self._locked_write(match_id, act)

    async def expire_due(self, match_id: uuid.UUID) -> int:
        """Apply every deadline that has passed (the ticker calls this); returns records written."""
        async with self._locks[match_id]:
            live = await self.load(match_id)
            if live.paused_at is not None:
                return 0
            return await self._expire_due(live, self.now(live))

    async def _start(self, live: LiveMatch, at: float) -> list[tuple[int, Record]]:
        """Open a waiting match's first phase at `at` (match clock): the game's start, recorded."""
        game = live.game
        events = self._decide(lambda: game.start(live.state, rules.context(live.seed, live.game_version, at)))
        return await self._append(live, game_records(events, cause("server", start=True), at, start=True))

    async def _expire_due(self, live: LiveMatch, now: float) -> int:
        written = 0
        if live.cancelled_at:  # no deadline applies to a cancelled match
            return 0
        if live.waiting:
            if not live.due_to_start(now):
                return 0
            starts_at = live.starts_at  # opened at the time the host set, like a deadline at its own time
            written += len(await self._start(live, now if starts_at is None else starts_at))
        while rules.is_due(live.game, live.state, now):
            deadline = live.status().deadline
            assert deadline is not None
            written += len(await self._timeout(live, deadline, cause("clock", timeout=True)))
        return written

    async def _timeout(
        self, live: LiveMatch, at: float, why: dict[str, Any], tag: RequestTag | None = None, caller: str = ""
    ) -> list[tuple[int, Record]]:
        game, state = live.game, live.state
        events = game.timeout(state, rules.context(live.seed, live.game_version, at))
        if not events:
            raise FailedPrecondition(f"nothing to end in {live.status().phase}")
        return await self._append(live, self._tagged(game_records(events, why, at), tag, caller))

    async def rollback(
        self,
        match_id: uuid.UUID,
        token: str | None,
        to: int,
        reason: str,
        reopen: bool = False,
        tag: RequestTag | None = None,
    ) -> Accepted:
        """Retract everything after version `to` (kept in the log, marked) and pause the match there.

        `to` must end a batch: a state inside one (say, between the last sealed submission and its
        resolution) awaits nobody and has no deadline. A finished match is reopened only on request,
        with a new recorded seed: its seed was public, so the dice after `to` would be known.
        """

        async def act(live: LiveMatch) -> Accepted:
            viewer, caller, again = await self._as_host(live, token, tag)
            if again is not None:
                return again
            if not reason.strip():
                raise BadRequest("a rollback needs a reason")
            if live.waiting:
                raise FailedPrecondition("the match has not started: there is nothing to roll back")
            if not live.started_version <= to < live.version:
                raise BadRequest(
                    f"roll back to a version from {live.started_version} (the match's start) to {live.version - 1}"
                )
            if not live.is_batch_end(to):
                before, after = live.nearest_batch_ends(to)
                raise BadRequest(
                    f"version {to} is inside the records of one command, deadline or host action; "
                    f"roll back to the nearest batch end before it, {before}, or after it, {after}"
                )
            if live.cancelled_at:
                raise FailedPrecondition("the match was cancelled by the host: a cancel is final (fork it to play on)")
            finished = live.status().finished
            if finished and not reopen:
                raise FailedPrecondition(
                    "the match is over and its seed and hidden configuration are public: fork it to explore "
                    "(matchctl fork), or roll back with reopen to play on with a new seed"
                )
            by = "admin" if self.access.is_admin(token) else "host"
            # The match clock goes back to the time of version `to` and stops there (`paused`): its
            # deadlines and reserves are restored, and nothing runs out until the host resumes.
            clock_to = float(live.records[to - 1]["at"])
            record: Record = {"kind": "rollback", "to": to, "reason": reason, "by": by, "at": self.now(live)}
            record.update(clock_to=clock_to, offset=self.clock.now() - clock_to, paused=True)
            if finished:
                record.update(reopen=True, seed=secrets.randbelow(2**53))
            written = await self._append(live, self._tagged([record], tag, caller))
            return self._accepted(live, viewer, written)

        return await self._locked_write(match_id, act)

    async def host_action(
        self,
        match_id: uuid.UUID,
        token: str | None,
        action: str,
        reason: str,
        seconds: float = 0.0,
        expected_version: int | None = None,
        tag: RequestTag | None = None,
    ) -> Accepted:
        """Pause, resume, extend, settle, cancel or start: an audited host record (pause, resume and extend
        move the match clock; cancel ends the match with no result, for good; start opens a match that
        waits for its players)."""

        async def act(live: LiveMatch) -> Accepted:
            viewer, caller, again = await self._as_host(live, token, tag)
            if again is not None:
                return again
            _check_expected(live, expected_version)
            if live.status().finished and action != "settle":
                raise FailedPrecondition("the match is over")
            server_now = self.clock.now()
            by = "admin" if self.access.is_admin(token) else "host"
            record: Record = {"kind": "host", "action": action, "by": by, "reason": reason, "at": self.now(live)}
            if action == "pause":
                if live.paused_at is not None:
                    raise FailedPrecondition("the match is already paused")
            elif action == "resume":
                if live.paused_at is None:
                    raise FailedPrecondition("the match is not paused")
                record["offset"] = server_now - live.paused_at  # the clock goes on from where it stopped
            elif action == "settle":  # the host's decision where the rules leave it to them (e.g. MN-5 ties)
                if not reason.strip():
                    raise BadRequest("settle needs the decision, as the reason")
            elif action == "cancel":
                if not reason.strip():
                    raise BadRequest("cancel needs a reason (it is kept in the match's log)")
            elif action == "start":  # open a waiting match's first phase now, whoever has joined
                if not live.waiting:
                    raise FailedPrecondition("the match has started already")
                written = await self._append(live, self._tagged([record], tag, caller))
                written += await self._start(live, self.now(live))
                return self._accepted(live, viewer, written)
            elif action == "extend":
                check_extend_seconds(seconds, self.limits)
                if seconds <= 0:
                    raise BadRequest("extend the deadline by a positive number of seconds")
                record["seconds"] = seconds
                record["offset"] = live.clock_offset + seconds  # the match clock is held back
            else:
                raise BadRequest(f"unknown host action {action!r}")
            written = await self._append(live, self._tagged([record], tag, caller))
            return self._accepted(live, viewer, written)

        return await self._locked_write(match_id, act)

    async def fork(
        self, match_id: uuid.UUID, token: str | None, at: int, reason: str = "", tag: RequestTag | None = None
    ) -> Created:
        """A new match as this one stood at `at`; the origin's log records who forked it, where and why."""

        async def act(source: LiveMatch) -> Created:
            if token and source.header.get("arena") and self.access.is_corrector(source, token):
                # An arena match's organiser sees it as a spectator: a copy it hosts would show the sealed
                # moves, the tree schedule, the judges and the seed. Once the match is over they are public.
                if not source.status().finished:
                    raise PermissionDenied(
                        "an arena match is forked only once it is over: until then its organiser sees it as "
                        "a spectator, and a fork would show its sealed moves and its seed"
                    )
                viewer = Viewer.spectator()
            else:
                viewer = await self.require_host(source, token)
            caller = self.access.caller_of(source, token)
            again = self._replayed(source, caller, tag, viewer)
            if again is not None:
                forked = uuid.UUID(str(source.records[again.version - 1]["fork"]))
                assert tag is not None  # a replay needs a request id
                return self._created_again(await self.load(forked), tag, body_checked=True)
            if source.waiting:
                raise FailedPrecondition("the match has not started: fork it once it has")
            await self._check_fork_quota(source)
            if not source.started_version <= at <= source.version:
                raise BadRequest(f"fork at a version from {source.started_version} to {source.version}")
            if not source.is_batch_end(at):
                before, after = source.nearest_batch_ends(at)
                raise BadRequest(
                    f"version {at} is inside the records of one command, deadline or host action; "
                    f"fork at the nearest batch end before it, {before}, or after it, {after}"
                )
            live = LiveMatch(uuid.uuid4(), source.game)
            host_token = self._secret(tag, str(live.id), "host")
            invitations = {p: self._secret(tag, str(live.id), "invitation", p) for p in source.players}
            header = source.header
            now = float(source.records[at - 1]["at"])  # the fork's clock starts where the origin stood
            created = {key: header[key] for key in ("game", "players", "config", "rules_version")}
            # The fork draws what the origin would have drawn, unless that seed was public once (the
            # origin finished): then its dice would be known in advance, so it gets a new one.
            created["seed"] = source.seed_at(at)
            if source.seed_revealed(at):
                created.update(seed=secrets.randbelow(2**53), reseeded=True)
            created.update(kind="created", host_token=token_hash(host_token), at=now, offset=self.clock.now() - now)
            created["invitations"] = {p: token_hash(code) for p, code in invitations.items()}
            created.update(host_key=header.get("host_key"), private=bool(header.get("private")))
            if header.get("host_key"):
                self.access.created(str(header["host_key"]))
            created["origin"] = {"match_id": str(source.id), "version": at}
            why = cause("fork", origin=str(source.id), version=at)
            await self._append(
                live, [created] + game_records(effective_events(source.records, at), why, now, start=True)
            )
            self._remember(live)
            self.access.token_owner[token_hash(host_token)] = live.id
            by = "admin" if self.access.is_admin(token) else viewer.kind
            note: Record = {"kind": "host", "action": "fork", "by": by, "reason": reason, "fork": str(live.id)}
            note.update(at_version=at, at=self.now(source))
            await self._append(source, self._tagged([note], tag, caller))
            return Created(live, host_token, invitations)

        return await self._locked_write(match_id, act)

    async def _check_fork_quota(self, source: LiveMatch) -> None:
        """A fork is a new match of the origin's host key (its quotas), and one match has so many forks."""
        key = source.header.get("host_key")
        if key:
            self.access.check_quota(str(key), await self.unfinished_of(str(key)))
        forks = sum(1 for record in source.records if record["kind"] == "host" and record.get("action") == "fork")
        most = self.access.quotas.max_forks_per_match
        if forks >= most:
            raise ResourceExhausted(f"match {source.id} has {forks} forks: max_forks_per_match is {most}")

    async def verify(self, match_id: uuid.UUID, token: str | None, receipts: Sequence[Receipt] = ()) -> dict[str, Any]:
        """Re-run every recorded decision through the current engine, check the hash chain (keyed under
        this server's key) and that the log still holds every receipted version unchanged."""
        if match_id not in self._quarantined:
            live = await self.load(match_id)
            viewer = await self.require_host(live, token)
            try:
                records = await self._io(self.store.read, match_id, 0)  # the store itself, not the cache
            except UnreadableRecord as exc:  # a row went bad since the match was loaded
                self._quarantine(exc, exc.readable)
            else:
                current = get_game(live.game.name).rules_version  # the match replays under its own version
                return audit.verify(match_id, records, current, self.chain_keys, receipts, viewer)
        quarantined = self._quarantined[match_id]
        if quarantined.prefix is not None:
            self.access.require_host(quarantined.prefix, token)  # from the store: nothing to catch up
        elif not self.access.is_admin(token):
            raise PermissionDenied("this match's first record cannot be read: only the admin may verify it")
        return audit.unreadable(quarantined.version, quarantined.reason, quarantined.prefix)

    async def audit(
        self, match_id: uuid.UUID, token: str | None, at: int | None, page: PageRequest = FIRST_PAGE
    ) -> tuple[list[dict[str, Any]], str]:
        live = await self.load(match_id)
        viewer = await self.viewer_for(live, token)
        upto = live.version if at is None else at
        if not 1 <= upto <= live.version:
            raise BadRequest(f"version {upto} is outside this match's versions 1..{live.version}")
        # A page token is the version the next page starts at. One page walks at most
        # max_audit_records_per_page records (a page may hold fewer entries: the next token goes on from
        # there), so no caller can make one call fold a long match whole.
        first = max(1, page.start(default=1))
        window = min(upto, first + self.limits.max_audit_records_per_page - 1)
        entries = audit.trail(live, viewer, window, limit=page.size + 1, start=first)
        taken = page.fit(entries, lambda entry: len(json.dumps(entry)))
        if taken < len(entries):
            return entries[:taken], page.next_token(int(entries[taken]["version"]), more=True)
        return entries, page.next_token(window + 1, more=window < upto)

    @staticmethod
    def _decide(step: Callable[[], T]) -> T:
        """Run engine code; a bug there must not turn a user's input into INTERNAL."""
        try:
            return step()
        except GameError:
            raise
        except Exception:
            log.exception("engine error while applying a command")
            raise MalformedCommand("the command could not be applied (the server logged the details)") from None

    # --- reads ----------------------------------------------------------------------------------

    async def state(self, match_id: uuid.UUID, token: str | None, at: int | None) -> tuple[LiveMatch, Viewer, int]:
        live = await self.load(match_id)
        viewer = await self.viewer_for(live, token)
        version = live.version if at is None else at
        if not 1 <= version <= live.version:
            raise BadRequest(f"version {version} is outside this match's versions 1..{live.version}")
        return live, viewer, version

    def view(self, live: LiveMatch, viewer: Viewer, version: int) -> dict[str, Json]:
        return live.game.view(live.state_at(version), viewer)

    async def history(
        self, match_id: uuid.UUID, token: str | None, page: PageRequest = FIRST_PAGE
    ) -> tuple[list[tuple[int, Record, bool]], str]:
        """One page of the log as the caller may see it, and the next page's token ("" at the end)."""
        live = await self.load(match_id)
        viewer = await self.viewer_for(live, token)
        retracted = live.retracted()
        first = page.start(default=1)
        last = min(live.version, first + page.size - 1)
        visible = live.visible_records(first, last, viewer)  # one running fold for the page
        rows = [(version, record, version in retracted) for version, record in visible]
        taken = page.fit(rows, lambda row: len(json.dumps(row[1])))
        return rows[:taken], page.next_token(first + taken, more=first + taken <= live.version)

    async def list_matches(self, token: str | None, page: PageRequest = FIRST_PAGE) -> tuple[list[Summary], str]:
        """The matches the caller hosts or sits in (the admin: all; a spectator: none), oldest first, from
        the catalog: no match is loaded. The page token is the catalog position of the last one listed."""
        if not token:
            return [], ""
        await self.catch_up_catalog()  # a match this or another process has just created is listed
        after = page.start(default=0)
        if self.access.is_admin(token):
            rows = await self._io(self.catalog.page, after, page.size + 1)
        else:
            digest = token_hash(token)
            key = self.access.identities.by_secret_digest(digest)
            if key is None:
                await self.refresh_identities()  # a host key another process has just created
                key = self.access.identities.by_secret_digest(digest)
            if key is not None:
                if key.revoked:
                    raise Unauthenticated(f"host key {key.key_id} was revoked: {key.revoked_reason}")
                rows = await self._io(self.catalog.page, after, page.size + 1, key.key_id)
            else:
                owner = await self._io(self.catalog.token_owner, digest)
                live = await self.load(owner) if owner is not None else None
                if live is None or digest not in live.tokens:
                    raise Unauthenticated("the token is not known to this server (or was replaced)")
                summary = await self._io(self.catalog.get, live.id)
                rows = [summary] if summary is not None and summary.seq > after else []
        chosen = rows[: page.size]
        more = len(rows) > page.size
        return chosen, page.next_token(chosen[-1].seq if chosen else after, more=more)

    async def unfinished_of(self, key_id: str) -> int:
        """Unfinished matches a host key created (its quota), from the catalog."""
        await self.catch_up_catalog()
        return await self._io(self.catalog.unfinished_of, key_id)

    async def due_matches(self) -> list[uuid.UUID]:
        """The matches whose current phase has ended by now (server clock), from the catalog."""
        return await self._io(self.catalog.due, self.clock.now())

    async def wait_for_change(
        self, match_id: uuid.UUID, after_version: int, timeout: float, until: asyncio.Future[Any] | None = None
    ) -> None:
        """Return once the match is past `after_version`, after `timeout` seconds, or once `until` is done.
        Every waiter of a match shares one future (server/fanout.py): no task or lock per waiter."""
        with self._changed.next_change(match_id) as changed:
            live = self._cache.get(match_id)
            if live is not None and live.version > after_version:
                return
            await first_of(changed, until, timeout)

    async def wait_for_stream(
        self, stream: uuid.UUID, is_past: Callable[[], bool], timeout: float, until: asyncio.Future[Any] | None = None
    ) -> None:
        """wait_for_change for a stream that is not a match (the arena): `is_past` says it moved on."""
        with self._changed.next_change(stream) as changed:
            if is_past():
                return
            await first_of(changed, until, timeout)


def _size_of(live: LiveMatch) -> int:
    return live.approx_bytes()


def _apply(live: LiveMatch, version: int, record: Record) -> None:
    """Apply a stored record; one that cannot be applied is an unreadable record at its version."""
    try:
        live.apply(record)
    except Exception as exc:  # a damaged row: its content is not echoed (it may hold hidden information)
        raise UnreadableRecord(live.id, version, f"it cannot be applied: {type(exc).__name__}") from exc


def _rebuild(match_id: uuid.UUID, records: list[Record]) -> LiveMatch:
    """LiveMatch.from_records, naming the version of the first record that cannot be applied."""
    try:
        header = records[0]  # under the rules version the match recorded
        live = LiveMatch(match_id, get_game(str(header["game"]), header.get("rules_version")))
    except Exception as exc:
        raise UnreadableRecord(match_id, 1, f"it names no known game: {type(exc).__name__}") from exc
    for version, record in enumerate(records, start=1):
        _apply(live, version, record)
    return live


def _refuse_bot_seats(live: LiveMatch) -> None:
    if live.header.get("bots"):
        raise FailedPrecondition("the seats of an arena match belong to its bots: they play with their bot keys")


def _check_expected(live: LiveMatch, expected_version: int | None) -> None:
    """A host action issued against a version the match has moved on from (e.g. a duplicate) is refused."""
    if expected_version is not None and expected_version != live.version:
        raise Aborted(f"the match moved on: it is at version {live.version}, not {expected_version}; nothing was done")


def game_records(events: Sequence[Event], why: Mapping[str, Any], at: float, start: bool = False) -> list[Record]:
    """A batch's game records: the cause on the first; `start` marks the game's start records."""
    records: list[Record] = []
    for index, event in enumerate(events):
        record: Record = {"kind": "game", "event": event, "at": at}
        if index == 0:
            record["cause"] = dict(why)
        if start:
            record["start"] = True
        records.append(record)
    return records
