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
from dataclasses import dataclass
from typing import Any

from engine.errors import InvalidConfig
from engine.registry import get_game
from server.arena.accounts import BotAccounts
from server.arena.log import ARENA_STREAM, ArenaLog, Challenge, new_server_stream_id
from server.arena.platform import Conflict, MatchPlatform
from server.arena.ratings import Rating, ratings
from server.arena.results import ranks_of, rollbacks_of
from server.arena.tournament import FORMATS, TournamentLog, plan_for, scheduled_record
from server.bus import Appended, ServerStreamAppended
from server.errors import (
    BadRequest,
    DataLoss,
    FailedPrecondition,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
)
from server.identities import is_server_stream
from server.limits import parse_config_json
from server.live import LiveMatch
from server.records import Record
from server.requests import RequestTag, same_body
from server.unit_of_work import Again, retried

log = logging.getLogger(__name__)
WRITE_ATTEMPTS = 8


@dataclass(frozen=True)
class ArenaSettings:
    # An unanswered challenge expires after this many seconds.
    challenge_ttl: float = 600.0
    # A bot may hold at most this many open challenges from one challenger (the next is RESOURCE_EXHAUSTED):
    # counted per challenger, so one challenger's flood never locks a bot out of everyone else's.
    max_open_challenges_per_bot: int = 20
    # One challenger's open challenges, to all bots together.
    max_open_challenges_per_challenger: int = 50
    # A bot's own challenges (a bot key has no host-key quota): unfinished matches they started, and
    # challenges made in the last minute.
    max_live_matches_per_bot: int = 10
    max_challenges_per_minute_per_bot: int = 30
    # Unfinished tournaments one host key organises (the admin has no quota).
    max_live_tournaments_per_host_key: int = 3
    # Bots one host key registers (the admin has no quota).
    max_bots_per_host_key: int = 100
    # A tournament's bots (its draw and its matches grow with their square).
    max_bots_per_tournament: int = 64
    # A tournament's matches (pairs x games per pair, or rounds x tables), checked before it is drawn.
    max_tournament_matches: int = 2000
    # How often the ticker looks for arena matches that ended without this process recording it (another
    # node's write, a crash between a match's last write and its arena record): seconds.
    sweep_every: float = 2.0


@dataclass
class Step:
    """One optimistic write: records for the arena stream, for tournaments, and new matches."""

    arena: list[Record]
    tournaments: dict[str, list[Record]]
    matches: list[tuple[LiveMatch, list[Record]]]
    result: Any = None


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
        self._boards: dict[str, tuple[int, list[Rating]]] = {}
        self._next_sweep = (
            0.0  # when the tick next looks for ends the write hook missed  # game -> (arena version, its ratings)
        )
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

    async def _commit(self, plan: Callable[[], Awaitable[Step | None]]) -> Any:
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

    def _requested(self, kind: str, caller: str, tag: RequestTag | None) -> Record | None:
        """The arena record an earlier call with this request id wrote (a retry gets the same outcome)."""
        if tag is None:
            return None
        for record in self.log.records:
            request = record.get("request")
            if record["kind"] == kind and request and (request["caller"], request["id"]) == (caller, tag.request_id):
                same_body(request, tag)
                return record
        return None

    # --- challenges -------------------------------------------------------------------------------

    def _terms_checked(self, game: str, bots: Sequence[str], config_json: str) -> dict[str, Any]:
        """The configuration overrides, checked by building the match's first records (not written)."""
        self.accounts.registered(bots)
        overrides = parse_config_json(config_json, self.platform.limits)
        self.platform.prepare_match(game, {bot: bot for bot in bots}, overrides, "admin", {})
        return overrides

    async def create_challenge(
        self, token: str | None, game: str, bots: Sequence[str], config_json: str, tag: RequestTag | None
    ) -> Challenge:
        who = await self.accounts.caller(token)
        bots = list(bots)
        if who.startswith("bot:") and who[4:] not in bots:
            raise PermissionDenied(f"a bot challenges others to play with it: name {who[4:]} among the bots")
        overrides = self._terms_checked(game, bots, config_json)
        secret = sorted(set(getattr(get_game(game), "secret_config_keys", ())) & set(overrides))
        if who.startswith("bot:") and secret:
            # The challenged bots never see these terms, so a bot must not choose them for its own match.
            raise PermissionDenied(
                f"a bot's challenge may not set {', '.join(secret)}: the bots it challenges cannot see them"
            )
        if not who.startswith("bot:") and who != "admin":  # a host key: every match it makes counts
            self.platform.access.check_quota(who, await self.platform.unfinished_of(who))

        async def plan() -> Step | None:
            earlier = self._requested("challenge", who, tag)
            if earlier is not None:
                return Step([], {}, [], str(earlier["challenge"]))
            self._check_challenger(who, bots)
            identities = self.platform.access.identities
            accepted = [b for b in bots if identities.bots[b].auto_accept or who == f"bot:{b}"]
            challenge_id = str(new_server_stream_id())
            now = self.platform.clock.now()
            record: Record = {
                "kind": "challenge",
                "challenge": challenge_id,
                "game": game,
                "bots": bots,
                "config": overrides,
                "by": who,
                "expires_at": now + self.settings.challenge_ttl,
                "accepted": accepted,
                "at": now,
            }
            if tag is not None:
                record["request"] = tag.record(who)
            step = Step([record], {}, [], challenge_id)
            if len(accepted) == len(bots):
                self._start_challenge(step, challenge_id, game, bots, overrides, who)
            return step

        made = await self._commit(plan)
        if not who.startswith("bot:"):
            self.platform.access.created(who)  # a host key's creation, for its per-minute quota
        return self.log.challenges[str(made)]

    def _check_challenger(self, who: str, bots: Sequence[str]) -> None:
        """The challenger's limits: open challenges per bot and in all; a bot's own matches and rate."""
        settings, now = self.settings, self.platform.clock.now()
        mine = [c for c in self.log.challenges.values() if c.by == who]
        open_ = [c for c in mine if c.state == "open"]
        limit = settings.max_open_challenges_per_bot
        for bot in bots:
            if sum(bot in c.bots for c in open_) >= limit:
                raise ResourceExhausted(
                    f"bot {bot} already has {limit} open challenges from you: max_open_challenges_per_bot is {limit}"
                )
        if len(open_) >= settings.max_open_challenges_per_challenger:
            raise ResourceExhausted(
                f"you have {len(open_)} open challenges: max_open_challenges_per_challenger is "
                f"{settings.max_open_challenges_per_challenger}"
            )
        if not who.startswith("bot:"):
            return
        live = [c for c in mine if c.state == "started" and self.log.is_unfinished(c.match_id)]
        if len(live) >= settings.max_live_matches_per_bot:
            raise ResourceExhausted(
                f"{who[4:]}'s challenges have {len(live)} unfinished matches: max_live_matches_per_bot is "
                f"{settings.max_live_matches_per_bot}"
            )
        recent = [c for c in mine if c.expires_at - settings.challenge_ttl > now - 60.0]
        if len(recent) >= settings.max_challenges_per_minute_per_bot:
            raise ResourceExhausted(
                f"{who[4:]} made {len(recent)} challenges in the last minute: max_challenges_per_minute_per_bot "
                f"is {settings.max_challenges_per_minute_per_bot}"
            )

    def _start_challenge(
        self, step: Step, challenge_id: str, game: str, bots: Sequence[str], overrides: dict[str, Any], by: str
    ) -> None:
        organiser = "admin" if by.startswith("bot:") else by
        arena = {"challenge": challenge_id}
        live, records = self.platform.prepare_match(game, {bot: bot for bot in bots}, overrides, organiser, arena)
        step.matches.append((live, records))
        step.arena.append(
            {
                "kind": "seated",
                "match": str(live.id),
                "game": game,
                "seats": {bot: bot for bot in bots},
                "challenge": challenge_id,
                "tournament": None,
                "at": self.platform.clock.now(),
            }
        )

    async def answer_challenge(self, token: str | None, challenge_id: str, accept: bool) -> Challenge:
        bot = await self.accounts.bot_of(token)

        async def plan() -> Step | None:
            challenge = self.log.challenges.get(challenge_id)
            if challenge is None or bot.name not in challenge.bots:
                raise NotFound(f"no challenge {challenge_id!r} addressed to bot {bot.name}")
            if challenge.state != "open":
                if accept and bot.name in challenge.accepted:
                    return None  # answered already: a retry
                raise FailedPrecondition(f"challenge {challenge_id} is {challenge.state}")
            if accept and bot.name in challenge.accepted:
                return None
            now = self.platform.clock.now()
            step = Step(
                [{"kind": "answer", "challenge": challenge_id, "bot": bot.name, "accept": accept, "at": now}], {}, []
            )
            if accept and challenge.waiting_on() == [bot.name]:
                self._start_challenge(
                    step, challenge_id, challenge.game, challenge.bots, challenge.config, challenge.by
                )
            return step

        await self._commit(plan)
        return self.log.challenges[challenge_id]

    def _due_challenges(self) -> list[Challenge]:
        now = self.platform.clock.now()
        return [c for c in self.log.challenges.values() if c.state == "open" and c.expires_at <= now]

    async def expire_challenges(self) -> int:
        if not self._due_challenges():  # most ticks: nothing to write, so no commit (and no store read)
            return 0

        async def plan() -> Step | None:
            due, now = self._due_challenges(), self.platform.clock.now()
            if not due:
                return None
            return Step([{"kind": "expired", "challenge": c.challenge_id, "at": now} for c in due], {}, [], len(due))

        return int(await self._commit(plan) or 0)

    # --- tournaments ------------------------------------------------------------------------------

    async def create_tournament(
        self,
        token: str | None,
        game: str,
        bots: Sequence[str],
        format_name: str,
        games_per_pair: int,
        rounds: int,
        table_size: int,
        config_json: str,
        name: str,
        seed: int | None,
        tag: RequestTag | None,
    ) -> TournamentLog:
        organiser = await self.accounts.creator(token)
        get_game(game)  # an unknown game says which games there are
        if organiser != "admin":
            await self._check_organiser(organiser)
        bots = list(bots)
        await self.platform.refresh_identities()
        self.accounts.registered(bots)
        if len(bots) > self.settings.max_bots_per_tournament:
            raise BadRequest(f"{len(bots)} bots: max_bots_per_tournament is {self.settings.max_bots_per_tournament}")
        format_name = format_name or ("round-robin" if game == "cookoff" else "rotation")
        if format_name not in FORMATS:
            raise BadRequest(f"format {format_name!r}: use {' or '.join(FORMATS)}")
        if format_name == "round-robin":
            table_size, rounds, games_per_pair = 2, 0, games_per_pair or 1
        else:
            table_size = table_size or min(getattr(get_game(game), "default_seats", 2), len(bots))
            rounds, games_per_pair = rounds or len(bots), 0
            if not 2 <= table_size <= len(bots):
                raise BadRequest(f"table_size {table_size}: a table seats 2 to {len(bots)} of these bots")
        pairs = len(bots) * (len(bots) - 1) // 2
        total = pairs * games_per_pair if format_name == "round-robin" else rounds * (len(bots) // table_size)
        limit = self.settings.max_tournament_matches
        if total > limit:  # checked before the draw, whose cost grows with it
            raise BadRequest(f"this tournament would have {total} matches: max_tournament_matches is {limit}")
        overrides = parse_config_json(config_json, self.platform.limits)
        header: Record = {
            "kind": "tournament_created",
            "name": name,
            "game": game,
            "format": format_name,
            "bots": bots,
            "games_per_pair": games_per_pair,
            "rounds": rounds,
            "table_size": table_size,
            "config": overrides,
            "seed": seed if seed is not None else int.from_bytes(uuid.uuid4().bytes[:6], "big"),
            "organiser": organiser,
        }
        try:
            plan = await asyncio.to_thread(plan_for, header)  # a large draw takes seconds: off the loop
        except ValueError as exc:
            raise BadRequest(str(exc)) from None
        for round_ in plan[:1]:  # the game checks the configuration with a table of the drawn size
            for table in round_["tables"][:1]:
                try:
                    self.platform.prepare_match(game, {bot: bot for bot in table}, overrides, organiser, {})
                except InvalidConfig as exc:
                    raise InvalidConfig(f"a table of {len(table)} bots: {exc}") from None
        tournament_id = str(new_server_stream_id())

        async def step() -> Step | None:
            earlier = self._requested("tournament", organiser, tag)
            if earlier is not None:
                return Step([], {}, [], str(earlier["tournament"]))
            now = self.platform.clock.now()
            notice: Record = {
                "kind": "tournament",
                "tournament": tournament_id,
                "name": name,
                "game": game,
                "bots": bots,
                "at": now,
            }
            if tag is not None:
                notice["request"] = tag.record(organiser)
            self.tournaments[tournament_id] = TournamentLog(tournament_id)
            records = [{**header, "at": now}, scheduled_record(plan, now)]
            return Step([notice], {tournament_id: records}, [], tournament_id)

        made = str(await self._commit(step))
        await self.advance(made)
        return await self.tournament(made)

    async def _check_organiser(self, organiser: str) -> None:
        """A host key's quotas before it creates a tournament: its matches and its unfinished tournaments.
        (Its matches start round by round within max_live_matches_per_host_key: see `_room`.)"""
        running = 0
        for tournament_id in list(self.log.tournaments):
            tournament = await self.tournament(tournament_id)
            running += tournament.header.get("organiser") == organiser and not tournament.done()
        limit = self.settings.max_live_tournaments_per_host_key
        if running >= limit:
            raise ResourceExhausted(
                f"host key {organiser} organises {running} unfinished tournaments: "
                f"max_live_tournaments_per_host_key is {limit}"
            )
        self.platform.access.check_quota(organiser, await self.platform.unfinished_of(organiser))
        self.platform.access.created(organiser)

    async def _room(self, organiser: str) -> int | None:
        """How many more matches a host key's tournaments may start now (None: no limit, the admin)."""
        if organiser == "admin":
            return None
        most = self.platform.access.quotas.max_live_matches_per_host_key
        return max(0, most - await self.platform.unfinished_of(organiser))

    async def advance(self, tournament_id: str) -> None:
        """Start every match whose turn has come (one transaction per step), or record the end."""

        known = await self.tournament(tournament_id)
        room = await self._room(str(known.header.get("organiser", "admin")))

        async def plan() -> Step | None:
            tournament = await self.tournament(tournament_id)
            header = tournament.header
            # Within the organiser's quota of live matches: the rest start as others end (each tick asks).
            entries = tournament.to_start()[:room]
            now = self.platform.clock.now()
            if entries:
                step = Step([], {tournament_id: []}, [])
                for entry in entries:
                    seats = {bot: bot for bot in entry.seats}
                    arena = {"tournament": tournament_id, "index": entry.index}
                    live, records = self.platform.prepare_match(
                        str(header["game"]), seats, header["config"], str(header["organiser"]), arena
                    )
                    step.matches.append((live, records))
                    step.tournaments[tournament_id].append(
                        {"kind": "started", "index": entry.index, "match": str(live.id), "at": now}
                    )
                    step.arena.append(
                        {
                            "kind": "seated",
                            "match": str(live.id),
                            "game": header["game"],
                            "seats": seats,
                            "tournament": tournament_id,
                            "challenge": None,
                            "at": now,
                        }
                    )
                return step
            if tournament.needs_completion():
                standings = tournament.standings_json()
                return Step(
                    [{"kind": "tournament_finished", "tournament": tournament_id, "standings": standings, "at": now}],
                    {tournament_id: [{"kind": "completed", "standings": standings, "at": now}]},
                    [],
                )
            return None

        await self._commit(plan)

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
                await self.advance(tournament_id)
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

        result = await self._commit(plan)
        return str(result) if result else None

    async def void(
        self, token: str | None, tournament_id: str, match_id: str, reason: str, rematch: bool
    ) -> TournamentLog:
        who = await self.accounts.creator(token)
        if not reason.strip():
            raise BadRequest("a void needs a reason (it is recorded and shown in the tournament's audit)")

        async def plan() -> Step | None:
            tournament = await self.tournament(tournament_id)
            if who not in ("admin", tournament.header["organiser"]):
                raise PermissionDenied("only the tournament's organiser (or the admin) voids its matches")
            index = tournament.by_match.get(match_id)
            if index is None:
                raise NotFound(f"match {match_id} is not a match of tournament {tournament_id}")
            entry = tournament.entries[index]
            if entry.state == "voided":
                raise FailedPrecondition(f"match {match_id} is already voided")
            if entry.state != "finished":
                raise FailedPrecondition(
                    f"match {match_id} is still being played: correct it by rollback (matchctl rollback), "
                    "or cancel it and then void it"
                )
            now = self.platform.clock.now()
            new_index = max(tournament.entries) + 1 if rematch else None
            records: list[Record] = [
                {
                    "kind": "voided",
                    "index": index,
                    "match": match_id,
                    "reason": reason,
                    "by": who,
                    "rematch": new_index,
                    "at": now,
                }
            ]
            if new_index is not None:
                again = {
                    "index": new_index,
                    "round": entry.round,
                    "table": entry.table,
                    "seats": entry.seats,
                    "rematch_of": index,
                }
                records.append({"kind": "scheduled", "matches": [again], "at": now})
            arena = [{"kind": "voided", "match": match_id, "tournament": tournament_id, "reason": reason, "at": now}]
            return Step(arena, {tournament_id: records}, [])

        await self._commit(plan)
        await self.advance(tournament_id)
        return await self.tournament(tournament_id)

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
        await self.expire_challenges()
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
                await self.advance(tournament_id)
