"""The live page (`matchserver --http HOST:PORT`): the replay viewer of pictures/page.py for a match in
play, as a spectator sees it, kept up to date by server-sent events.

    GET /matches/<id>              the page: every version so far, pictures packed (pictures/pack.py)
    GET /matches/<id>/events       text/event-stream: what is new, each message a packed slice of pictures
    GET /<route>/<id>[/events]     pages other rooms register (e.g. the tournament pages)

Only the spectator's view is ever drawn (game.view and the audit trail for Viewer.spectator()); a private
match, an unknown one and anything else answer 404, so the page tells nobody that a private match exists.
A minimal HTTP/1.1 server inside the server's event loop (asyncio.start_server): one request per
connection, GET only, a bounded request head, TLS with the gRPC certificate when the server has one.

The page and its pictures come from pictures/ (pure functions of a view: standard library and engine
only), which `matchctl replay` uses too, so the live page looks the same as a replay."""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from cachetools import LRUCache

from engine.contract import Viewer
from pictures import RENDERERS, render_svg
from pictures.pack import PicturePacker
from pictures.page import Frame, caption, describe, mark_of, replay_html, step_of
from server import audit
from server.errors import DataLoss, NotFound, PermissionDenied
from server.live import LiveMatch
from server.matches import Matches
from server.streams import StreamLimits
from server.visibility import visible_records

log = logging.getLogger(__name__)

MAX_HEAD = 8192  # bytes of request line and headers
HEAD_TIMEOUT = 10.0  # seconds to send them
# A registered page: (the id in its path, whether it is the /events stream, the request, the response).
Route = Callable[[str, bool, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
KEEPALIVE = 15.0  # seconds between comments on a quiet event stream (finds clients that have gone)
SPECTATOR = Viewer.spectator()
NO_SUCH_PAGE = "no such page: a live page is at /matches/<match id> or /tournaments/<tournament id>\n"
SECURITY_HEADERS = (
    "Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src data:\r\n"
    "X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n"
)


class HttpError(Exception):
    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


# Versions a live page draws at a time before it lets the loop serve others.
DRAW_CHUNK = 100


@dataclass
class LiveReplay:
    """One match's page data so far, shared by every page and event stream of the match. Append-only, so
    a client is described by three counts (fragments, pictures, steps) and is sent what lies past them."""

    game: str = ""
    version: int = 0  # the versions drawn
    steps: list[dict[str, Any]] = field(default_factory=list)
    retracted: list[int] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    packer: PicturePacker = field(default_factory=PicturePacker)

    def counts(self) -> tuple[int, int, int]:
        return len(self.packer.fragments), len(self.packer.pictures), len(self.steps)

    def since(self, counts: tuple[int, int, int]) -> dict[str, Any]:
        fragments, pictures, steps = counts
        return {
            "f": fragments,
            "fragments": self.packer.fragments[fragments:],
            "pictures": self.packer.pictures[pictures:],
            "steps": self.steps[steps:],
            "retracted": self.retracted,
        }

    async def catch_up(self, live: LiveMatch) -> None:
        """Draw the versions past those drawn, DRAW_CHUNK at a time: views and captions in the loop (the
        match is not shared with threads), the pictures in a thread (pure functions of the views). Between
        chunks the loop serves everyone else, so a first view of a long match never holds it for long."""
        async with self.lock:
            self.retracted = sorted(live.batches.retracted())
            while self.version < live.version:
                await self._draw(live, self.version + 1, min(live.version, self.version + DRAW_CHUNK))

    async def _draw(self, live: LiveMatch, first: int, last: int) -> None:
        """Draw versions first..last (a thread draws the pictures while the loop serves others)."""
        self.game = live.game.name
        explained = {e["version"]: e for e in audit.trail(live, SPECTATOR, last, start=first)}
        rows = []
        for version, record in visible_records(live, first, last, SPECTATOR):
            state = live.state_at(version)
            entry = explained.get(version)
            words = (
                caption(entry["actor"], entry["input"], entry["lines"], False)
                if entry is not None
                else describe(record["kind"], (record.get("event") or {}).get("type", ""), record, False)
            )
            view = live.game.view(state, SPECTATOR)
            rows.append((version, words, view, mark_of(view, live.game.status(state).phase)))
        svgs = await asyncio.to_thread(lambda: [render_svg(self.game, row[2]) for row in rows])
        for (version, words, _, mark), svg in zip(rows, svgs, strict=True):
            self.steps.append(step_of(Frame(version, words, svg, mark), self.packer))
        self.version = last


class LivePages:
    """The HTTP side of the server: pages and event streams for the matches a spectator may watch, and
    whatever pages other rooms register by route (e.g. the tournament pages)."""

    def __init__(self, matches: Matches, limits: StreamLimits) -> None:
        self.matches = matches
        self.limits = limits
        self.routes: dict[str, Route] = {}  # first path part -> its pages (registered at wiring)
        self.replays: LRUCache[uuid.UUID, LiveReplay] = LRUCache(maxsize=64)
        self.event_streams = 0
        self.event_streams_by_address: Counter[str] = Counter()
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._closing: asyncio.Future[None] | None = None

    async def start(self, address: str, tls: ssl.SSLContext | None) -> int:
        """Listen on `address` (HOST:PORT, port 0 for any); returns the bound port."""
        from server.errors import StartupRefused
        from server.startup import listen_host

        host = listen_host(address)
        port = int(address.rsplit(":", 1)[1])
        self._closing = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._serve, host or None, port, ssl=tls, limit=MAX_HEAD)
        except OSError as exc:
            raise StartupRefused(f"cannot listen on {address} (--http): {exc.strerror or exc}", exit_code=1) from exc
        bound: int = self._server.sockets[0].getsockname()[1]
        return bound

    async def stop(self) -> None:
        if self._closing is not None and not self._closing.done():
            self._closing.set_result(None)
        if self._server is not None:
            self._server.close()
        for task in list(self._handlers):
            task.cancel()
        if self._handlers:
            await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            await self._respond(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass  # the client went away
        except asyncio.CancelledError:
            pass  # the server is stopping
        finally:
            self._handlers.discard(task)
            writer.close()

    async def _respond(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(HEAD_TIMEOUT):
                head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.LimitOverrunError, ValueError):
            await send(writer, "431 Request Header Fields Too Large", "the request head is too large\n")
            return
        except TimeoutError:
            return
        try:
            method, target, headers = _parse_head(head)
            if method != "GET":
                raise HttpError("405 Method Not Allowed", "only GET is served here\n")
            await self._route(target, headers, reader, writer)
        except HttpError as exc:
            await send(writer, exc.status, str(exc))

    async def _route(
        self, target: str, headers: dict[str, str], reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        url = urlsplit(target)
        parts = url.path.strip("/").split("/")
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != "events"):
            raise HttpError("404 Not Found", NO_SUCH_PAGE)
        route = self.routes.get(parts[0])
        if route is not None:  # pages a room built on the platform registered (the tournament pages)
            await route(parts[1], len(parts) == 3, reader, writer)
            return
        if parts[0] != "matches":
            raise HttpError("404 Not Found", NO_SUCH_PAGE)
        live = await self._watchable(parts[1])
        if live.game.name not in RENDERERS:  # a game registered without pictures (a test's fixture game)
            raise HttpError("404 Not Found", f"there are no pictures of {live.game.name} matches to show\n")
        replay = self.replays.get(live.id)
        if replay is None:
            replay = self.replays[live.id] = LiveReplay()
        await replay.catch_up(live)
        if len(parts) == 2:
            await self._page(live, replay, writer)
        else:
            await self._events(live.id, replay, _positions(url.query, headers), reader, writer)

    async def _watchable(self, text: str) -> LiveMatch:
        """The match, if a spectator may watch it; else 404 whatever the reason (no match, private)."""
        try:
            match_id = uuid.UUID(text)
        except ValueError:
            raise HttpError("404 Not Found", "no such match\n") from None
        try:
            live = await self.matches.load(match_id)
            await self.matches.callers.viewer_for(live, None)
        except (NotFound, PermissionDenied):
            raise HttpError("404 Not Found", "no such match\n") from None
        except DataLoss:
            raise HttpError("503 Service Unavailable", "this match cannot be read at the moment\n") from None
        return live

    async def _page(self, live: LiveMatch, replay: LiveReplay, writer: asyncio.StreamWriter) -> None:
        data = replay.since((0, 0, 0))
        title = f"{replay.game} match {live.id} (live, as a spectator)"
        page = replay_html(title, [], live_url=f"/matches/{live.id}/events", data=data)
        await send(writer, "200 OK", page, "text/html; charset=utf-8")

    async def _events(
        self,
        match_id: uuid.UUID,
        replay: LiveReplay,
        sent: tuple[int, int, int],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        async with self.event_stream(reader, writer) as ended:
            while True:
                if replay.counts() != sent:
                    message = json.dumps(replay.since(sent), separators=(",", ":"))
                    sent = replay.counts()
                    writer.write(f"id: {sent[0]},{sent[1]},{sent[2]}\ndata: {message}\n\n".encode())
                else:
                    writer.write(b": still here\n\n")
                await writer.drain()
                await self.matches.queries.wait_for_change(match_id, replay.version, timeout=KEEPALIVE, until=ended)
                if ended.done():
                    return
                try:
                    live = await self._watchable(str(match_id))
                except HttpError:  # quarantined meanwhile: the stream ends, the browser tries again later
                    return
                await replay.catch_up(live)

    @asynccontextmanager
    async def event_stream(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> AsyncIterator[asyncio.Future[None]]:
        """One place of max_page_streams (match and tournament streams together) and the stream's head;
        yields a future done once the client hangs up (its side reaches EOF) or the server stops, so the
        place is free at once."""
        limit = self.limits.max_page_streams
        if self.event_streams >= limit:
            raise HttpError(
                "503 Service Unavailable",
                f"this server already serves {self.event_streams} live page streams, the most allowed "
                f"(StreamLimits.max_page_streams={limit}); try again later\n",
            )
        address = str((writer.get_extra_info("peername") or ("",))[0])
        per_address = self.limits.max_page_streams_per_address
        if self.event_streams_by_address[address] >= per_address:
            raise HttpError(
                "503 Service Unavailable",
                f"your address already holds {self.event_streams_by_address[address]} live page streams, the "
                f"most allowed (StreamLimits.max_page_streams_per_address={per_address}); close one\n",
            )
        self.event_streams += 1
        self.event_streams_by_address[address] += 1
        ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def end(_: object) -> None:
            if not ended.done():
                ended.set_result(None)

        hung_up = asyncio.ensure_future(reader.read())
        for done in (hung_up, self._closing):
            if done is not None:
                done.add_done_callback(end)
        try:
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                + SECURITY_HEADERS.encode()
                + b"Connection: close\r\n\r\nretry: 2000\n\n"
            )
            await writer.drain()
            yield ended
        finally:
            self.event_streams -= 1
            self.event_streams_by_address[address] -= 1
            if self.event_streams_by_address[address] <= 0:
                del self.event_streams_by_address[address]
            hung_up.cancel()
            if self._closing is not None:
                self._closing.remove_done_callback(end)


def _parse_head(head: bytes) -> tuple[str, str, dict[str, str]]:
    try:
        lines = head.decode("latin-1").split("\r\n")
        method, target, version = lines[0].split(" ")
    except ValueError:
        raise HttpError("400 Bad Request", "not an HTTP request\n") from None
    if not version.startswith("HTTP/1."):
        raise HttpError("505 HTTP Version Not Supported", "HTTP/1.x only\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    return method, target, headers


def _positions(query: str, headers: dict[str, str]) -> tuple[int, int, int]:
    """What the client has: the last event's id on a reconnect, else ?from=F,P,S (0,0,0: nothing)."""
    given = headers.get("last-event-id") or (parse_qs(query).get("from") or ["0,0,0"])[0]
    try:
        fragments, pictures, steps = (int(n) for n in given.split(","))
    except ValueError:
        raise HttpError("400 Bad Request", "from must be three counts: F,P,S\n") from None
    if min(fragments, pictures, steps) < 0:
        raise HttpError("400 Bad Request", "from must be three counts of 0 or more\n")
    return fragments, pictures, steps


async def send(writer: asyncio.StreamWriter, status: str, body: str, kind: str = "text/plain; charset=utf-8") -> None:
    data = body.encode()
    writer.write(
        f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {len(data)}\r\nCache-Control: no-store\r\n"
        f"{SECURITY_HEADERS}Connection: close\r\n\r\n".encode()
        + data
    )
    await writer.drain()


def tls_context(cert: str, key: str) -> ssl.SSLContext | None:
    """The gRPC server's certificate for HTTPS (server/startup.py has checked the files already)."""
    if not cert:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context
