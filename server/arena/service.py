"""The arena: challenges, tournaments, their scheduling, and the leaderboards (bot accounts: accounts.py).

Every write is optimistic: the arena stream, a tournament's stream and the new matches a step starts are
appended in one transaction at the versions this process last read (server/application/platform.py write_together).
When another node wrote first, nothing lands; this node reads what it missed and decides again, so on
PostgreSQL exactly one node starts each tournament match, and a seat notice is never written without
its match. Bot keys live in the identities stream beside host keys (server/identities.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from engine.registry import get_game
from server.arena.accounts import BotAccounts
from server.arena.challenges import Challenges
from server.arena.log import ARENA_STREAM, ArenaLog
from server.arena.platform import Conflict, MatchPlatform
from server.arena.ratings import Rating, ratings
from server.arena.results import ranks_of, rollbacks_of
from server.arena.settings import ArenaSettings, Step
from server.arena.tournament import TournamentLog
from server.arena.tournaments import TournamentOrganiser
from server.bus import Appended, ServerStreamAppended
from server.errors import (
    BadRequest,
    DataLoss,
    NotFound,
)
from server.identities import is_server_stream
from server.records import Record
from server.requests import RequestTag, same_body
from server.unit_of_work import Again, retried

log = logging.getLogger(__name__)
WRITE_ATTEMPTS = 8


class Arena:
    def __init__(self, platform: MatchPlatform, settings: ArenaSettings | None = None) -> None:
        self.platform = platform
        self.settings = settings or ArenaSettings()
        self.log = ArenaLog()
        self.accounts = BotAccounts(platform, self.settings.max_bots_per_host_key)
        self.tournaments: dict[str, TournamentLog] = {}
        self._lock = asyncio.Lock()  # one arena write at a time in this process (others: optimistic)
        self._tasks: set[asyncio.Task[None]] = set()
        self._finishing: set[str] = set()
        self._boards: dict[str, tuple[int, list[Rating]]] = {}  # game -> (arena version, its ratings)
        self._next_sweep = 0.0  # when the tick next looks for ends the write hook missed
        self.challenges = Challenges(self)
        self.organiser = TournamentOrganiser(self)
        platform.bus.subscribe(Appended, self._on_appended)
        platform.bus.subscribe(
            ServerStreamAppended, lambda appended: self._on_remote(appended.stream, appended.version)
        )

    # --- reading the arena's streams ----------------------------------------------------------------

    async def start(self) -> None:
        await self.catch_up()
        for tournament_id in self.log.tournaments:  # a stopped server resumes its tournaments at the first tick
            await self.tournament(tournament_id)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

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

    # --- writing ----------------------------------------------------------------------------------

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

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- who calls --------------------------------------------------------------------------------

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

    def _on_appended(self, appended: Appended) -> None:
        """Told of every write to a match: a bot match's end is recorded once it is over (in a task: the
        write that ended it answers its caller first)."""
        live = appended.live
        if not live.header.get("arena"):
            return
        match_id = str(live.id)
        if match_id in self._finishing or not live.status().finished:
            return
        self._finishing.add(match_id)
        self._spawn(self._finish(match_id))

    async def _finish(self, match_id: str) -> None:
        try:
            tournament_id = await self.record_end(match_id)
            if tournament_id:
                await self.organiser.advance(tournament_id)
        except Exception:  # the next tick tries again; the match's own records are safe
            log.exception("the end of arena match %s could not be recorded", match_id)
        finally:
            self._finishing.discard(match_id)

    async def record_end(self, match_id: str) -> str | None:
        """Write a finished bot match's ranks to the arena (and its tournament); the tournament's id."""

        async def plan() -> Step | None:
            match = self.log.matches.get(match_id)
            if match is None or match.ranks is not None or match.voided:
                return None
            live = await self.platform.load(uuid.UUID(match_id))
            if not live.status().finished:
                return None
            ranks, now = ranks_of(live), self.platform.clock.now()
            finished = {"kind": "finished", "match": match_id, "game": match.game, "ranks": ranks, "at": now}
            step = Step([{**finished, "tournament": match.tournament}], {}, [], match.tournament)
            if match.tournament:
                tournament = await self.tournament(match.tournament)
                index = tournament.by_match[match_id]
                if tournament.entries[index].state == "playing":
                    record = {"kind": "finished", "index": index, "match": match_id, "ranks": ranks}
                    step.tournaments[match.tournament] = [{**record, "rollbacks": rollbacks_of(live), "at": now}]
            return step

        result = await self.commit(plan)
        return str(result) if result else None

    def leaderboard(self, game: str) -> list[Rating]:
        """Ratings from every finished arena match of the game, recomputed when the arena has moved."""
        get_game(game)
        cached = self._boards.get(game)
        if cached is None or cached[0] != self.log.version:
            cached = self._boards[game] = (self.log.version, ratings(self.log.results(game)))
        return cached[1]

    # --- the ticker -------------------------------------------------------------------------------

    async def tick(self) -> None:
        """Expire challenges, record ends a write's own task missed (a crash, another node), and start
        what each running tournament has due."""
        if self.platform.refresh_every is not None:  # other processes write to the store too
            await self.catch_up()
        await self.challenges.expire()
        if time.monotonic() >= self._next_sweep:  # the write hook records ends; this sweep is the safety net
            self._next_sweep = time.monotonic() + self.settings.sweep_every
            unfinished = [uuid.UUID(match.match_id) for match in self.log.unfinished()]
            for match_id in sorted(await self.platform.finished_among(unfinished)):
                if str(match_id) not in self._finishing:
                    await self._finish(str(match_id))
        for tournament_id in list(self.log.tournaments):  # those another node made are loaded once
            known = self.tournaments.get(tournament_id)
            if known is not None and known.done() and not known.needs_completion():
                continue  # over (a void here or on another node advances it itself)
            tournament = await self.tournament(tournament_id)
            if tournament.to_start() or tournament.needs_completion():
                await self.organiser.advance(tournament_id)
