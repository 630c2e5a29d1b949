"""What the arena uses of the platform under it, named in one place (server/application/platform.py is
the implementation). The arena hears bot-match writes and other nodes' appends from the bus."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from engine.contract import Json, Viewer
from server.access import Access
from server.bus import Bus
from server.clock import Clock
from server.errors import Conflict
from server.limits import Limits
from server.live import LiveMatch
from server.policy import MatchPolicy
from server.records import ChainedLog, Record
from server.requests import RequestTag
from server.streams import StreamRegistry

__all__ = ["Conflict", "MatchPlatform"]


class MatchPlatform(Protocol):
    access: Access
    bus: Bus
    clock: Clock
    limits: Limits
    streams: StreamRegistry
    refresh_every: float | None

    def register_policy(self, policy: MatchPolicy) -> None: ...

    async def load(self, match_id: uuid.UUID) -> LiveMatch: ...

    async def viewer_for(self, live: LiveMatch, token: str | None) -> Viewer: ...

    def prepare_match(
        self, game_name: str, seats: Mapping[str, str], overrides: Mapping[str, Json], organiser: str, terms: Record
    ) -> tuple[LiveMatch, list[Record]]: ...

    async def write_together(
        self, writes: Sequence[tuple[uuid.UUID, int, str, Sequence[Record]]]
    ) -> list[list[Record]]: ...

    def adopt(self, live: LiveMatch, stamped: Sequence[Record]) -> None: ...

    async def finished_among(self, match_ids: Sequence[uuid.UUID]) -> set[uuid.UUID]: ...

    async def unfinished_of(self, key_id: str) -> int: ...

    async def read_stream(self, stream: uuid.UUID, after: int) -> list[Record]: ...

    def checked(self, stream: ChainedLog, record: Record) -> bool: ...

    @property
    def chain_keys(self) -> dict[str, bytes]: ...

    def notify(self, stream: uuid.UUID) -> None: ...

    async def wait_for_stream(
        self, stream: uuid.UUID, is_past: Callable[[], bool], timeout: float, until: asyncio.Future[Any] | None = None
    ) -> None: ...

    async def refresh_identities(self) -> None: ...

    async def append_identity(self, record: Record) -> None: ...

    def new_secret(self, tag: RequestTag | None, scope: str, purpose: str, *parts: str) -> str: ...

    def end_credential(self, digest: str, why: str) -> None: ...
