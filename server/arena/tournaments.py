"""Tournaments: created with their whole draw, their matches started round by round within the
organiser's quota, finished matches recorded, and a finished match voided (with a rematch if asked)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence

from engine.errors import InvalidConfig
from engine.registry import get_game
from server.arena.log import new_server_stream_id
from server.arena.settings import Step
from server.arena.streams import ArenaRoom
from server.arena.tournament import FORMATS, TournamentLog, plan_for, scheduled_record
from server.errors import BadRequest, FailedPrecondition, NotFound, PermissionDenied, ResourceExhausted
from server.limits import parse_config_json
from server.records import Record
from server.requests import RequestTag


class TournamentOrganiser(ArenaRoom):
    async def create(
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
        format_name = format_name or get_game(game).arena_formats[0]
        if format_name not in FORMATS:
            raise BadRequest(f"format {format_name!r}: use {' or '.join(FORMATS)}")
        if format_name == "round-robin":
            table_size, rounds, games_per_pair = 2, 0, games_per_pair or 1
        else:
            table_size = table_size or min(get_game(game).default_seats, len(bots))
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
            earlier = self.arena.requested("tournament", organiser, tag)
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
            self.arena.tournaments[tournament_id] = TournamentLog(tournament_id)
            records = [{**header, "at": now}, scheduled_record(plan, now)]
            return Step([notice], {tournament_id: records}, [], tournament_id)

        made = str(await self.arena.commit(step))
        await self.advance(made)
        return await self.arena.tournament(made)

    async def _check_organiser(self, organiser: str) -> None:
        """A host key's quotas before it creates a tournament: its matches and its unfinished tournaments.
        (Its matches start round by round within max_live_matches_per_host_key: see `_room`.)"""
        running = 0
        for tournament_id in list(self.log.tournaments):
            tournament = await self.arena.tournament(tournament_id)
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

        async def plan() -> Step | None:
            tournament = await self.arena.tournament(tournament_id)
            header = tournament.header
            # Within the organiser's quota of live matches: the rest start as others end (each tick asks).
            # Counted here, under the arena's write lock: two advances at once (a creation's and the tick's)
            # would otherwise both count the places free before either started a match.
            room = await self._room(str(header.get("organiser", "admin")))
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

        await self.arena.commit(plan)

    async def void(
        self, token: str | None, tournament_id: str, match_id: str, reason: str, rematch: bool
    ) -> TournamentLog:
        who = await self.accounts.creator(token)
        if not reason.strip():
            raise BadRequest("a void needs a reason (it is recorded and shown in the tournament's audit)")

        async def plan() -> Step | None:
            tournament = await self.arena.tournament(tournament_id)
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

        await self.arena.commit(plan)
        await self.advance(tournament_id)
        return await self.arena.tournament(tournament_id)
