"""Server-sent events for every live page, capped: StreamLimits.max_page_streams in all (match, tournament,
seat and console streams together) and max_page_streams_per_address from one client address, so one client
opening a thousand streams holds at most its share and the server still answers everyone else."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from aiohttp import web

from server.streams import StreamLimits
from server.web.headers import SECURITY_HEADERS

KEEPALIVE = 15.0  # seconds between comments on a quiet event stream (finds clients that have gone)


class EventStream:
    """One open text/event-stream response; `ended` is done once the server stops."""

    def __init__(self, response: web.StreamResponse, ended: asyncio.Future[None]) -> None:
        self.response = response
        self.ended = ended

    async def send(self, event_id: str, data: Any) -> None:
        message = json.dumps(data, separators=(",", ":"))
        await self.response.write(f"id: {event_id}\ndata: {message}\n\n".encode())

    async def still_here(self) -> None:
        await self.response.write(b": still here\n\n")


class EventStreams:
    def __init__(self, limits: StreamLimits) -> None:
        self.limits = limits
        self.open_count = 0
        self.by_address: Counter[str] = Counter()
        self._closing: asyncio.Future[None] | None = None

    def close(self) -> None:
        if self._closing is not None and not self._closing.done():
            self._closing.set_result(None)

    def _check(self, address: str) -> None:
        limit = self.limits.max_page_streams
        if self.open_count >= limit:
            raise web.HTTPServiceUnavailable(
                text=f"this server already serves {self.open_count} live page streams, the most allowed "
                f"(StreamLimits.max_page_streams={limit}); try again later\n"
            )
        per_address = self.limits.max_page_streams_per_address
        if self.by_address[address] >= per_address:
            raise web.HTTPServiceUnavailable(
                text=f"your address already holds {self.by_address[address]} live page streams, the most "
                f"allowed (StreamLimits.max_page_streams_per_address={per_address}); close one\n"
            )

    @asynccontextmanager
    async def open(self, request: web.Request) -> AsyncIterator[EventStream]:
        """One place of the caps and the stream's head. The place is freed when the handler ends: the
        client hanging up cancels it (the Site runs with handler_cancellation), the server stopping ends
        the stream's waits (`ended`)."""
        address = request.remote or ""
        self._check(address)
        if self._closing is None:
            self._closing = asyncio.get_running_loop().create_future()
        self.open_count += 1
        self.by_address[address] += 1
        try:
            response = web.StreamResponse(
                headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"}
            )
            response.headers.update({k: v for k, v in SECURITY_HEADERS.items() if k not in response.headers})
            await response.prepare(request)
            await response.write(b"retry: 2000\n\n")
            yield EventStream(response, self._closing)
        finally:
            self.open_count -= 1
            self.by_address[address] -= 1
            if self.by_address[address] <= 0:
                del self.by_address[address]
