"""The application, composed: the rooms a request goes through, wired once.

server/repository.py keeps the live matches; server/unit_of_work.py writes one; server/hostkeys.py keeps
the identities; server/application/ holds the commands, the queries, the callers and the platform the
rooms above are built on. An append publishes `Appended` on the bus: the catalog projection and the streams'
wake-ups subscribe here, the rooms above at their own wiring (server/app.py).
"""

from __future__ import annotations

import uuid

from server.access import Access, HostQuotas
from server.application.callers import Callers
from server.application.commands import MatchCommands
from server.application.disputes import DisputeRoom
from server.application.hosting import HostCommands
from server.application.platform import Platform
from server.application.queries import MatchQueries
from server.application.seat_views import SeatViews
from server.application.seats import SeatCommands
from server.bus import Appended, Bus, ServerStreamAppended
from server.clock import Clock
from server.fanout import Changes
from server.hostkeys import HostKeys
from server.identities import IDENTITIES_STREAM, is_server_stream
from server.limits import Limits
from server.live import LiveMatch
from server.projection import CatalogProjection
from server.records import ChainKey
from server.repository import LiveMatches
from server.requests import Secrets
from server.store import EventStore
from server.streams import StreamLimits, StreamRegistry
from server.unit_of_work import UnitOfWork
from server.writer import GroupWriter


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
        self.clock = clock
        self.admin_token = admin_token
        self.chain_key = chain_key
        self.ticks = 0  # deadline-ticker passes completed (server/ticker.py)
        self.streams = StreamRegistry(stream_limits)  # the open Subscribe streams, to end them on purpose
        self.access = Access(admin_token, quotas or HostQuotas())  # who calls (SECURITY.md)
        self.changes = Changes()  # wakes a match's streams (server/fanout.py)
        self.bus = Bus()  # what a write did, for whoever follows it (server/bus.py)
        self.writer = GroupWriter(store)
        self.repository = LiveMatches(
            store, self.writer, self.access, self.streams, self.changes, cache_bytes, refresh_every
        )
        self.projection = CatalogProjection(self.repository)
        secrets = Secrets(chain_key.secret)
        self.hostkeys = HostKeys(self.repository, self.access, self.streams, chain_key, secrets, clock)
        self.callers = Callers(self.repository, self.access, self.hostkeys, secrets)
        self.uow = UnitOfWork(self.repository, chain_key, self.bus, clock)
        self.queries = MatchQueries(
            self.repository, self.projection, self.callers, self.hostkeys, self.changes, clock, self.limits
        )
        self.commands = MatchCommands(
            self.repository, self.uow, self.callers, self.hostkeys, self.queries, secrets, self.limits
        )
        self.seats = SeatCommands(self.commands)
        self.seat_views = SeatViews(self.repository, self.callers, self.queries, clock)
        self.hosting = HostCommands(self.commands)
        self.disputes = DisputeRoom(self.commands)
        self.hostkeys.unfinished_of = self.queries.unfinished_of
        self.platform = Platform(
            self.repository, self.hostkeys, self.callers, self.queries, secrets, self.bus, clock, self.limits
        )
        self.bus.subscribe(Appended, lambda appended: self.projection.soon())
        # Resolves a future, never waits: the streams build after the write's reply.
        self.bus.subscribe(Appended, lambda appended: self.changes.notify(appended.live.id))

    @property
    def refresh_every(self) -> float | None:
        return self.repository.refresh_every

    async def start(self) -> None:
        """Load the identities and bring the catalog up to date; matches load on first use. A store an
        older release wrote (no catalog yet) is upgraded first: every match summarised, once."""
        await self.hostkeys.refresh()
        await self.projection.start()

    async def close(self) -> None:
        await self.projection.close()
        await self.writer.close()

    async def load(self, match_id: uuid.UUID) -> LiveMatch:
        return await self.repository.load(match_id)

    async def on_remote_append(self, stream: uuid.UUID, version: int) -> None:
        """Another node appended to `stream` up to `version` (server/notify.py)."""
        if stream == IDENTITIES_STREAM:
            await self.hostkeys.on_remote_append(version)
        elif is_server_stream(stream):
            await self.bus.deliver(ServerStreamAppended(stream, version))
        else:
            await self.repository.on_remote_append(stream, version)

    def on_notification_gap(self) -> None:
        self.repository.on_notification_gap()
