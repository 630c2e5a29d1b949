"""ArenaService over gRPC (protos/matchserver/v1/arena.proto): convert, call the arena, convert back.

Errors map to status codes by the same table as MatchService (server/grpc/plumbing.py). BotEvents is resumable: a
stream the server ends on purpose (shutdown, the bot's key rotated or revoked, its maximum age) carries
the `matchserver-resume-from` trailer, the last position it sent.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from typing import Any

import grpc

from matchserver.v1 import arena_pb2 as pb
from server.arena.log import ARENA_STREAM
from server.arena.service import Arena
from server.arena.verify import verify_server_streams, verify_tournament
from server.errors import BadRequest, Unauthenticated
from server.grpc import arena_convert as convert
from server.grpc.plumbing import (
    MalformedRequest,
    UnaryCalls,
    abort_for,
    add_service,
    bearer_token,
    end_stream,
    page_of,
    request_tag,
    unary,
)
from server.identities import BotAccount
from server.limits import check_reason, cut
from server.records import token_hash
from server.streams import StreamEnd, TooManyStreams, peer_address


class ArenaService:
    def __init__(self, arena: Arena, calls: UnaryCalls | None = None) -> None:
        self.arena = arena
        self.calls = calls or UnaryCalls()
        self.platform = arena.platform
        self.limits = arena.platform.limits

    @unary
    async def CreateBot(self, request: pb.CreateBotRequest, context: Any) -> pb.CreateBotResponse:
        bot, secret = await self.arena.accounts.create(
            bearer_token(context), request.name, request.auto_accept, request_tag(request, self.limits)
        )
        return convert.bot_response(pb.CreateBotResponse, bot, secret)

    @unary
    async def ListBots(self, request: pb.ListBotsRequest, context: Any) -> pb.ListBotsResponse:
        bots = await self.arena.accounts.listed(bearer_token(context))
        return convert.bots_page(bots, page_of(request))

    @unary
    async def RotateBotKey(self, request: pb.RotateBotKeyRequest, context: Any) -> pb.RotateBotKeyResponse:
        check_reason(request.reason, self.limits)
        bot, secret = await self.arena.accounts.rotate(bearer_token(context), request.name, request.reason)
        return convert.bot_response(pb.RotateBotKeyResponse, bot, secret)

    @unary
    async def RevokeBot(self, request: pb.RevokeBotRequest, context: Any) -> pb.RevokeBotResponse:
        check_reason(request.reason, self.limits)
        bot = await self.arena.accounts.revoke(bearer_token(context), request.name, request.reason)
        return convert.bot_response(pb.RevokeBotResponse, bot)

    @unary
    async def CreateChallenge(self, request: pb.CreateChallengeRequest, context: Any) -> pb.CreateChallengeResponse:
        if not request.game:
            raise BadRequest("game is required")
        challenge = await self.arena.challenges.create(
            bearer_token(context),
            request.game,
            list(request.bots),
            request.config_json,
            request_tag(request, self.limits),
        )
        return convert.challenge_response(pb.CreateChallengeResponse, challenge)

    @unary
    async def AnswerChallenge(self, request: pb.AnswerChallengeRequest, context: Any) -> pb.AnswerChallengeResponse:
        challenge = await self.arena.challenges.answer(bearer_token(context), request.challenge_id, request.accept)
        return convert.challenge_response(pb.AnswerChallengeResponse, challenge)

    @unary
    async def CreateTournament(self, request: pb.CreateTournamentRequest, context: Any) -> pb.CreateTournamentResponse:
        if not request.game:
            raise BadRequest("game is required")
        if min(request.games_per_pair, request.rounds, request.table_size) < 0:
            raise BadRequest("games_per_pair, rounds and table_size are 0 (the default) or more")
        tournament = await self.arena.organiser.create(
            bearer_token(context),
            request.game,
            list(request.bots),
            request.format,
            request.games_per_pair,
            request.rounds,
            request.table_size,
            request.config_json,
            cut(request.name, self.limits),
            request.seed if request.HasField("seed") else None,
            request_tag(request, self.limits),
        )
        return convert.tournament_response(pb.CreateTournamentResponse, tournament)

    @unary
    async def GetTournament(self, request: pb.GetTournamentRequest, context: Any) -> pb.GetTournamentResponse:
        tournament = await self.arena.tournament(request.tournament_id)
        return convert.tournament_response(pb.GetTournamentResponse, tournament)

    @unary
    async def ListTournaments(self, request: pb.ListTournamentsRequest, context: Any) -> pb.ListTournamentsResponse:
        tournaments, next_token = await self.arena.listed_tournaments(page_of(request))
        return convert.tournaments_page(tournaments, next_token)

    @unary
    async def VoidTournamentMatch(
        self, request: pb.VoidTournamentMatchRequest, context: Any
    ) -> pb.VoidTournamentMatchResponse:
        check_reason(request.reason, self.limits)
        tournament = await self.arena.organiser.void(
            bearer_token(context), request.tournament_id, request.match_id, request.reason, request.rematch
        )
        return convert.tournament_response(pb.VoidTournamentMatchResponse, tournament)

    @unary
    async def VerifyTournament(self, request: pb.VerifyTournamentRequest, context: Any) -> pb.VerifyTournamentResponse:
        ok, problem, records, checked = await verify_tournament(self.arena, request.tournament_id)
        return convert.verify_tournament_response(ok, problem, records, checked)

    @unary
    async def VerifyServerStreams(
        self, request: pb.VerifyServerStreamsRequest, context: Any
    ) -> pb.VerifyServerStreamsResponse:
        reports = await verify_server_streams(self.arena, bearer_token(context), request.identities, request.arena)
        return convert.stream_checks(reports)

    @unary
    async def Leaderboard(self, request: pb.LeaderboardRequest, context: Any) -> pb.LeaderboardResponse:
        if not request.game:
            raise BadRequest("game is required")
        await self.arena.catch_up()
        rows = self.arena.leaderboard(request.game)
        return convert.leaderboard_response(request.game, rows)

    async def BotEvents(self, request: Any, context: grpc.aio.ServicerContext) -> None:
        """The bot's notices after `after`, then each new one as it is written."""
        if isinstance(request, MalformedRequest):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, cut(request.error, self.limits))
        try:
            token = bearer_token(context)
            bot = await self.arena.accounts.bot_of(token)
            if request.after < 0:
                raise BadRequest("after must be 0 or more")
        except Exception as exc:
            await abort_for(exc, context, self.limits)
            return
        registry = self.platform.streams
        try:
            # Registered per bot (its own key in the registry), so a rotated or revoked key ends it.
            stream = registry.open(
                uuid.uuid5(ARENA_STREAM, bot.name), token_hash(token or ""), peer_address(context.peer()), placed=True
            )
        except TooManyStreams as exc:  # RESOURCE_EXHAUSTED, by the one table
            await abort_for(exc, context, self.limits)
            return
        sent = int(request.after)
        try:
            end, sent = await self._follow(bot, token, stream.ending, stream.opened_at, sent, context)
        finally:
            registry.close(stream)
        await end_stream(context, end, sent)

    async def _follow(
        self,
        bot: BotAccount,
        token: str | None,
        ending: asyncio.Future[StreamEnd],
        opened_at: float,
        sent: int,
        context: grpc.aio.ServicerContext,
    ) -> tuple[StreamEnd, int]:
        limits = self.platform.streams.limits
        while True:
            if self.platform.refresh_every is not None:
                await self.arena.catch_up()  # another node's notices
            try:
                await self.arena.accounts.bot_of(token)
            except Unauthenticated as exc:  # revoked or rotated on another node
                return StreamEnd(f"the credential of this stream was revoked: {exc}", revoked=True), sent
            for notice in self.arena.log.notices(bot.name, sent):
                if ending.done():
                    break
                try:
                    async with asyncio.timeout(limits.write_timeout):
                        await context.write(convert.notice_message(notice))
                except TimeoutError:
                    return StreamEnd(
                        f"the client did not take notice {notice.position} within {limits.write_timeout:g} s "
                        f"(StreamLimits.write_timeout); call again with after={sent}",
                        revoked=False,
                    ), sent
                sent = notice.position
            if ending.done():
                return ending.result(), sent
            age_left = opened_at + limits.max_age - time.monotonic()
            if age_left <= 0:
                return StreamEnd(
                    f"this stream reached its maximum age of {limits.max_age:g} s (StreamLimits.max_age); "
                    f"call again with after={sent}",
                    revoked=False,
                ), sent
            wait = min(5.0, self.platform.refresh_every or 5.0, age_left)
            await self.platform.wait_for_stream(ARENA_STREAM, self._moved_on(self.arena.log.version), wait, ending)

    def _moved_on(self, version: int) -> Callable[[], bool]:
        return lambda: self.arena.log.version > version


def serve_arena(service: ArenaService, server: grpc.aio.Server) -> None:
    add_service(server, service, pb, "ArenaService")


ARENA_SERVICE_NAME = pb.DESCRIPTOR.services_by_name["ArenaService"].full_name
