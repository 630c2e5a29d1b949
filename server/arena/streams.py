"""The arena's own streams: the arena stream and each tournament's, read from the store and kept in memory,
and the one way they are written: a step decided on fresh state, appended in one transaction with the
matches it starts, decided again if another node wrote first (server/unit_of_work.py retried)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from server.arena.accounts import BotAccounts
from server.arena.log import ARENA_STREAM, ArenaLog
from server.arena.platform import Conflict, MatchPlatform
from server.arena.settings import ArenaSettings, Step
from server.arena.tournament import TournamentLog
from server.errors import BadRequest, DataLoss, NotFound
from server.identities import is_server_stream
from server.records import Record
from server.requests import RequestTag, same_body
from server.unit_of_work import Again, retried

log = logging.getLogger("server.arena.service")  # operators grep the arena's lines under one name
WRITE_ATTEMPTS = 8


class ArenaStreams:
    def __init__(self, platform: MatchPlatform, settings: ArenaSettings) -> None:
        self.platform = platform
        self.settings = settings
        self.log = ArenaLog()
        self.tournaments: dict[str, TournamentLog] = {}
        self._lock = asyncio.Lock()  # one arena write at a time in this process (others: optimistic)

    async def catch_up(self) -> None:
        if self.log.broken is not None:
            return  # nothing past a record that does not hold is applied (logged when found)
        after = self.log.version
        records = await self.platform.read_stream(ARENA_STREAM, after)
        applied = False
        for version, record in enumerate(records, start=after + 1):
            if self.log.version < version:  # idempotent by version: catch-ups may overlap (a notification, a write)
                if not self.platform.checked(self.log, record):
                    break
                self.log.apply(record)
                applied = True
        if applied:
            self.platform.notify(ARENA_STREAM)

    async def tournament(self, tournament_id: str) -> TournamentLog:
        """A tournament's log, caught up from the store."""
        try:
            stream = uuid.UUID(tournament_id)
        except (ValueError, AttributeError, TypeError):
            raise BadRequest(f"tournament_id {tournament_id!r} is not a tournament id (a UUID)") from None
        found = self.tournaments.get(str(stream))
        if found is None and not is_server_stream(stream):  # a match's id (or any other): nothing is read
            raise NotFound(f"no tournament {tournament_id}")
        after = found.version if found is not None else 0
        records = await self.platform.read_stream(stream, after)
        if found is None:
            if not records or records[0].get("kind") != "tournament_created":
                raise NotFound(f"no tournament {tournament_id}")
            found = self.tournaments.setdefault(str(stream), TournamentLog(str(stream)))  # one copy per id
        for version, record in enumerate(records, start=after + 1):
            if found.version == version - 1 and found.broken is None:  # idempotent by version: reads may overlap
                if not self.platform.checked(found, record):
                    break
                found.apply(record)
        return found

    async def _on_remote(self, stream: uuid.UUID, version: int) -> None:
        """Another node appended to the arena or a tournament: read it, so streams here see it now."""
        if stream == ARENA_STREAM and self.log.version < version:
            await self.catch_up()
        elif str(stream) in self.tournaments and self.tournaments[str(stream)].version < version:
            await self.tournament(str(stream))

    async def commit(self, plan: Callable[[], Awaitable[Step | None]]) -> Any:
        """Decide a step on fresh state and write it in one transaction; decide again if another node
        wrote first. `plan` returns None when there is nothing to do."""

        async def attempt() -> Any:
            async with self._lock:
                await self.catch_up()
                step = await plan()
                if step is None:
                    return None
                writes = self._writes(step)
                try:
                    stamped = await self.platform.write_together(writes)
                except Conflict:
                    for tournament_id in step.tournaments:
                        await self.tournament(tournament_id)
                    raise Again from None
                self._applied(step, writes, stamped)
                return step.result

        return await retried(
            attempt,
            "the arena kept changing under this write; nothing was written: retry",
            WRITE_ATTEMPTS,
            what="the arena",
        )

    def _writes(self, step: Step) -> list[tuple[uuid.UUID, int, str, Sequence[Record]]]:
        written = ([self.log] if step.arena else []) + [self.tournaments[t] for t in step.tournaments]
        for stream in written:  # nothing is written after a stored record that does not hold
            if stream.broken is not None:
                raise DataLoss(str(stream.broken))
        writes: list[tuple[uuid.UUID, int, str, Sequence[Record]]] = []
        if step.arena:
            writes.append((ARENA_STREAM, self.log.version, self.log.last_hash, step.arena))
        for tournament_id, records in step.tournaments.items():
            tournament = self.tournaments[tournament_id]
            writes.append((uuid.UUID(tournament_id), tournament.version, tournament.last_hash, records))
        for live, records in step.matches:
            writes.append((live.id, 0, "", records))
        return writes

    def _applied(
        self, step: Step, writes: list[tuple[uuid.UUID, int, str, Sequence[Record]]], stamped: list[list[Record]]
    ) -> None:
        """Apply a written step by version: a reader's catch-up may have read these records back meanwhile."""
        batches = iter(zip(writes, stamped, strict=True))
        if step.arena:
            (_, after, _, _), records = next(batches)
            for version, record in enumerate(records, start=after + 1):
                if self.log.version == version - 1:
                    self.log.apply(record)
        for tournament_id in step.tournaments:
            (_, after, _, _), records = next(batches)
            tournament = self.tournaments[tournament_id]
            for version, record in enumerate(records, start=after + 1):
                if tournament.version == version - 1:
                    tournament.apply(record)
        for live, _ in step.matches:
            self.platform.adopt(live, next(batches)[1])
        if step.arena:
            self.platform.notify(ARENA_STREAM)

    def requested(self, kind: str, caller: str, tag: RequestTag | None) -> Record | None:
        """The arena record an earlier call with this request id wrote (a retry gets the same outcome)."""
        if tag is None:
            return None
        for record in self.log.records:
            request = record.get("request")
            if record["kind"] == kind and request and (request["caller"], request["id"]) == (caller, tag.request_id):
                same_body(request, tag)
                return record
        return None


class ArenaRoom:
    """A room of the arena's work on its streams (challenges.py, tournaments.py)."""

    def __init__(self, arena: ArenaStreams, accounts: BotAccounts) -> None:
        self.arena = arena
        self.platform = arena.platform
        self.settings = arena.settings
        self.accounts = accounts
        self.log = arena.log
