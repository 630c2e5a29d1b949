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
from collections.abc import Awaitable

from engine.registry import get_game
from server.arena.accounts import BotAccounts
from server.arena.challenges import Challenges
from server.arena.platform import MatchPlatform
from server.arena.policy import ArenaPolicy
from server.arena.ratings import Rating, ratings
from server.arena.results import ranks_of, rollbacks_of
from server.arena.settings import ArenaSettings, Step
from server.arena.streams import ArenaStreams
from server.arena.tournament import TournamentLog
from server.arena.tournaments import TournamentOrganiser
from server.bus import Appended, ServerStreamAppended
from server.paging import PageRequest

log = logging.getLogger(__name__)


class Arena(ArenaStreams):
    """The arena: its streams (ArenaStreams), its bot accounts, challenges and tournaments, the ends of bot
    matches recorded as the bus reports them, and its share of the ticker's work."""

    def __init__(self, platform: MatchPlatform, settings: ArenaSettings | None = None) -> None:
        super().__init__(platform, settings or ArenaSettings())
        platform.register_policy(ArenaPolicy())  # how its organisers see and correct its matches
        self.accounts = BotAccounts(platform, self.settings.max_bots_per_host_key)
        self._tasks: set[asyncio.Task[None]] = set()
        self._finishing: set[str] = set()
        self._boards: dict[str, tuple[int, list[Rating]]] = {}  # game -> (arena version, its ratings)
        self._next_sweep = 0.0  # when the tick next looks for ends the write hook missed
        self.challenges = Challenges(self, self.accounts)
        self.organiser = TournamentOrganiser(self, self.accounts)
        platform.bus.subscribe(Appended, self._on_appended)
        platform.bus.subscribe(
            ServerStreamAppended, lambda appended: self._on_remote(appended.stream, appended.version)
        )

    async def start(self) -> None:
        await self.catch_up()
        for tournament_id in self.log.tournaments:  # a stopped server resumes its tournaments at the first tick
            await self.tournament(tournament_id)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- who calls --------------------------------------------------------------------------------

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

    async def listed_tournaments(self, page: PageRequest) -> tuple[list[TournamentLog], str]:
        """One page of the arena's tournaments, oldest first (the page token: the index of the next)."""
        await self.catch_up()
        every = self.log.tournaments
        start = page.start(0)
        ids = every[start : start + page.size]
        next_token = PageRequest.next_token(start + len(ids), start + len(ids) < len(every))
        return [await self.tournament(i) for i in ids], next_token

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
