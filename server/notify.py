"""Cross-node delivery on PostgreSQL: LISTEN for the appends other nodes make to the shared store.

Every append on PostgreSQL sends `pg_notify(channel, "<stream> <version> <node>")` in its own transaction
(server/store.py NotifyingRecorder), so a notification arrives exactly when an append commits. Each node
listens on one connection of its own, read on the server's event loop (psycopg's async connection), and
hands each notification to `on_append(stream, version)`: a cached match catches up and wakes its streams.

Notifications reach a listener only while it is connected, so after a dropped connection the listener
reconnects and calls `on_gap()`: what was appended in between was not heard, and every cached copy must
be checked before it is trusted. The timed refresh (Settings.refresh_every) stays as a safety net.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import psycopg
from psycopg import sql

from server.store import appends_channel, store_env

log = logging.getLogger(__name__)

OnAppend = Callable[[uuid.UUID, int], Awaitable[None]]


def parse_payload(payload: str) -> tuple[uuid.UUID, int, str] | None:
    """(stream, version, sending node) of a notification; None for anything else on the channel."""
    parts = payload.split()
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    try:
        return uuid.UUID(parts[0]), int(parts[1]), parts[2]
    except ValueError:
        return None


@dataclass(frozen=True)
class ListenerSettings:
    """How the PostgreSQL listener checks and re-makes its connection (named settings, so tests set them short)."""

    ping_every: float = 10.0  # seconds without a notification before the connection is checked
    retry_first: float = 0.2  # the first reconnection's wait, seconds; doubled after each failure...
    retry_most: float = 5.0  # ...up to this


def listener_for(
    url: str,
    node_id: str,
    on_append: OnAppend,
    on_gap: Callable[[], None],
    settings: ListenerSettings | None = None,
) -> AppendListener | None:
    """A listener for a PostgreSQL store URL (None for SQLite or memory: one process owns those)."""
    if not url.startswith("postgres:"):
        return None
    env = store_env(url)
    conninfo = psycopg.conninfo.make_conninfo(
        host=env["POSTGRES_HOST"],
        port=env["POSTGRES_PORT"],
        dbname=env["POSTGRES_DBNAME"],
        user=env["POSTGRES_USER"],
        password=env["POSTGRES_PASSWORD"],
        connect_timeout=env["POSTGRES_CONNECT_TIMEOUT"],
        application_name="matchserver-listener",
        # A peer that vanishes without closing the socket is found by keepalives and by our own pings.
        keepalives=1,
        keepalives_idle=10,
        keepalives_interval=5,
        keepalives_count=3,
    )
    channel = appends_channel(env.get("POSTGRES_SCHEMA", ""))
    return AppendListener(conninfo, channel, node_id, on_append, on_gap, settings or ListenerSettings())


class Coalescer:
    """Runs `on_append` at most once at a time per stream, with the highest version announced meanwhile:
    a burst of appends to one match costs one catch-up, not one per notification."""

    def __init__(self, on_append: OnAppend) -> None:
        self.on_append = on_append
        self._wanted: dict[uuid.UUID, int] = {}
        self._tasks: dict[uuid.UUID, asyncio.Task[None]] = {}

    def push(self, stream: uuid.UUID, version: int) -> None:
        self._wanted[stream] = max(self._wanted.get(stream, 0), version)
        if stream not in self._tasks:
            self._tasks[stream] = asyncio.create_task(self._drain(stream))

    async def _drain(self, stream: uuid.UUID) -> None:
        try:
            while stream in self._wanted:
                version = self._wanted.pop(stream)
                try:
                    await self.on_append(stream, version)
                except Exception:  # one match's failure must not stop delivery; the timed refresh retries it
                    log.exception("catching up %s after a notification failed", stream)
        finally:
            self._tasks.pop(stream, None)

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class AppendListener:
    """LISTEN on the store's appends channel on a connection of its own; reconnects when it drops."""

    def __init__(
        self,
        conninfo: str,
        channel: str,
        node_id: str,
        on_append: OnAppend,
        on_gap: Callable[[], None],
        settings: ListenerSettings | None = None,
    ) -> None:
        self.settings = settings or ListenerSettings()
        self.conninfo = conninfo
        self.channel = channel
        self.node_id = node_id
        self.on_gap = on_gap
        self.coalescer = Coalescer(on_append)
        self.backend_pid: int | None = None  # the listening connection's server process, while connected
        self.connections = 0  # how many times it has started listening
        self.first_attempt = asyncio.Event()  # set once the first connection has succeeded or failed
        self._task: asyncio.Task[None] | None = None

    async def start(self, wait: float) -> None:
        """Start listening, waiting up to `wait` s for the first attempt, so a node that then loads matches
        hears every append made after it read them. A store that is not reachable yet is retried."""
        self._task = asyncio.create_task(self._run())
        try:
            async with asyncio.timeout(wait):
                await self.first_attempt.wait()
        except TimeoutError:
            log.warning("not listening for other nodes' appends yet; the timed refresh covers until then")
            self.first_attempt.set()  # the node goes on without it: a later connection must check the cache

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.coalescer.close()

    async def _run(self) -> None:
        settings = self.settings
        retry = settings.retry_first
        while True:
            before = self.connections
            try:
                await self._listen()
            except psycopg.Error as exc:
                log.warning("listening for other nodes' appends failed (%s); again in %.1f s", exc, retry)
            except Exception:
                log.exception("listening for other nodes' appends failed; again in %.1f s", retry)
            self.backend_pid = None
            self.first_attempt.set()
            retry = settings.retry_first if self.connections > before else min(retry * 2, settings.retry_most)
            await asyncio.sleep(retry)

    async def _listen(self) -> None:
        async with await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True) as conn:
            await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
            self.backend_pid = conn.info.backend_pid
            self.connections += 1
            if self.first_attempt.is_set():  # a reconnection, or a first one the node did not wait for
                log.info("listening for other nodes' appends again; cached matches will be checked")
                self.on_gap()  # appends made while nothing listened were not heard
            self.first_attempt.set()
            while True:
                async for notify in conn.notifies(timeout=self.settings.ping_every):
                    self._heard(notify.payload)
                await conn.execute("SELECT 1")  # a dead connection raises here

    def _heard(self, payload: str) -> None:
        parsed = parse_payload(payload)
        if parsed is None:
            log.warning("ignored a notification on %s that is not an append: %r", self.channel, payload[:100])
            return
        stream, version, sender = parsed
        if sender != self.node_id:  # this node's own appends are already applied
            self.coalescer.push(stream, version)
