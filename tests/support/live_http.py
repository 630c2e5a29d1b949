"""A real server with its live page (`--http`), and raw HTTP to it: pages and server-sent events."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.app import Settings
from server.clock import ManualClock
from tests.support.server import ServerThread


@pytest.fixture(name="server")
def pages_server(tmp_path: Path) -> Iterator[ServerThread]:
    """A real server serving its pages: the `server` of every page test (tests/web, tests/browser)."""
    running = start(tmp_path)
    yield running
    running.stop()


def start(tmp_path: Path, **settings: Any) -> ServerThread:
    base = Settings(
        address="127.0.0.1:0",
        var_dir=str(tmp_path / "var"),
        clock=ManualClock(),
        tick_interval=0.05,
        http_address="127.0.0.1:0",
    )
    for name, value in settings.items():
        setattr(base, name, value)
    return ServerThread(base).start()


def port(server: ServerThread) -> int:
    assert server.running is not None
    return server.running.http_port


def get(server: ServerThread, path: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port(server), timeout=30)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read().decode()
    connection.close()
    return response.status, body


class EventStream:
    """A raw text/event-stream reader: the status line, then each `data:` message as JSON."""

    def __init__(self, server: ServerThread, path: str, source: str = "127.0.0.1") -> None:
        # `source`: the client's own address (any 127.x address is this machine's on Linux)
        self.sock = socket.create_connection(("127.0.0.1", port(server)), timeout=30, source_address=(source, 0))
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        self.file = self.sock.makefile("rb")
        self.status = int(self.file.readline().split()[1])
        while self.file.readline() not in (b"\r\n", b""):
            pass
        self.raw = ""

    def next_message(self) -> dict[str, Any]:
        while True:
            line = self.file.readline().decode()
            if not line:
                raise EOFError("the stream ended")
            self.raw += line
            if line.startswith("data: "):
                message: dict[str, Any] = json.loads(line[len("data: ") :])
                return message

    def close(self) -> None:
        self.file.close()
        self.sock.close()
