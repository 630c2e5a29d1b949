"""Build and start the gRPC server: our service, health checking, reflection, and the ticker."""

from __future__ import annotations

import asyncio
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from matchserver.v1 import matchserver_pb2 as pb
from server import chainkey, ticker
from server.api import MatchService, service_handler
from server.clock import Clock
from server.limits import Limits
from server.matches import HostQuotas, Matches
from server.startup import (
    EXCLUSIVE_PORT_OPTIONS,
    bind,
    refuse_plaintext_in_public,
    secure_var_dir,
    server_credentials,
    tighten_sqlite_files,
)
from server.store import EventStore

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["MatchService"].full_name


@dataclass
class Settings:
    address: str = "127.0.0.1:50051"
    var_dir: str = "var"
    store: str = ""  # default: sqlite:<var_dir>/matches.db
    time_scale: float = 1.0
    tick_interval: float = 0.25
    # How stale a cached match may be when other processes share the store (PostgreSQL): reads catch
    # up from the store at most this often. None with SQLite or memory: one process owns the store.
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

    def store_url(self) -> str:
        return self.store or f"sqlite:{os.path.join(self.var_dir, 'matches.db')}"


def admin_token(var_dir: str) -> str:
    """The server-wide admin token: created on first start, kept under var/ (readable by its owner)."""
    path = Path(var_dir) / "admin.token"
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    path.write_text(token + "\n")
    path.chmod(0o600)
    return token


async def cancelled_quietly(task: asyncio.Task[Any]) -> None:
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass


@dataclass
class Running:
    server: grpc.aio.Server
    port: int
    matches: Matches
    store: EventStore
    ticker: asyncio.Task[None]

    async def stop(self, grace: float | None = 0.5) -> None:
        await cancelled_quietly(self.ticker)
        await self.server.stop(grace)
        await self.matches.close()
        self.store.close()


async def start_server(settings: Settings) -> Running:
    """Start serving; returns the bound port (ask for port 0 in tests). Raises server.startup.StartupError
    when the settings cannot work or the address is taken, before the store is opened."""
    credentials = server_credentials(settings.tls_cert, settings.tls_key)
    refuse_plaintext_in_public(settings.address, credentials is not None, settings.insecure_public)
    secure_var_dir(settings.var_dir)
    server = grpc.aio.server(options=EXCLUSIVE_PORT_OPTIONS)
    port = bind(server, settings.address, credentials)
    tighten_sqlite_files(settings.store_url())  # before opening: a store written by an older release
    key = chainkey.for_store(settings.store_url(), settings.var_dir, settings.chain_key_file)
    store = EventStore(settings.store_url())
    tighten_sqlite_files(settings.store_url())  # after: -wal and -shm appear when it opens
    shared = settings.store_url().startswith("postgres:")
    refresh = settings.refresh_every if settings.refresh_every is not None else (0.5 if shared else None)
    clock = settings.clock or Clock(settings.time_scale)
    matches = Matches(
        store,
        clock,
        admin_token(settings.var_dir),
        refresh_every=refresh,
        quotas=settings.quotas,
        limits=settings.limits,
        chain_key=key,
    )
    await matches.start()
    server.add_generic_rpc_handlers((service_handler(MatchService(matches)),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    task = asyncio.create_task(ticker.run(matches, settings.tick_interval))
    return Running(server, port, matches, store, task)
