"""MatchService over gRPC (protos/matchserver/v1/matchserver.proto): each RPC converts the request, makes
one application call, and converts the answer back (server/grpc/convert.py). Subscribe alone reads the
live match, to build each viewer class's updates once and share them among its streams."""

from __future__ import annotations

import math
import time
from typing import Any

import grpc

from engine.contract import Game, Viewer
from engine.errors import MalformedCommand
from matchserver.v1 import matchserver_pb2 as pb
from server.errors import BadRequest, DataLoss, PermissionDenied, Unauthenticated
from server.fanout import StreamWake, WriteWatch
from server.grpc import convert
from server.grpc.dispute_service import DisputeRpcs
from server.grpc.play_service import PlayStream
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
from server.limits import check_command_text, check_reason, check_seat_name, cut
from server.links import join_link
from server.matches import Matches
from server.records import token_hash
from server.repository import parse_id
from server.streams import OpenStream, StreamEnd, TooManyStreams, peer_address

MAX_RECEIPTS = 1000  # per Verify request: the latest receipts prove the most


def _expected(request: Any) -> int | None:
    return request.expected_version if request.HasField("expected_version") else None


class MatchService(DisputeRpcs):
    def __init__(self, matches: Matches, calls: UnaryCalls | None = None) -> None:
        self.matches = matches
        self.calls = calls or UnaryCalls()  # shared with the other services: shutdown reports them
        self.page_url = ""  # the pages' address once they serve (invitations carry their links)
        self.commands = matches.commands
        self.seats = matches.seats
        self.disputes = matches.disputes
        self.hosting = matches.hosting
        self.queries = matches.queries
        self.callers = matches.callers
        self.hostkeys = matches.hostkeys
        self.limits = matches.limits

    @unary
    async def CreateMatch(self, request: pb.CreateMatchRequest, context: Any) -> pb.CreateMatchResponse:
        if not request.game:
            raise BadRequest("game is required")
        created = await self.commands.create(
            request.game,
            list(request.players),
            request.seed if request.HasField("seed") else None,
            request.config_json,
            bearer_token(context),
            request.private,
            request_tag(request, self.limits),
            request.starts_at if request.HasField("starts_at") else None,
        )
        return convert.created_response(pb.CreateMatchResponse, created, self.page_url)

    @unary
    async def JoinMatch(self, request: pb.JoinMatchRequest, context: Any) -> pb.JoinMatchResponse:
        check_seat_name(request.player, self.limits)
        tag = request_tag(request, self.limits)
        joined = await self.seats.join(
            parse_id(request.match_id), request.player, bearer_token(context), request.invitation, request.reissue, tag
        )
        return convert.join_response(joined)

    @unary
    async def InviteSeat(self, request: pb.InviteSeatRequest, context: Any) -> pb.InviteSeatResponse:
        check_seat_name(request.player, self.limits)
        tag = request_tag(request, self.limits)
        match_id = parse_id(request.match_id)
        invited = await self.seats.invite(match_id, request.player, bearer_token(context), tag)
        return convert.invite_response(invited, join_link(self.page_url, str(match_id), request.player, invited.secret))

    @unary
    async def CreateHostKey(self, request: pb.CreateHostKeyRequest, context: Any) -> pb.CreateHostKeyResponse:
        tag = request_tag(request, self.limits)
        key, secret = await self.hostkeys.create(bearer_token(context), request.name, tag)
        return convert.host_key_response(pb.CreateHostKeyResponse, key, secret)

    @unary
    async def ListHostKeys(self, request: pb.ListHostKeysRequest, context: Any) -> pb.ListHostKeysResponse:
        keys = await self.hostkeys.list(bearer_token(context))
        return convert.host_keys_response(keys)

    @unary
    async def RevokeHostKey(self, request: pb.RevokeHostKeyRequest, context: Any) -> pb.RevokeHostKeyResponse:
        key = await self.hostkeys.revoke(bearer_token(context), request.key_id, request.reason)
        return convert.host_key_response(pb.RevokeHostKeyResponse, key)

    @unary
    async def Submit(self, request: pb.SubmitRequest, context: Any) -> pb.SubmitResponse:
        match_id = parse_id(request.match_id)
        if request.player:
            check_seat_name(request.player, self.limits)
        which = request.WhichOneof("command")
        if which is None:
            raise BadRequest("a submission needs a command: text or typed")
        text: str | None = None
        typed = None
        if which == "text":
            text = request.text
            check_command_text(text, self.limits)
            if not text.strip():
                raise MalformedCommand("the text command is empty")
        else:
            message = request.typed

            def typed(game: Game[Any, Any]) -> Any:  # converted through the game of the match the write loads
                return convert.game_command(game, message)

        accepted = await self.commands.submit(
            match_id,
            bearer_token(context),
            request.player,
            text,
            typed,
            _expected(request),
            request_tag(request, self.limits),
        )
        return convert.write_response(pb.SubmitResponse, accepted)

    @unary
    async def ForcePhaseEnd(self, request: pb.ForcePhaseEndRequest, context: Any) -> pb.ForcePhaseEndResponse:
        check_reason(request.reason, self.limits)
        accepted = await self.hosting.force_phase_end(
            parse_id(request.match_id),
            bearer_token(context),
            request.reason,
            _expected(request),
            request_tag(request, self.limits),
        )
        return convert.write_response(pb.ForcePhaseEndResponse, accepted)

    @unary
    async def HostAction(self, request: pb.HostActionRequest, context: Any) -> pb.HostActionResponse:
        match_id = parse_id(request.match_id)
        check_reason(request.reason, self.limits)
        if not math.isfinite(request.seconds):
            raise BadRequest(f"seconds is {request.seconds}: every number must be finite")
        accepted = await self.hosting.host_action(
            match_id,
            bearer_token(context),
            request.action,
            request.reason,
            request.seconds,
            _expected(request),
            request_tag(request, self.limits),
        )
        return convert.write_response(pb.HostActionResponse, accepted)

    @unary
    async def Rollback(self, request: pb.RollbackRequest, context: Any) -> pb.RollbackResponse:
        match_id = parse_id(request.match_id)
        check_reason(request.reason, self.limits)
        accepted = await self.hosting.rollback(
            match_id,
            bearer_token(context),
            request.to_version,
            request.reason,
            request.reopen,
            request_tag(request, self.limits),
        )
        return convert.write_response(pb.RollbackResponse, accepted)

    @unary
    async def Fork(self, request: pb.ForkRequest, context: Any) -> pb.ForkResponse:
        match_id = parse_id(request.match_id)
        check_reason(request.reason, self.limits)
        tag = request_tag(request, self.limits)
        created = await self.hosting.fork(match_id, bearer_token(context), request.at_version, request.reason, tag)
        return convert.created_response(pb.ForkResponse, created)

    @unary
    async def Verify(self, request: pb.VerifyRequest, context: Any) -> pb.VerifyResponse:
        match_id = parse_id(request.match_id)
        if len(request.receipts) > MAX_RECEIPTS:
            raise BadRequest(f"at most {MAX_RECEIPTS} receipts per request, not {len(request.receipts)}")
        receipts = [convert.receipt_value(receipt) for receipt in request.receipts]
        return convert.verify_response(await self.queries.verify(match_id, bearer_token(context), receipts))

    @unary
    async def Audit(self, request: pb.AuditRequest, context: Any) -> pb.AuditResponse:
        match_id = parse_id(request.match_id)
        at = request.at_version if request.HasField("at_version") else None
        entries, next_token = await self.queries.audit(match_id, bearer_token(context), at, page_of(request))
        return convert.audit_response(entries, next_token)

    @unary
    async def GetState(self, request: pb.GetStateRequest, context: Any) -> pb.GetStateResponse:
        match_id = parse_id(request.match_id)
        at = request.at_version if request.HasField("at_version") else None
        return convert.state_response(await self.queries.state(match_id, bearer_token(context), at))

    @unary
    async def History(self, request: pb.HistoryRequest, context: Any) -> pb.HistoryResponse:
        match_id = parse_id(request.match_id)
        rows, next_token = await self.queries.history(match_id, bearer_token(context), page_of(request))
        return convert.history_response(rows, next_token)

    @unary
    async def ListMatches(self, request: pb.ListMatchesRequest, context: Any) -> pb.ListMatchesResponse:
        matches, next_token = await self.queries.list_matches(bearer_token(context), page_of(request))
        return convert.matches_page(matches, next_token)

    async def Subscribe(self, request: Any, context: grpc.aio.ServicerContext) -> None:
        """Stream a match's updates after from_version. A stream the server ends on purpose (a revoked
        credential, shutdown, its maximum age, a slow reader, the match quarantined) carries the
        RESUME_FROM trailer."""
        if isinstance(request, MalformedRequest):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, cut(request.error, self.limits))
        try:
            match_id = parse_id(request.match_id)
            token = bearer_token(context)
            live = await self.matches.load(match_id)
            viewer = await self.callers.viewer_for(live, token)
            if request.from_version < 0:
                raise BadRequest("from_version must be 0 or more")
        except Exception as exc:
            await abort_for(exc, context, self.limits)
            return
        registry = self.matches.streams
        try:
            # Seats and the host always get a place; spectators share the match's and their address's caps.
            placed = viewer.is_host or viewer.kind == "player"
            credential = token_hash(token) if token else None
            stream = registry.open(match_id, credential, peer_address(context.peer()), placed=placed)
        except TooManyStreams as exc:  # RESOURCE_EXHAUSTED, by the one table
            await abort_for(exc, context, self.limits)
            return
        try:
            start = min(request.from_version, live.version)
            end, sent = await self._follow(stream, token, viewer, start, context, request.bundle)
        finally:
            registry.close(stream)
        await end_stream(context, end, sent)

    async def _follow(
        self,
        stream: OpenStream,
        token: str | None,
        viewer: Viewer,
        sent: int,
        context: grpc.aio.ServicerContext,
        bundle: bool = False,
    ) -> tuple[StreamEnd, int]:
        """Write updates until the stream is asked to end or ends itself; (why, last version sent)."""
        watch = WriteWatch(self.matches.streams.limits.write_timeout)  # one timer per stream, not one per message
        wake = StreamWake(self.matches.changes, stream.match_id, stream.ending, self.matches.repository.cached)
        try:
            return await self._follow_watched(stream, token, viewer, sent, context, bundle, watch, wake)
        finally:
            watch.close()
            wake.close()

    async def _follow_watched(
        self,
        stream: OpenStream,
        token: str | None,
        viewer: Viewer,
        sent: int,
        context: grpc.aio.ServicerContext,
        bundle: bool,
        watch: WriteWatch,
        wake: StreamWake,
    ) -> tuple[StreamEnd, int]:
        limits, updates = self.matches.streams.limits, self.matches.streams.updates
        stream.sent = sent
        while True:
            try:
                live = await self.matches.load(stream.match_id)
            except DataLoss as exc:  # quarantined while this stream was open: a stored record cannot be read
                return StreamEnd(str(exc), revoked=False, lost=True), sent
            try:  # replaced or revoked by another server process: seen once this copy has caught up
                await self.callers.viewer_for(live, token)
            except (Unauthenticated, PermissionDenied) as exc:
                return StreamEnd(f"the credential of this stream was revoked: {exc}", revoked=True), sent
            last = live.version
            pending: list[bytes] = []  # bundle: this pass's updates, written as one message
            for version in range(sent + 1, last + 1):
                if stream.ending.done():  # a revoked credential gets not one more update
                    break
                key = (live.id, viewer, version, last)
                update = updates.get(key, convert.update_bytes, live, viewer, version, last)
                if bundle:
                    pending.append(update)
                    continue
                if not await _write_update(stream, watch, context, update):
                    return _slow_reader(version, sent, limits.write_timeout), sent
                sent = stream.sent = version
            if pending:
                whole = sent + len(pending) == last  # the whole pass, not cut short by a revocation: shared
                message = (
                    updates.bundle(live.id, viewer, sent + 1, last, convert.bundled_updates, pending)
                    if whole
                    else convert.bundled_updates(pending)
                )
                if not await _write_update(stream, watch, context, message):
                    return _slow_reader(sent + 1, sent, limits.write_timeout), sent
                sent = stream.sent = sent + len(pending)
            if stream.ending.done():
                return stream.ending.result(), sent
            age_left = stream.opened_at + limits.max_age - time.monotonic()
            if age_left <= 0:
                return StreamEnd(
                    f"this stream reached its maximum age of {limits.max_age:g} s (StreamLimits.max_age); "
                    f"subscribe again from version {sent}",
                    revoked=False,
                ), sent
            await wake.wait(sent, min(5.0, self.matches.refresh_every or 5.0, age_left))  # one timer per stream

    async def Play(self, requests: Any, context: grpc.aio.ServicerContext) -> None:
        """One seat's stream (server/grpc/play_service.py)."""
        await PlayStream(self.matches, context).run(requests)


# The calls a match's start opens (a creation, its seats' joins, their Play streams), which come in bursts:
# each waits for its own next call instead of behind every other method's (plumbing.add_service).
OPENED_BY_A_START = ("CreateMatch", "JoinMatch", "Play")


def serve_matches(service: MatchService, server: grpc.aio.Server) -> None:
    add_service(server, service, pb, "MatchService", by_method=OPENED_BY_A_START)


SERVICE_NAME = pb.DESCRIPTOR.services_by_name["MatchService"].full_name


async def _write_update(stream: OpenStream, watch: WriteWatch, context: Any, update: bytes) -> bool:
    """One serialized message; False if the client has not taken it within StreamLimits.write_timeout."""
    stream.writing = len(update)
    try:
        return await watch.write(context, update)  # bytes: the serializer passes them through
    finally:
        stream.writing = 0


def _slow_reader(version: int, sent: int, timeout: float) -> StreamEnd:
    return StreamEnd(
        f"the client did not take update {version} within {timeout:g} s "
        f"(StreamLimits.write_timeout); subscribe again from version {sent}",
        revoked=False,
    )
