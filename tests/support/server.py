"""A real matchserver on a loopback port, run on its own event loop thread, for end-to-end tests."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from clients.client import MatchClient
from server.app import Running, Settings, start_server

T = TypeVar("T")


class ServerThread:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.running: Running | None = None

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def start(self) -> ServerThread:
        self.thread.start()
        self.running = self.run(start_server(self.settings))
        return self

    @property
    def address(self) -> str:
        assert self.running is not None
        return f"127.0.0.1:{self.running.port}"

    def stop(self) -> None:
        if self.loop.is_closed():  # stopped already
            return
        if self.running is not None:
            self.run(self.running.stop(grace=None))
            self.running = None
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()

    @property
    def admin_token(self) -> str:
        assert self.running is not None
        token = self.running.matches.admin_token
        assert token is not None
        return token

    def client(self, timeout: float = 30.0) -> MatchClient:
        """A client that creates matches and fills seats with the server's admin token."""
        return MatchClient(self.address, timeout=timeout, host_credential=self.admin_token)
