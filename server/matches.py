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
import secrets
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from cachetools import LRUCache

from engine import match as rules
from engine.contract import Event, Json, Status, Viewer
from engine.errors import GameError, InvalidConfig, MalformedCommand
from engine.registry import get_game
from server import audit
from server.clock import Clock
from server.errors import Aborted, BadRequest, NotFound, PermissionDenied, Unauthenticated
from server.live import LiveMatch, cause, effective_events
from server.records import Record, chain, token_hash
from server.store import EventStore, VersionConflict
from server.streams import StreamLimits, StreamRegistry
from server.writer import GroupWriter

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class Accepted:
    version: int
    records: list[tuple[int, Record]]  # (version, record as the caller may see it)
    status: Status


class Matches:
    def __init__(
        self,
        store: EventStore,
        clock: Clock,
        admin_token: str | None = None,
        cache_size: int = 1024,
        refresh_every: float | None = None,
        stream_limits: StreamLimits | None = None,
    ):
        # refresh_every: when other processes write to the same store, how stale a cached match may get
        # before a read catches up from the store (None: this process is the only writer).
        self.refresh_every = refresh_every
        self._fresh: dict[uuid.UUID, float] = {}
        self._log_position = 0
        self.store = store
        self.clock = clock
        self.admin_token = admin_token
        self._writer = GroupWriter(store)
        self._cache: LRUCache[uuid.UUID, LiveMatch] = LRUCache(maxsize=cache_size)
        self._locks: defaultdict[uuid.UUID, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._changed: defaultdict[uuid.UUID, asyncio.Condition] = defaultdict(asyncio.Condition)
        self._token_owner: dict[str, uuid.UUID] = {}
        self._known: list[uuid.UUID] = []
        self.streams = StreamRegistry(stream_limits)  # the open Subscribe streams, to end them on purpose

    # --- plumbing -------------------------------------------------------------------------------

    async def _io(self, fn: Callable[..., T], *args: Any) -> T:
        return await self._writer.call(fn, *args)

    async def start(self) -> None:
        """Load every match in the store (rebuilding state from events) and index their tokens."""
        await self.discover()

    async def discover(self) -> list[uuid.UUID]:
        """Find matches created since the last look (by this or another process) and load them."""
        found, self._log_position = await self._io(self.store.matches_since, self._log_position)
        new = [match_id for match_id in found if match_id not in self._known]
        self._known.extend(new)
        for match_id in new:
            await self.load(match_id)
        return new

    async def close(self) -> None:
        await self._writer.close()

    @staticmethod
    def parse_id(text: str) -> uuid.UUID:
        try:
            return uuid.UUID(text)
        except (ValueError, AttributeError, TypeError):
            raise BadRequest(f"match_id {text!r} is not a match id (a UUID)") from None

    async def load(self, match_id: uuid.UUID) -> LiveMatch:
        cached = self._cache.get(match_id)
        if cached is not None:
            if self.refresh_every is not None and time.monotonic() - self._fresh.get(match_id, 0) >= self.refresh_every:
                await self._catch_up(cached)
            return cached
        self._fresh[match_id] = time.monotonic()
        records = await self._io(self.store.read, match_id, 0)
        if not records:
            raise NotFound(f"no match {match_id}")
        raced = self._cache.get(match_id)
        if raced is not None:  # another coroutine loaded it while we read: one copy per match
            return raced
        live = LiveMatch.from_records(match_id, records)
        self._cache[match_id] = live
        for digest in live.tokens:
            self._token_owner[digest] = match_id
        return live

    async def _catch_up(self, live: LiveMatch) -> None:
        """Apply what other processes appended since this copy was read."""
        self._fresh[live.id] = time.monotonic()
        after = live.version
        newer = await self._io(self.store.read, live.id, after)
        applied = False
        for version, record in enumerate(newer, start=after + 1):
            if live.version < version:  # idempotent by version: our own append may have applied it already
                live.apply(record)
                applied = True
                if record["kind"] == "joined":
                    self._token_owner[record["token"]] = live.id
        if applied:
            condition = self._changed[live.id]
            async with condition:
                condition.notify_all()

    async def _append(self, live: LiveMatch, records: Sequence[Record]) -> list[tuple[int, Record]]:
        stamped = chain(live.last_hash, records)
        try:
            await self._writer.append(live.id, live.version, stamped)
        except VersionConflict:
            self._cache.pop(live.id, None)  # another process wrote first: reload on next use
            raise Aborted("another writer changed this match first; nothing was written, reload and retry") from None
        first = live.version + 1
        for version, record in enumerate(stamped, start=first):
            if live.version < version:  # a catch-up from the store may have applied it already
                live.apply(record)
        condition = self._changed[live.id]
        async with condition:
            condition.notify_all()
        return [(first + offset, record) for offset, record in enumerate(stamped)]

    def now(self, live: LiveMatch) -> float:
        return live.clock_at(self.clock.now())

    def viewer_for(self, live: LiveMatch, token: str | None) -> Viewer:
        if not token:
            return Viewer.spectator()
        if self.admin_token and hmac.compare_digest(token, self.admin_token):
            return Viewer.host()
        digest = token_hash(token)
        if digest in live.tokens:
            role, player = live.tokens[digest]
            return Viewer.host() if role == "host" else Viewer.of(player or "")
        owner = self._token_owner.get(digest)
        if owner == live.id:
            raise Unauthenticated("this token was replaced by a newer one for the same seat")
        if owner is not None:
            raise PermissionDenied("this token belongs to another match")
        raise Unauthenticated("the token is not known to this server")

    def require_host(self, live: LiveMatch, token: str | None) -> Viewer:
        if not token:
            raise Unauthenticated("this needs the host's token (authorization metadata)")
        viewer = self.viewer_for(live, token)
        if not viewer.is_host:
            raise PermissionDenied("only the host of this match may do that")
        return viewer

    def _visible(self, live: LiveMatch, viewer: Viewer, written: list[tuple[int, Record]]) -> list[tuple[int, Record]]:
        return [(version, live.visible_record(version, viewer)) for version, _ in written]

    # --- commands -------------------------------------------------------------------------------

    async def create(
        self, game_name: str, players: Sequence[str], seed: int | None, overrides_json: str
    ) -> tuple[LiveMatch, str]:
        game = get_game(game_name)
        players = [player.strip() for player in players]
        if not players or any(not player for player in players) or len(set(players)) != len(players):
            raise InvalidConfig("players must be distinct, non-empty names")
        overrides = _json_object(overrides_json, "config_json")
        config = game.default_config(players)
        config.update(overrides)
        config["players"] = list(players)
        seed = secrets.randbelow(2**53) if seed is None else seed
        host_token = secrets.token_urlsafe(24)
        live = LiveMatch(uuid.uuid4(), game)
        now = self.clock.now()
        created = {
            "kind": "created",
            "game": game.name,
            "players": list(players),
            "config": config,
            "seed": seed,
            "rules_version": game.rules_version,
            "host_token": token_hash(host_token),
            "at": now,
        }
        live.apply(created)  # validates the configuration before anything is written
        start_events = self._decide(lambda: game.start(live.state, rules.context(seed, live.game_version, now)))
        records = [created] + _game_records(start_events, cause("server", start=True), now, start=True)
        live = LiveMatch(live.id, game)
        await self._append(live, records)
        self._cache[live.id] = live
        self._known.append(live.id)
        self._token_owner[token_hash(host_token)] = live.id
        return live, host_token

    async def join(self, match_id: uuid.UUID, player: str, token: str | None) -> tuple[str, int]:
        async with self._locks[match_id]:
            live = await self.load(match_id)
            if player not in live.players:
                raise InvalidConfig(f"{player!r} is not a seat of this match; seats: {', '.join(live.players)}")
            claimed = any(role == "player" and name == player for role, name in live.tokens.values())
            if claimed and not (token and self.viewer_for(live, token).is_host):
                raise PermissionDenied(f"{player}'s seat is taken; the host can issue a new token")
            new_token = secrets.token_urlsafe(24)
            digest = token_hash(new_token)
            joined = {"kind": "joined", "player": player, "token": digest, "at": self.now(live)}
            await self._append(live, [joined])
            self._token_owner[digest] = match_id
            return new_token, live.version

    async def submit(
        self,
        match_id: uuid.UUID,
        token: str | None,
        as_player: str,
        text: str | None,
        command: Any,
        expected_version: int | None,
    ) -> Accepted:
        if not token:
            raise Unauthenticated("submitting needs a player's token (authorization metadata)")
        async with self._locks[match_id]:
            live = await self.load(match_id)
            viewer = self.viewer_for(live, token)
            if viewer.kind != "player" or viewer.player is None:
                raise PermissionDenied("only a player submits commands; use that player's token")
            player = viewer.player
            if as_player and as_player != player:
                raise PermissionDenied(f"this token is {player}'s; a player can act only as themself")
            if expected_version is not None and expected_version != live.version:
                raise Aborted(f"stale version: the match is at version {live.version}, not {expected_version}")
            if live.paused_at is not None:
                raise GameError("the match is paused by the host; submissions wait until it resumes")
            now = self.now(live)
            await self._expire_due(live, now)
            game, state = live.game, live.state
            if text is not None:
                command = self._decide(lambda: game.parse(state, player, text))
            events = self._decide(
                lambda: rules.submit(game, state, player, command, rules.context(live.seed, live.game_version, now))
            )
            written = await self._append(live, _game_records(events, cause(player, command, text), now))
            return Accepted(live.version, self._visible(live, viewer, written), live.status())

    async def force_phase_end(self, match_id: uuid.UUID, token: str | None, reason: str) -> Accepted:
        async with self._locks[match_id]:
            live = await self.load(match_id)
            viewer = self.require_host(live, token)
            if live.status().finished:
                raise GameError("the match is over")
            now = self.now(live)
            written = await self._timeout(live, now, cause("host", timeout=True, forced=True, reason=reason))
            return Accepted(live.version, self._visible(live, viewer, written), live.status())

    async def expire_due(self, match_id: uuid.UUID) -> int:
        """Apply every deadline that has passed (the ticker calls this); returns records written."""
        async with self._locks[match_id]:
            live = await self.load(match_id)
            if live.paused_at is not None:
                return 0
            return await self._expire_due(live, self.now(live))

    async def _expire_due(self, live: LiveMatch, now: float) -> int:
        written = 0
        while rules.is_due(live.game, live.state, now):
            deadline = live.status().deadline
            assert deadline is not None
            written += len(await self._timeout(live, deadline, cause("clock", timeout=True)))
        return written

    async def _timeout(self, live: LiveMatch, at: float, why: dict[str, Any]) -> list[tuple[int, Record]]:
        game, state = live.game, live.state
        events = game.timeout(state, rules.context(live.seed, live.game_version, at))
        if not events:
            raise GameError(f"nothing to end in {live.status().phase}")
        return await self._append(live, _game_records(events, why, at))

    async def rollback(self, match_id: uuid.UUID, token: str | None, to: int, reason: str) -> Accepted:
        async with self._locks[match_id]:
            live = await self.load(match_id)
            viewer = self.require_host(live, token)
            if not reason.strip():
                raise BadRequest("a rollback needs a reason")
            if not live.started_version <= to < live.version:
                raise BadRequest(
                    f"roll back to a version from {live.started_version} (the match's start) to {live.version - 1}"
                )
            by = "admin" if self.admin_token and token == self.admin_token else "host"
            # The match clock goes back to the time of version `to`: its deadlines and clocks are restored.
            clock_to = float(live.records[to - 1]["at"])
            record = {"kind": "rollback", "to": to, "reason": reason, "by": by, "at": self.now(live)}
            record.update(clock_to=clock_to, offset=self.clock.now() - clock_to)
            written = await self._append(live, [record])
            return Accepted(live.version, self._visible(live, viewer, written), live.status())

    async def host_action(
        self, match_id: uuid.UUID, token: str | None, action: str, reason: str, seconds: float = 0.0
    ) -> Accepted:
        """Pause, resume or extend: an audited host record that moves the match clock."""
        async with self._locks[match_id]:
            live = await self.load(match_id)
            viewer = self.require_host(live, token)
            if live.status().finished and action != "settle":
                raise GameError("the match is over")
            server_now = self.clock.now()
            by = "admin" if self.admin_token and token == self.admin_token else "host"
            record: Record = {"kind": "host", "action": action, "by": by, "reason": reason, "at": self.now(live)}
            if action == "pause":
                if live.paused_at is not None:
                    raise GameError("the match is already paused")
            elif action == "resume":
                if live.paused_at is None:
                    raise GameError("the match is not paused")
                record["offset"] = server_now - live.paused_at  # the clock goes on from where it stopped
            elif action == "settle":  # the host's decision where the rules leave it to them (e.g. MN-5 ties)
                if not reason.strip():
                    raise BadRequest("settle needs the decision, as the reason")
            elif action == "extend":
                if seconds <= 0:
                    raise BadRequest("extend the deadline by a positive number of seconds")
                record["seconds"] = seconds
                record["offset"] = live.clock_offset + seconds  # the match clock is held back
            else:
                raise BadRequest(f"unknown host action {action!r}")
            written = await self._append(live, [record])
            return Accepted(live.version, self._visible(live, viewer, written), live.status())

    async def fork(self, match_id: uuid.UUID, token: str | None, at: int, reason: str = "") -> tuple[LiveMatch, str]:
        source = await self.load(match_id)
        viewer = self.require_host(source, token)
        if not source.started_version <= at <= source.version:
            raise BadRequest(f"fork at a version from {source.started_version} to {source.version}")
        header = source.header
        host_token = secrets.token_urlsafe(24)
        now = float(source.records[at - 1]["at"])  # the fork's clock starts where the origin stood
        created = {key: header[key] for key in ("game", "players", "config", "seed", "rules_version")}
        created.update(kind="created", host_token=token_hash(host_token), at=now, offset=self.clock.now() - now)
        created["origin"] = {"match_id": str(source.id), "version": at}
        why = cause("fork", origin=str(source.id), version=at)
        records = [created] + _game_records(effective_events(source.records, at), why, now, start=True)
        live = LiveMatch(uuid.uuid4(), source.game)
        await self._append(live, records)
        self._cache[live.id] = live
        self._known.append(live.id)
        self._token_owner[token_hash(host_token)] = live.id
        async with self._locks[match_id]:  # the origin's own log says who forked it, where and why
            source = await self.load(match_id)
            by = "admin" if self.admin_token and token == self.admin_token else viewer.kind
            note: Record = {"kind": "host", "action": "fork", "by": by, "reason": reason, "fork": str(live.id)}
            note.update(at_version=at, at=self.now(source))
            await self._append(source, [note])
        return live, host_token

    async def verify(self, match_id: uuid.UUID, token: str | None) -> dict[str, Any]:
        """Re-run every recorded decision through the current engine and check the hash chain."""
        live = await self.load(match_id)
        self.require_host(live, token)
        records = await self._io(self.store.read, match_id, 0)  # the store itself, not the cache
        return audit.verify(match_id, records, live.game.rules_version)

    async def audit(self, match_id: uuid.UUID, token: str | None, at: int | None) -> list[dict[str, Any]]:
        live = await self.load(match_id)
        viewer = self.viewer_for(live, token)
        upto = live.version if at is None else at
        if not 1 <= upto <= live.version:
            raise BadRequest(f"version {upto} is outside this match's versions 1..{live.version}")
        return audit.trail(live, viewer, upto)

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
        viewer = self.viewer_for(live, token)
        version = live.version if at is None else at
        if not 1 <= version <= live.version:
            raise BadRequest(f"version {version} is outside this match's versions 1..{live.version}")
        return live, viewer, version

    def view(self, live: LiveMatch, viewer: Viewer, version: int) -> dict[str, Json]:
        return live.game.view(live.states[version], viewer)

    async def history(self, match_id: uuid.UUID, token: str | None) -> tuple[LiveMatch, list[tuple[int, Record, bool]]]:
        live = await self.load(match_id)
        viewer = self.viewer_for(live, token)
        retracted = live.retracted()
        return live, [
            (version, live.visible_record(version, viewer), version in retracted)
            for version in range(1, live.version + 1)
        ]

    async def list_matches(self) -> list[LiveMatch]:
        return [await self.load(match_id) for match_id in list(self._known)]

    def known(self) -> list[uuid.UUID]:
        return list(self._known)

    async def wait_for_change(self, match_id: uuid.UUID, after_version: int, timeout: float) -> None:
        condition = self._changed[match_id]
        async with condition:
            live = self._cache.get(match_id)
            if live is not None and live.version > after_version:
                return
            try:
                await asyncio.wait_for(condition.wait(), timeout)
            except TimeoutError:
                pass


def _game_records(events: Sequence[Event], why: Mapping[str, Any], at: float, start: bool = False) -> list[Record]:
    records: list[Record] = []
    for index, event in enumerate(events):
        record: Record = {"kind": "game", "event": event, "at": at}
        if index == 0:
            record["cause"] = dict(why)
        if start:
            record["start"] = True
        records.append(record)
    return records


def _json_object(text: str, name: str) -> dict[str, Json]:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadRequest(f"{name} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise BadRequest(f"{name} must be a JSON object")
    return value
