"""A small in-process bus: a write says what happened once, and whoever follows it subscribes at wiring.

The application layer publishes; it never calls its followers by name (the catalog projection, the
streams' wake-ups, the rooms built above each subscribe), so no knowledge runs back up from the core to the rooms
above it. Handlers run in the server's event loop, in the order they subscribed; `publish` is for quick
synchronous handlers (they schedule their work), `deliver` also awaits handlers that return awaitables.
"""

from __future__ import annotations

import inspect
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from server.live import LiveMatch

E = TypeVar("E")


@dataclass(frozen=True)
class Appended:
    """Records were appended to a match (by this process) and applied to its live copy."""

    live: LiveMatch


@dataclass(frozen=True)
class ServerStreamAppended:
    """Another node appended to one of the server's own streams (not the identities) up to `version`."""

    stream: uuid.UUID
    version: int


class Bus:
    def __init__(self) -> None:
        self._handlers: defaultdict[type, list[Callable[[Any], Any]]] = defaultdict(list)

    def subscribe(self, kind: type[E], handler: Callable[[E], Any]) -> None:
        self._handlers[kind].append(handler)

    def unsubscribe(self, kind: type[E], handler: Callable[[E], Any]) -> None:
        self._handlers[kind].remove(handler)

    def publish(self, event: object) -> None:
        for handler in self._handlers[type(event)]:
            if inspect.isawaitable(handler(event)):
                raise TypeError(f"{handler!r} is asynchronous: deliver {type(event).__name__} instead")

    async def deliver(self, event: object) -> None:
        for handler in self._handlers[type(event)]:
            result = handler(event)
            if inspect.isawaitable(result):
                await result
