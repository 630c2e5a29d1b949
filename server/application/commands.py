"""The writes to a match: each one loads it, checks the caller, decides (the engine for the game, the
envelope for the match's own rules), and appends through the unit of work."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Sequence
from typing import Any

from engine import match as rules
from engine.errors import InvalidConfig
from engine.registry import get_game
from server import decisions, waiting
from server.access import Access, UnknownToken
from server.application.callers import Callers, accepted, replayed
from server.application.queries import MatchQueries
from server.application.values import Accepted, Created
from server.clock import Clock
from server.decisions import start_records
from server.envelope import cause, created_record, game_records
from server.errors import Aborted, FailedPrecondition, PermissionDenied, ResourceExhausted, Unauthenticated, engine_step
from server.hostkeys import HostKeys
from server.limits import Limits, check_seat_names, match_config, parse_config_json
from server.live import LiveMatch
from server.records import Record, token_hash
from server.repository import LiveMatches
from server.requests import RequestTag, Secrets, tagged
from server.turns import check_turn
from server.unit_of_work import UnitOfWork


class MatchCommands:
    def __init__(
        self,
        matches: LiveMatches,
        uow: UnitOfWork,
        callers: Callers,
        hostkeys: HostKeys,
        queries: MatchQueries,
        secrets: Secrets,
        limits: Limits,
    ) -> None:
        self.matches = matches
        self.uow = uow
        self.callers = callers
        self.hostkeys = hostkeys
        self.queries = queries
        self.secrets = secrets
        self.limits = limits
        self.access: Access = callers.access
        self.clock: Clock = uow.clock

    async def create(
        self,
        game_name: str,
        players: Sequence[str],
        seed: int | None,
        overrides_json: str,
        token: str | None = None,
        private: bool = False,
        tag: RequestTag | None = None,
        starts_at: float | None = None,
    ) -> Created:
        """A new match. It waits for its players: its first phase opens when its last seat is claimed, when
        the host starts it, or at `starts_at` (server time, Unix seconds) if the host set one."""
        try:
            creator = self.access.creator(token)
        except UnknownToken:
            await self.hostkeys.refresh()  # a host key another server process has just created
            creator = self.access.creator(token)
        most = None if creator == "admin" else self.access.quotas.max_live_matches_per_host_key
        if tag is not None or most is not None:  # a retry (the match made for this request)? The key's quota
            request_id = None if tag is None else tag.request_id
            existing, unfinished = await self.queries.before_creating(creator, request_id, most)
            if existing is not None and tag is not None:
                return self.callers.created_again(await self.matches.load(existing), tag)
            if most is not None:
                self.access.check_quota(creator, unfinished)
        game = get_game(game_name)
        check_seat_names(players, self.limits)
        players = list(players)
        if not players or len(set(players)) != len(players):
            raise InvalidConfig("players must be distinct, non-empty names")
        config = match_config(game, players, parse_config_json(overrides_json, self.limits), self.limits)
        seed = secrets.randbelow(2**53) if seed is None else seed
        live = LiveMatch(uuid.uuid4(), game)
        host_token = self.secrets.new(tag, str(live.id), "host")
        invitations = {player: self.secrets.new(tag, str(live.id), "invitation", player) for player in players}
        now = self.clock.now()
        decisions.check_starts_at(starts_at, now)
        # waits: no clock runs before its players can act (earlier releases started at once)
        extra: dict[str, Any] = {"waits": True} if starts_at is None else {"waits": True, "starts_at": starts_at}
        created = created_record(
            game,
            players,
            config,
            seed,
            host_token=token_hash(host_token),
            invitations={player: token_hash(secret) for player, secret in invitations.items()},
            host_key=None if creator == "admin" else creator,
            private=private,
            at=now,
            **extra,
        )
        live.apply(created)  # validates the configuration before anything is written
        engine_step(lambda: game.start(live.state, rules.context(seed, live.game_version, now)))  # it can start
        live = LiveMatch(live.id, game)
        await self.uow.append(live, tagged([created], tag, creator))
        self.matches.remember(live)
        self.access.token_owner[token_hash(host_token)] = live.id
        self.access.created(creator)
        return Created(live, host_token, invitations)

    async def submit(
        self,
        match_id: uuid.UUID,
        token: str | None,
        as_player: str,
        text: str | None,
        command: Any,
        expected_version: int | None,
        tag: RequestTag | None = None,
        turn_version: int | None = None,
        with_records: bool = True,
    ) -> Accepted:
        """A player's command. `turn_version` (a Play stream's Move): the turn it was decided on, refused
        as stale unless that is the seat's turn now (server/turns.py). `with_records=False`: the answer
        carries no records (a Play stream sends them as Updates anyway), which saves building them."""
        if not token:
            raise Unauthenticated("submitting needs a player's token (authorization metadata)")

        async def act(live: LiveMatch) -> Accepted:
            viewer = await self.callers.viewer_for(live, token)
            if viewer.kind != "player" or viewer.player is None:
                raise PermissionDenied("only a player submits commands; use that player's token")
            player = viewer.player
            if as_player and as_player != player:
                raise PermissionDenied(f"this token is {player}'s; a player can act only as themself")
            caller = f"seat:{player}"
            again = replayed(live, caller, tag, viewer)
            if again is not None:
                return again
            if expected_version is not None and expected_version != live.version:
                raise Aborted(f"stale version: the match is at version {live.version}, not {expected_version}")
            if live.cancelled_at:
                raise FailedPrecondition("the match was cancelled by the host: it takes no more submissions")
            if live.paused_at is not None:
                raise FailedPrecondition("the match is paused by the host; submissions wait until it resumes")
            now = self.uow.now(live)
            await self._expire_due(live, now)
            if live.waiting:
                raise FailedPrecondition(f"the match has not started: it is {live.status().phase}")
            if turn_version is not None:
                check_turn(live, player, turn_version)
            most = self.limits.max_submissions_per_seat_per_phase
            if live.phase_submissions[player] >= most:
                raise ResourceExhausted(
                    f"{player} has made {live.phase_submissions[player]} submissions in this phase: "
                    f"max_submissions_per_seat_per_phase is {most}; the last one stands"
                )
            game, state = live.game, live.state
            if text is not None:
                typed = engine_step(lambda: game.parse(state, player, text))
            else:  # a typed command, or (from the gRPC edge) its converter through this match's game
                typed = command(game) if callable(command) else command
            events = decisions.decide_submission(live, player, typed, now)
            batch = game_records(events, cause(player, typed, text), now)
            written = await self.uow.append(live, tagged(batch, tag, caller))
            return accepted(live, viewer, written, engine_step(lambda: game.format(typed)), shown=with_records)

        return await self.uow.write(match_id, act)

    async def expire_due(self, match_id: uuid.UUID) -> int:
        """Apply every deadline that has passed (the ticker calls this); returns records written."""
        async with self.matches.locks[match_id]:
            live = await self.matches.load(match_id)
            if live.paused_at is not None:
                return 0
            return await self._expire_due(live, self.uow.now(live))

    async def _expire_due(self, live: LiveMatch, now: float) -> int:
        written = 0
        if live.cancelled_at:  # no deadline applies to a cancelled match
            return 0
        if live.waiting:
            if not waiting.due_to_start(live, now):
                return 0
            starts_at = waiting.starts_at(live)  # opened at the time the host set, like a deadline at its own time
            written += len(await self.uow.append(live, start_records(live, now if starts_at is None else starts_at)))
        while rules.due(live.status(), now):  # the kept status (server/version_facts.py), not the game asked again
            deadline = live.status().deadline
            assert deadline is not None
            written += len(await self.timeout(live, deadline, cause("clock", timeout=True)))
        return written

    async def timeout(
        self, live: LiveMatch, at: float, why: dict[str, Any], tag: RequestTag | None = None, caller: str = ""
    ) -> list[tuple[int, Record]]:
        events = decisions.decide_timeout(live, at)
        if not events:
            raise FailedPrecondition(f"nothing to end in {live.status().phase}")
        return await self.uow.append(live, tagged(game_records(events, why, at), tag, caller))


def new_seed() -> int:
    """A new match seed (recorded in the record that sets it: replay never draws it again)."""
    return secrets.randbelow(2**53)


class CommandRoom:
    """A room of commands beside MatchCommands (seats.py, hosting.py), working with the same parts."""

    def __init__(self, commands: MatchCommands) -> None:
        self.commands = commands  # its timeouts and new seeds
        self.matches = commands.matches
        self.uow = commands.uow
        self.callers = commands.callers
        self.hostkeys = commands.hostkeys
        self.queries = commands.queries
        self.secrets = commands.secrets
        self.limits = commands.limits
        self.access = commands.access
        self.clock = commands.clock
