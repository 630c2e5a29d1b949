"""Build and start the gRPC server: our service, health checking, reflection, and the ticker."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from server import chainkey, ticker
from server.access import HostQuotas
from server.arena.front import ArenaFront
from server.arena.pages import TournamentPages
from server.arena.service import Arena
from server.arena.settings import ArenaSettings
from server.clock import Clock
from server.grpc.arena_service import ARENA_SERVICE_NAME, ArenaService, serve_arena
from server.grpc.match_service import SERVICE_NAME, MatchService, serve_matches
from server.grpc.plumbing import UnaryCalls
from server.grpc.reflection import enable_reflection
from server.limits import Limits
from server.matches import Matches
from server.notify import AppendListener, ListenerSettings, listener_for
from server.startup import (
    EXCLUSIVE_PORT_OPTIONS,
    bind,
    listen_host,
    refuse_plaintext_in_public,
    secure_var_dir,
    server_credentials,
    tighten_sqlite_files,
)
from server.store import EventStore
from server.streams import StreamLimits
from server.web.console import HostConsole
from server.web.console_disputes import DisputeConsole
from server.web.front import FrontDoor
from server.web.live import MatchPages
from server.web.seat import SeatPages
from server.web.site import Site, tls_context

log = logging.getLogger(__name__)

# The keepalive interval of our own client (clients/client.py KEEPALIVE_TIME_MS): the server must
# permit pings this often, or it answers them with a too_many_pings GOAWAY.
CLIENT_KEEPALIVE_MS = 60_000
# On a shared (PostgreSQL) store other nodes' appends arrive by notification; a cached match also catches
# up from the store when older than this, in case a notification was missed (Settings.refresh_every).
SAFETY_REFRESH = 5.0
LISTENER_START_WAIT = 10.0  # seconds a starting node waits to be listening before it goes on without


@dataclass(frozen=True)
class ConnectionLimits:
    """gRPC server options: how many calls a connection carries, how long it lives, keepalive."""

    max_concurrent_streams: int = 100  # calls at once on one connection
    max_connection_idle_ms: int = 15 * 60_000
    max_connection_age_ms: int = 60 * 60_000  # then GOAWAY: the client reconnects (spreads load)
    max_connection_age_grace_ms: int = 5 * 60_000  # calls still open then are cut
    keepalive_time_ms: int = 5 * 60_000  # the server pings an idle client this often...
    keepalive_timeout_ms: int = 20_000  # ...and drops it without an answer within this
    # Client pings: allowed without calls, and as often as our client sends them (half its interval).
    keepalive_permit_without_calls: bool = True
    # gRPC core's name (the C macro says RECV; the string does not): under another name it is ignored.
    min_ping_interval_without_data_ms: int = CLIENT_KEEPALIVE_MS // 2
    max_ping_strikes: int = 2

    def options(self) -> list[tuple[str, int]]:
        return [
            ("grpc.max_concurrent_streams", self.max_concurrent_streams),
            ("grpc.max_connection_idle_ms", self.max_connection_idle_ms),
            ("grpc.max_connection_age_ms", self.max_connection_age_ms),
            ("grpc.max_connection_age_grace_ms", self.max_connection_age_grace_ms),
            ("grpc.keepalive_time_ms", self.keepalive_time_ms),
            ("grpc.keepalive_timeout_ms", self.keepalive_timeout_ms),
            ("grpc.keepalive_permit_without_calls", int(self.keepalive_permit_without_calls)),
            ("grpc.http2.min_ping_interval_without_data_ms", self.min_ping_interval_without_data_ms),
            ("grpc.http2.max_ping_strikes", self.max_ping_strikes),
        ]


@dataclass
class Settings:
    address: str = "127.0.0.1:50051"
    var_dir: str = "var"
    store: str = ""  # default: sqlite:<var_dir>/matches.db
    time_scale: float = 1.0
    tick_interval: float = 0.25
    # How stale a cached match may be when other processes share the store (PostgreSQL): reads catch
    # up from the store at most this often. None with SQLite or memory: one process owns the store.
    # Other nodes' appends arrive by notification (server/notify.py); this is the safety net.
    refresh_every: float | None = None
    clock: Clock | None = field(default=None, repr=False)
    quotas: HostQuotas = field(default_factory=HostQuotas)
    limits: Limits = field(default_factory=Limits)  # size and value limits on requests (server/limits.py)
    # The chain key file; required with PostgreSQL (every node the same), else VAR/chain.key is made.
    chain_key_file: str = ""
    # TLS: PEM files of the server's certificate chain and its private key (both or neither).
    tls_cert: str = ""
    tls_key: str = ""
    # Serve plaintext on a non-loopback address anyway (e.g. behind a proxy that terminates TLS).
    insecure_public: bool = False
    streams: StreamLimits = field(default_factory=StreamLimits)
    connections: ConnectionLimits = field(default_factory=ConnectionLimits)
    # On SIGTERM/SIGINT: how long calls in flight may take to finish before they are cancelled.
    shutdown_grace: float = 10.0
    # Memory for live matches (their estimated size): the least recently used are evicted, read on next use.
    cache_mb: float = 512.0
    # HOST:PORT of the live page for spectators (server/web/); "" serves none. Same bind rule and TLS as gRPC.
    http_address: str = ""
    # The pages' address as players reach it (invitation links), e.g. https://games.example.org; "" derives it
    # from http_address (a wildcard host becomes this machine's name).
    page_url: str = ""
    # The bot arena's settings: challenge expiry, open challenges per bot (server/arena/service.py).
    arena: ArenaSettings = field(default_factory=ArenaSettings)
    # How the PostgreSQL listener pings and reconnects (server/notify.py).
    listener: ListenerSettings = field(default_factory=ListenerSettings)

    def store_url(self) -> str:
        return self.store or f"sqlite:{os.path.join(self.var_dir, 'matches.db')}"


def admin_token(var_dir: str) -> str:
    """The server-wide admin token: created on first start, kept under var/ (readable by its owner)."""
    path = Path(var_dir) / "admin.token"
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    token = "msa_" + secrets.token_urlsafe(32)  # the prefix keeps it from starting with "-" (a CLI flag)
    path.write_text(token + "\n")
    path.chmod(0o600)
    return token


async def cancelled_quietly(task: asyncio.Task[Any]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


@dataclass
class Running:
    server: grpc.aio.Server
    port: int
    matches: Matches
    store: EventStore
    ticker: asyncio.Task[None]
    calls: UnaryCalls = field(default_factory=UnaryCalls)
    listener: AppendListener | None = None  # other nodes' appends (PostgreSQL only)
    http: Site | None = None  # the live page (--http)
    http_port: int = 0
    page_url: str = ""  # the pages' address, as invitation links name it
    arena: Arena | None = None  # bot accounts, challenges, tournaments (server/arena/)

    async def stop(self, grace: float | None = 0.5, reason: str = "stopped") -> None:
        """Refuse new calls, end every stream with the resume trailer, let unary calls in flight finish
        within `grace` seconds (then cancel them), stop the ticker, write what is queued, close the store."""
        in_flight = self.calls.in_flight
        stopping = asyncio.ensure_future(self.server.stop(grace))
        await asyncio.sleep(0)  # the server stops accepting calls before the streams are told to end
        streams = self.matches.streams.end_all(reason)
        if self.http is not None:
            await self.http.stop()
        await stopping
        await cancelled_quietly(self.ticker)
        if self.arena is not None:
            await self.arena.close()
        if self.listener is not None:
            await self.listener.stop()
        await self.matches.close()  # drains the group writer: every acknowledged append is written
        self.store.close()
        log.info(
            "stopped (%s): %d streams ended with a resume trailer; %d unary calls were in flight, "
            "%d of them cut after the %s s grace",
            reason,
            streams,
            in_flight,
            self.calls.cancelled,
            grace,
        )


def page_url(settings: Settings, port: int) -> str:
    if settings.page_url:
        return settings.page_url.rstrip("/")
    host = listen_host(settings.http_address)
    if host in ("", "0.0.0.0", "::"):
        host = socket.getfqdn()
    if ":" in host:
        host = f"[{host}]"
    return f"{'https' if settings.tls_cert else 'http'}://{host}:{port}"


async def start_server(settings: Settings) -> Running:
    """Start serving; returns the bound port (ask for port 0 in tests). Raises server.errors.StartupRefused
    when the settings cannot work or the address is taken, before the store is opened."""
    credentials = server_credentials(settings.tls_cert, settings.tls_key)
    refuse_plaintext_in_public(settings.address, credentials is not None, settings.insecure_public)
    if settings.http_address:
        refuse_plaintext_in_public(settings.http_address, credentials is not None, settings.insecure_public)
    secure_var_dir(settings.var_dir)
    calls = UnaryCalls()
    server = grpc.aio.server(options=[*EXCLUSIVE_PORT_OPTIONS, *settings.connections.options()])
    port = bind(server, settings.address, credentials)
    tighten_sqlite_files(settings.store_url())  # before opening: a store written by an older release
    key = chainkey.for_store(settings.store_url(), settings.var_dir, settings.chain_key_file)
    store = EventStore(settings.store_url())
    tighten_sqlite_files(settings.store_url())  # after: -wal and -shm appear when it opens
    shared = settings.store_url().startswith("postgres:")
    refresh = settings.refresh_every if settings.refresh_every is not None else (SAFETY_REFRESH if shared else None)
    clock = settings.clock or Clock(settings.time_scale)
    matches = Matches(
        store,
        clock,
        admin_token(settings.var_dir),
        refresh_every=refresh,
        cache_bytes=int(settings.cache_mb * 2**20),
        quotas=settings.quotas,
        limits=settings.limits,
        stream_limits=settings.streams,
        chain_key=key,
    )
    listener = listener_for(
        store.url, store.node_id, matches.on_remote_append, matches.on_notification_gap, settings.listener
    )
    if listener is not None:  # listening before anything is read: no append falls between the two
        await listener.start(wait=LISTENER_START_WAIT)
    await matches.start()
    arena = Arena(matches.platform, settings.arena)
    await arena.start()
    service = MatchService(matches, calls)
    serve_matches(service, server)
    serve_arena(ArenaService(arena, calls), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    enable_reflection((SERVICE_NAME, ARENA_SERVICE_NAME, health.SERVICE_NAME), server)
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    task = asyncio.create_task(ticker.run(matches, settings.tick_interval, [arena.tick]))
    running = Running(server, port, matches, store, task, calls, listener, arena=arena)
    if settings.http_address:
        running.http = Site(settings.streams)
        MatchPages(matches, running.http)
        SeatPages(matches, running.http)
        HostConsole(matches, running.http)
        DisputeConsole(matches, running.http)
        TournamentPages(arena, running.http)
        ArenaFront(arena, FrontDoor(matches, running.http))
        try:
            tls = tls_context(settings.tls_cert, settings.tls_key)
            running.http_port = await running.http.start(settings.http_address, tls)
            running.page_url = service.page_url = page_url(settings, running.http_port)
        except BaseException:
            await running.stop(grace=None)
            raise
    return running
