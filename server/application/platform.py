"""What the platform offers a room built on it (the arena): server/arena/platform.py names it as a
Protocol; this is the implementation, over the application's rooms. Store conflicts cross it as the
platform's own `Conflict`."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine import match as rules
from engine.contract import Json, Viewer
from engine.registry import get_game
from server.access import Access
from server.application.callers import Callers
from server.application.queries import MatchQueries
from server.bus import Appended, Bus
from server.clock import Clock
from server.envelope import cause, created_record, game_records
from server.errors import Conflict, engine_step
from server.hostkeys import HostKeys
from server.identities import MATCH_TERMS, SEAT_HOLDERS
from server.limits import Limits, check_seat_names, match_config
from server.live import LiveMatch
from server.policy import MatchPolicy
from server.records import ChainedLog, Record, chain, token_hash
from server.repository import LiveMatches
from server.requests import RequestTag, Secrets
from server.store import VersionConflict
from server.streams import StreamRegistry


class Platform:
    def __init__(
        self,
        matches: LiveMatches,
        hostkeys: HostKeys,
        callers: Callers,
        queries: MatchQueries,
        secrets: Secrets,
        bus: Bus,
        clock: Clock,
        limits: Limits,
    ) -> None:
        self._matches = matches
        self._hostkeys = hostkeys
        self._callers = callers
        self._queries = queries
        self._secrets = secrets
        self.bus = bus
        self.clock = clock
        self.limits = limits
        self.access: Access = callers.access
        self.streams: StreamRegistry = matches.streams
        self.refresh_every = matches.refresh_every

    def register_policy(self, policy: MatchPolicy) -> None:
        """Rules for the matches a room makes (server/policy.py), asked before the core's own."""
        self.access.policies.append(policy)

    # --- matches ------------------------------------------------------------------------------------

    async def load(self, match_id: uuid.UUID) -> LiveMatch:
        return await self._matches.load(match_id)

    async def viewer_for(self, live: LiveMatch, token: str | None) -> Viewer:
        return await self._callers.viewer_for(live, token)

    def prepare_match(
        self, game_name: str, seats: Mapping[str, str], overrides: Mapping[str, Json], organiser: str, terms: Record
    ) -> tuple[LiveMatch, list[Record]]:
        """A match whose seats identities hold: its first records, checked but not written (the arena writes
        them in one transaction with its own records). `seats`: seat -> bot. The seed is drawn here and
        recorded; the host token is never handed out (such a match is corrected by its organiser)."""
        game = get_game(game_name)
        players = list(seats)
        check_seat_names(players, self.limits)
        config = match_config(game, players, overrides, self.limits)
        seed = secrets.randbelow(2**53)
        live = LiveMatch(uuid.uuid4(), game)
        now = self.clock.now()
        extra: dict[str, Json] = {SEAT_HOLDERS: dict(seats), MATCH_TERMS: dict(terms)}
        created = created_record(
            game,
            players,
            config,
            seed,
            host_token=token_hash(secrets.token_urlsafe(24)),
            invitations={},
            host_key=None if organiser == "admin" else organiser,
            private=False,
            at=now,
            **extra,
        )
        live.apply(created)  # validates the configuration before anything is written
        start_events = engine_step(lambda: game.start(live.state, rules.context(seed, live.game_version, now)))
        records = [created, *game_records(start_events, cause("server", start=True), now, start=True)]
        return LiveMatch(live.id, game), records

    async def write_together(
        self, writes: Sequence[tuple[uuid.UUID, int, str, Sequence[Record]]]
    ) -> list[list[Record]]:
        """Append to several streams in one transaction: (stream, after version, its last hash, records).
        All land or none (Conflict: another node wrote to one of them first). Returns each batch as
        stamped into its stream's hash chain."""
        key = self._hostkeys.chain_key
        stamped = [chain(last_hash, records, key) for _, _, last_hash, records in writes]
        batches = [(stream, after, batch) for (stream, after, _, _), batch in zip(writes, stamped, strict=True)]
        try:
            await self._matches.io(self._matches.store.append_many, batches)
        except VersionConflict:
            raise Conflict("another node wrote to one of these streams first") from None
        return stamped

    def adopt(self, live: LiveMatch, stamped: Sequence[Record]) -> None:
        """A new match written by write_together: kept live, catalogued, its streams woken."""
        if self._matches.cached(live.id) is not None:  # a reader loaded it from the store first: it stays
            self._queries.projection.soon()
            return
        for record in stamped:
            live.apply(record)
        self._matches.remember(live)
        self.access.index(live)
        self.bus.publish(Appended(live))

    async def finished_among(self, match_ids: Sequence[uuid.UUID]) -> set[uuid.UUID]:
        """Which of these matches the catalog says are over (no match read)."""
        return await self._matches.io(self._matches.catalog.finished_among, list(match_ids))

    async def unfinished_of(self, key_id: str) -> int:
        return await self._queries.unfinished_of(key_id)

    # --- the server's own streams -------------------------------------------------------------------

    async def read_stream(self, stream: uuid.UUID, after: int) -> list[Record]:
        """The records of one of the server's own streams after a version (the arena, a tournament)."""
        return await self._matches.io(self._matches.store.read, stream, after)

    def checked(self, stream: ChainedLog, record: Record) -> bool:
        return self._hostkeys.checked(stream, record)

    @property
    def chain_keys(self) -> dict[str, bytes]:
        return self._hostkeys.chain_keys

    def notify(self, stream: uuid.UUID) -> None:
        """Wake whoever waits on a stream (the arena's BotEvents wait on the arena stream)."""
        self._matches.changes.notify(stream)

    async def wait_for_stream(
        self, stream: uuid.UUID, is_past: Callable[[], bool], timeout: float, until: asyncio.Future[Any] | None = None
    ) -> None:
        await self._queries.wait_for_stream(stream, is_past, timeout, until)

    # --- identities ---------------------------------------------------------------------------------

    async def refresh_identities(self) -> None:
        await self._hostkeys.refresh()

    async def append_identity(self, record: Record) -> None:
        await self._hostkeys.append(record)

    def new_secret(self, tag: RequestTag | None, scope: str, purpose: str, *parts: str) -> str:
        return self._secrets.new(tag, scope, purpose, *parts)

    def end_credential(self, digest: str, why: str) -> None:
        self._hostkeys.credentials_replaced([digest], why)
