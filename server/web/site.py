"""The pages' HTTP server (`matchserver --http HOST:PORT`): aiohttp in the gRPC server's own event loop.

Rooms register their pages on a Site at wiring (server/web/live.py the match pages, server/arena/pages.py
the arena's, server/web/seat.py and console.py the players' and the host's). The Site owns what every page
shares: the bind rule and TLS (the gRPC server's), keep-alive, compression, request limits, the security
headers and content security policy, the refusal of cross-site writes (every POST must come from this
origin: the seat's and host's pages add a per-session token, server/web/sessions.py), and the capped event
streams (server/web/events.py). Errors are plain text with the status that says what was wrong."""

from __future__ import annotations

import logging
import ssl
from collections.abc import Awaitable, Callable

from aiohttp import web

from server.errors import StartupRefused
from server.startup import listen_host
from server.streams import StreamLimits
from server.web.events import EventStreams
from server.web.headers import SECURITY_HEADERS
from server.web.refusals import REFUSALS, status_of
from server.web.refusals import refuse as refuse  # the pages import it from here too

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
MAX_LINE = 8190  # bytes of the request line, and of each header
MAX_BODY = 64 * 1024  # bytes of a form or JSON body (a command is at most a few hundred)
# Seconds a connection may sit without a whole request (a slow head included: aiohttp's keep-alive timer
# runs from the connection's start and between requests), so idle or trickling clients cannot hold sockets.
IDLE_TIMEOUT = 10.0
NO_SUCH_PAGE = "no such page: a match's live page is at /matches/<match id>, the front door at /\n"
COMPRESSED = ("text/html", "application/json", "text/plain")


def same_origin(request: web.Request) -> bool:
    """A POST from one of this server's own pages: browsers send Origin with every POST (fetch and forms
    alike), so one that is absent or names another site is refused."""
    origin = request.headers.get("Origin", "")
    return bool(origin) and origin == f"{request.scheme}://{request.host}"


@web.middleware
async def guarded(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.version.major != 1:
        raise web.HTTPVersionNotSupported(text="HTTP/1.x only\n")
    routing = request.match_info.http_exception  # no such route, or not with this method
    if (routing is not None and routing.status == 405) or request.method not in ("GET", "HEAD", "POST"):
        raise refuse(405, f"{request.method} is not served at {request.path}: pages are read with GET")
    if routing is not None:
        raise refuse(404, NO_SUCH_PAGE)
    if request.method == "POST" and not same_origin(request):
        raise web.HTTPForbidden(text="cross-site request refused: post from this server's own page\n")
    try:
        try:
            response = await handler(request)
        except REFUSALS as exc:  # a refusal no page caught: its words, with the status that says what was wrong
            raise refuse(status_of(exc), str(exc)) from None
    except web.HTTPException as exc:
        if exc.status == 404 and not exc.text:
            exc.text = NO_SUCH_PAGE
        exc.headers.update(SECURITY_HEADERS)
        raise
    response.headers.update({k: v for k, v in SECURITY_HEADERS.items() if k not in response.headers})
    if not response.prepared and (response.content_type or "").startswith(COMPRESSED):
        response.enable_compression()
    return response


class Site:
    """The pages' server: routes registered by rooms, served in the running event loop."""

    def __init__(self, limits: StreamLimits) -> None:
        self.app = web.Application(middlewares=[guarded], client_max_size=MAX_BODY)
        self.events = EventStreams(limits)
        self.https = False
        self._runner: web.AppRunner | None = None

    def get(self, path: str, handler: Handler) -> None:
        self.app.router.add_get(path, handler, allow_head=True)

    def post(self, path: str, handler: Handler) -> None:
        self.app.router.add_post(path, handler)

    async def start(self, address: str, tls: ssl.SSLContext | None) -> int:
        """Listen on `address` (HOST:PORT, port 0 for any); returns the bound port."""
        host, port = listen_host(address), int(address.rsplit(":", 1)[1])
        self.https = tls is not None
        # handler_cancellation: a client that hangs up ends its handler, so an event stream frees its place.
        runner = web.AppRunner(
            self.app,
            handler_cancellation=True,
            access_log=None,
            max_line_size=MAX_LINE,
            max_field_size=MAX_LINE,
            shutdown_timeout=1.0,
            keepalive_timeout=IDLE_TIMEOUT,
        )
        await runner.setup()
        self._runner = runner
        site = web.TCPSite(runner, host or None, port, ssl_context=tls)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise StartupRefused(f"cannot listen on {address} (--http): {exc.strerror or exc}", exit_code=1) from exc
        server = site._server
        assert server is not None
        bound: int = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        return bound

    async def stop(self) -> None:
        self.events.close()
        if self._runner is not None:
            await self._runner.cleanup()


def tls_context(cert: str, key: str) -> ssl.SSLContext | None:
    """The gRPC server's certificate for HTTPS (server/startup.py has checked the files already)."""
    if not cert:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context
