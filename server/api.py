"""The gRPC services: convert the request, call the application layer, convert back.

One table maps every error family to its status code. Requests are parsed by our own deserializer,
so a malformed protobuf becomes INVALID_ARGUMENT instead of the library's INTERNAL.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
from google.protobuf.message import DecodeError, Message

from engine.contract import Viewer
from engine.errors import AlreadySubmitted, GameError, InvalidConfig, MalformedCommand, NotYourTurn, RuleViolation
from matchserver.v1 import matchserver_pb2 as pb
from server import convert
from server.errors import (
    Aborted,
    BadRequest,
    DataLoss,
    FailedPrecondition,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
    Unavailable,
)
from server.identities import HostKey
from server.limits import Limits, check_command_text, check_reason, check_seat_name, cut, request_size
from server.live import LiveMatch
from server.matches import Accepted, Created, Matches, receipt_at
from server.paging import PageRequest
from server.records import token_hash
from server.requests import request_tag
from server.streams import RESUME_FROM, OpenStream, StreamEnd, TooManyStreams, peer_address

log = logging.getLogger(__name__)

# Most specific first: the first matching class decides the code.
ERROR_CODES: list[tuple[type[Exception], grpc.StatusCode]] = [
    (MalformedCommand, grpc.StatusCode.INVALID_ARGUMENT),
    (InvalidConfig, grpc.StatusCode.INVALID_ARGUMENT),
    (BadRequest, grpc.StatusCode.INVALID_ARGUMENT),
    (AlreadySubmitted, grpc.StatusCode.FAILED_PRECONDITION),
    (NotYourTurn, grpc.StatusCode.FAILED_PRECONDITION),
    (RuleViolation, grpc.StatusCode.FAILED_PRECONDITION),
    (NotFound, grpc.StatusCode.NOT_FOUND),
    (Unauthenticated, grpc.StatusCode.UNAUTHENTICATED),
    (PermissionDenied, grpc.StatusCode.PERMISSION_DENIED),
    (Aborted, grpc.StatusCode.ABORTED),
    (FailedPrecondition, grpc.StatusCode.FAILED_PRECONDITION),
    (ResourceExhausted, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (Unavailable, grpc.StatusCode.UNAVAILABLE),
    (DataLoss, grpc.StatusCode.DATA_LOSS),
]
MAX_RECEIPTS = 1000  # per Verify request: the latest receipts prove the most
# Any other engine GameError (e.g. "the match is over" for a host action) is a precondition.
FALLBACK = grpc.StatusCode.FAILED_PRECONDITION


def status_code_for(exc: Exception) -> grpc.StatusCode | None:
    for cls, code in ERROR_CODES:
        if isinstance(exc, cls):
            return code
    return FALLBACK if isinstance(exc, GameError) else None


DEFAULT_LIMITS = Limits()


class MalformedRequest:
    """Stands for request bytes that were refused unparsed; the handler answers INVALID_ARGUMENT."""

    def __init__(self, error: str) -> None:
        self.error = error


def _safe_deserializer(message_class: type[Message], limits: Limits = DEFAULT_LIMITS) -> Callable[[bytes], Any]:
    def deserialize(data: bytes) -> Any:
        too_big = request_size(len(data), limits)  # checked before parsing: a huge request costs no parse
        if too_big is not None:
            return MalformedRequest(too_big)
        try:
            return message_class.FromString(data)
        except (DecodeError, RuntimeWarning, ValueError) as exc:
            return MalformedRequest(f"malformed protobuf request: {exc or 'it does not parse'}")

    return deserialize


ACCEPTED_AUTHORIZATION = (
    "send `authorization: Bearer <token>` (the admin token, a host key, a match's host token or a seat token) "
    "or `authorization: Spectator` to watch"
)


def _token(context: grpc.aio.ServicerContext) -> str | None:
    """The caller's bearer token, or None for an explicit spectator; no header at all is refused."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization":
            text = (value if isinstance(value, str) else value.decode()).strip()
            if text.lower() == "spectator":
                return None
            scheme, _, token = text.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise Unauthenticated(f"authorization is not understood: {ACCEPTED_AUTHORIZATION}")
            return token.strip()
    raise Unauthenticated(f"no authorization metadata: {ACCEPTED_AUTHORIZATION}")


def _page(request: Any) -> PageRequest:
    return PageRequest(request.page_size, request.page_token)


async def _abort_for(exc: Exception, context: grpc.aio.ServicerContext, limits: Limits = DEFAULT_LIMITS) -> None:
    code = status_code_for(exc)
    if code is None:
        raise exc
    await context.abort(code, cut(str(exc), limits))  # cut: a message may quote the caller's input


def _unary(method: Callable[[Any, Any, grpc.aio.ServicerContext], Awaitable[Any]]) -> Any:
    @functools.wraps(method)
    async def handler(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        if isinstance(request, MalformedRequest):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, cut(request.error, self.limits))
        try:
            return await method(self, request, context)
        except Exception as exc:  # mapped by the table; anything else propagates as a server bug
            await _abort_for(exc, context, self.limits)

    return handler


class MatchService:
    def __init__(self, matches: Matches) -> None:
        self.matches = matches
        self.limits = matches.limits

    @_unary
    async def CreateMatch(self, request: pb.CreateMatchRequest, context: Any) -> pb.CreateMatchResponse:
        if not request.game:
            raise BadRequest("game is required")
        seed = request.seed if request.HasField("seed") else None
        created = await self.matches.create(
            request.game,
            list(request.players),
            seed,
            request.config_json,
            _token(context),
            request.private,
            request_tag(request, self.limits),
            request.starts_at if request.HasField("starts_at") else None,
        )
        return _created_response(pb.CreateMatchResponse, created)

    @_unary
    async def JoinMatch(self, request: pb.JoinMatchRequest, context: Any) -> pb.JoinMatchResponse:
        match_id = Matches.parse_id(request.match_id)
        check_seat_name(request.player, self.limits)
        token, version = await self.matches.join(
            match_id,
            request.player,
            _token(context),
            request.invitation,
            request.reissue,
            request_tag(request, self.limits),
        )
        receipt = receipt_at(await self.matches.load(match_id), version)  # written records never change
        return pb.JoinMatchResponse(player_token=token, version=version, receipt=convert.receipt_message(receipt))

    @_unary
    async def InviteSeat(self, request: pb.InviteSeatRequest, context: Any) -> pb.InviteSeatResponse:
        match_id = Matches.parse_id(request.match_id)
        check_seat_name(request.player, self.limits)
        invitation, version = await self.matches.invite(
            match_id, request.player, _token(context), request_tag(request, self.limits)
        )
        receipt = receipt_at(await self.matches.load(match_id), version)
        return pb.InviteSeatResponse(invitation=invitation, version=version, receipt=convert.receipt_message(receipt))

    @_unary
    async def CreateHostKey(self, request: pb.CreateHostKeyRequest, context: Any) -> pb.CreateHostKeyResponse:
        key, secret = await self.matches.create_host_key(
            _token(context), request.name, request_tag(request, self.limits)
        )
        return pb.CreateHostKeyResponse(key=await self._host_key(key), host_key=secret)

    @_unary
    async def ListHostKeys(self, request: pb.ListHostKeysRequest, context: Any) -> pb.ListHostKeysResponse:
        keys = await self.matches.list_host_keys(_token(context))
        return pb.ListHostKeysResponse(keys=[await self._host_key(key) for key in keys])

    @_unary
    async def RevokeHostKey(self, request: pb.RevokeHostKeyRequest, context: Any) -> pb.RevokeHostKeyResponse:
        key = await self.matches.revoke_host_key(_token(context), request.key_id, request.reason)
        return pb.RevokeHostKeyResponse(key=await self._host_key(key))

    async def _host_key(self, key: HostKey) -> pb.HostKey:
        return pb.HostKey(
            key_id=key.key_id,
            name=key.name,
            created_at=key.created_at,
            revoked=key.revoked,
            live_matches=await self.matches.unfinished_of(key.key_id),
        )

    @_unary
    async def Submit(self, request: pb.SubmitRequest, context: Any) -> pb.SubmitResponse:
        match_id = Matches.parse_id(request.match_id)
        if request.player:
            check_seat_name(request.player, self.limits)
        which = request.WhichOneof("command")
        if which is None:
            raise BadRequest("a submission needs a command: text or typed")
        text: str | None = None
        command: Any = None
        if which == "text":
            text = request.text
            check_command_text(text, self.limits)
            if not text.strip():
                raise MalformedCommand("the text command is empty")
        else:
            live = await self.matches.load(match_id)
            command = convert.game_command(live.game, request.typed)
        expected = request.expected_version if request.HasField("expected_version") else None
        accepted = await self.matches.submit(
            match_id, _token(context), request.player, text, command, expected, request_tag(request, self.limits)
        )
        return _write_response(pb.SubmitResponse, accepted)

    @_unary
    async def ForcePhaseEnd(self, request: pb.ForcePhaseEndRequest, context: Any) -> pb.ForcePhaseEndResponse:
        match_id = Matches.parse_id(request.match_id)
        check_reason(request.reason, self.limits)
        expected = request.expected_version if request.HasField("expected_version") else None
        accepted = await self.matches.force_phase_end(
            match_id, _token(context), request.reason, expected, request_tag(request, self.limits)
        )
        return _write_response(pb.ForcePhaseEndResponse, accepted)

    @_unary
    async def HostAction(self, request: pb.HostActionRequest, context: Any) -> pb.HostActionResponse:
        match_id = Matches.parse_id(request.match_id)
        check_reason(request.reason, self.limits)
        if not math.isfinite(request.seconds):
            raise BadRequest(f"seconds is {request.seconds}: every number must be finite")
        expected = request.expected_version if request.HasField("expected_version") else None
        accepted = await self.matches.host_action(
            match_id,
            _token(context),
            request.action,
            request.reason,
            request.seconds,
            expected,
            request_tag(request, self.limits),
        )
        return _write_response(pb.HostActionResponse, accepted)

    @_unary
    async def Rollback(self, request: pb.RollbackRequest, context: Any) -> pb.RollbackResponse:
        match_id = Matches.parse_id(request.match_id)
        check_reason(request.reason, self.limits)
        accepted = await self.matches.rollback(
            match_id,
            _token(context),
            request.to_version,
            request.reason,
            request.reopen,
            request_tag(request, self.limits),
        )
        return _write_response(pb.RollbackResponse, accepted)

    @_unary
    async def Fork(self, request: pb.ForkRequest, context: Any) -> pb.ForkResponse:
        match_id = Matches.parse_id(request.match_id)
        check_reason(request.reason, self.limits)
        created = await self.matches.fork(
            match_id, _token(context), request.at_version, request.reason, request_tag(request, self.limits)
        )
        return _created_response(pb.ForkResponse, created)

    @_unary
    async def Verify(self, request: pb.VerifyRequest, context: Any) -> pb.VerifyResponse:
        match_id = Matches.parse_id(request.match_id)
        if len(request.receipts) > MAX_RECEIPTS:
            raise BadRequest(f"at most {MAX_RECEIPTS} receipts per request, not {len(request.receipts)}")
        receipts = [convert.receipt_value(receipt) for receipt in request.receipts]
        report = await self.matches.verify(match_id, _token(context), receipts)
        return pb.VerifyResponse(
            ok=report["ok"],
            checked_batches=report["checked"],
            version=report["version"],
            first_bad_version=report.get("first_bad_version", 0),
            problem=report.get("problem", ""),
            recorded_json=report.get("recorded_json", ""),
            recomputed_json=report.get("recomputed_json", ""),
            recorded_rules_version=report["recorded_rules_version"],
            current_rules_version=report["current_rules_version"],
            receipts_checked=report["receipts_checked"],
            unkeyed_until=report["unkeyed_until"],
        )

    @_unary
    async def Audit(self, request: pb.AuditRequest, context: Any) -> pb.AuditResponse:
        match_id = Matches.parse_id(request.match_id)
        at = request.at_version if request.HasField("at_version") else None
        entries, next_token = await self.matches.audit(match_id, _token(context), at, _page(request))
        return pb.AuditResponse(entries=[pb.AuditEntry(**entry) for entry in entries], next_page_token=next_token)

    @_unary
    async def GetState(self, request: pb.GetStateRequest, context: Any) -> pb.GetStateResponse:
        match_id = Matches.parse_id(request.match_id)
        at = request.at_version if request.HasField("at_version") else None
        live, viewer, version = await self.matches.state(match_id, _token(context), at)
        return pb.GetStateResponse(
            match_id=str(live.id),
            game=live.game.name,
            version=version,
            view_json=json.dumps(self.matches.view(live, viewer, version), sort_keys=True),
            status=convert.status_message(live.status(version), live.paused_after(version)),
            clock=self.matches.now(live),
            viewer=viewer.kind if viewer.player is None else f"player:{viewer.player}",
            players=list(live.players),
            results_json=_json_or_empty(live.visible_results(version)),
        )

    @_unary
    async def History(self, request: pb.HistoryRequest, context: Any) -> pb.HistoryResponse:
        match_id = Matches.parse_id(request.match_id)
        rows, next_token = await self.matches.history(match_id, _token(context), _page(request))
        events = [convert.event_message(v, record, gone) for v, record, gone in rows]
        return pb.HistoryResponse(events=events, next_page_token=next_token)

    @_unary
    async def ListMatches(self, request: pb.ListMatchesRequest, context: Any) -> pb.ListMatchesResponse:
        summaries = []
        matches, next_token = await self.matches.list_matches(_token(context), _page(request))
        for summary in matches:
            summaries.append(
                pb.MatchSummary(
                    match_id=str(summary.match_id),
                    game=summary.game,
                    players=list(summary.players),
                    version=summary.version,
                    phase=summary.phase,
                    finished=summary.finished,
                )
            )
        return pb.ListMatchesResponse(matches=summaries, next_page_token=next_token)

    async def Subscribe(self, request: Any, context: grpc.aio.ServicerContext) -> None:
        """Stream a match's updates after from_version. A stream the server ends on purpose (a revoked
        credential, shutdown, its maximum age, a slow reader, the match quarantined) carries the
        RESUME_FROM trailer."""
        if isinstance(request, MalformedRequest):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, cut(request.error, self.limits))
        try:
            match_id = Matches.parse_id(request.match_id)
            token = _token(context)
            live, viewer, _ = await self.matches.state(match_id, token, None)
            if request.from_version < 0:
                raise BadRequest("from_version must be 0 or more")
        except Exception as exc:
            await _abort_for(exc, context, self.limits)
            return
        registry = self.matches.streams
        try:
            # Seats and the host always get a place; spectators share the match's and their address's caps.
            placed = viewer.is_host or viewer.kind == "player"
            credential = token_hash(token) if token else None
            stream = registry.open(match_id, credential, peer_address(context.peer()), placed=placed)
        except TooManyStreams as exc:  # RESOURCE_EXHAUSTED, by the one table
            await _abort_for(exc, context, self.limits)
            return
        try:
            end, sent = await self._follow(stream, token, viewer, min(request.from_version, live.version), context)
        finally:
            registry.close(stream)
        await end_stream(context, end, sent)

    async def _follow(
        self, stream: OpenStream, token: str | None, viewer: Viewer, sent: int, context: grpc.aio.ServicerContext
    ) -> tuple[StreamEnd, int]:
        """Write updates until the stream is asked to end or ends itself; (why, last version sent)."""
        limits, updates = self.matches.streams.limits, self.matches.streams.updates
        stream.sent = sent
        while True:
            try:
                live = await self.matches.load(stream.match_id)
            except DataLoss as exc:  # quarantined while this stream was open: a stored record cannot be read
                return StreamEnd(str(exc), revoked=False, lost=True), sent
            try:  # replaced or revoked by another server process: seen once this copy has caught up
                await self.matches.viewer_for(live, token)
            except (Unauthenticated, PermissionDenied) as exc:
                return StreamEnd(f"the credential of this stream was revoked: {exc}", revoked=True), sent
            last = live.version
            for version in range(sent + 1, last + 1):
                if stream.ending.done():  # a revoked credential gets not one more update
                    break
                key = (live.id, viewer, version, last)
                update = updates.get(key, functools.partial(self._update, live, viewer, version, last))
                stream.writing = len(update)
                try:
                    # Not asyncio.wait_for: on Python 3.11 it can swallow the cancellation of a stream
                    # the client closed while the write completed, leaving a handler that never ends.
                    async with asyncio.timeout(limits.write_timeout):
                        await context.write(update)  # bytes: the serializer passes them through
                except TimeoutError:
                    return StreamEnd(
                        f"the client did not take update {version} within {limits.write_timeout:g} s "
                        f"(StreamLimits.write_timeout); subscribe again from version {sent}",
                        revoked=False,
                    ), sent
                except Exception:
                    if context.cancelled():  # the client closed the stream while a write was under way
                        raise asyncio.CancelledError() from None
                    raise
                finally:
                    stream.writing = 0
                sent = stream.sent = version
            if stream.ending.done():
                return stream.ending.result(), sent
            age_left = stream.opened_at + limits.max_age - time.monotonic()
            if age_left <= 0:
                return StreamEnd(
                    f"this stream reached its maximum age of {limits.max_age:g} s (StreamLimits.max_age); "
                    f"subscribe again from version {sent}",
                    revoked=False,
                ), sent
            wait = min(5.0, self.matches.refresh_every or 5.0, age_left)
            await self.matches.wait_for_change(stream.match_id, sent, timeout=wait, until=stream.ending)

    def _update(self, live: LiveMatch, viewer: Viewer, version: int, last: int) -> bytes:
        """Version `version` as `viewer`'s class sees it while the match is at `last`, serialized: built
        once per class and shared by its streams (server/fanout.py); the last version carries the view."""
        record = live.visible_record(version, viewer)  # a rollback's target is public: it is in every view
        update = pb.SubscribeResponse(event=convert.event_message(version, record))
        if record["kind"] == "rollback":
            update.rolled_back_to = int(record["to"])
        if version == last:
            update.view_json = json.dumps(self.matches.view(live, viewer, version), sort_keys=True)
            update.status.CopyFrom(convert.status_message(live.status(version), live.paused_after(version)))
        return update.SerializeToString()


async def end_stream(context: grpc.aio.ServicerContext, end: StreamEnd, sent: int) -> None:
    """End a stream the server ends on purpose: its status says why, its trailer where to resume."""
    code = grpc.StatusCode.UNAVAILABLE
    if end.revoked:
        code = grpc.StatusCode.UNAUTHENTICATED
    elif end.lost:
        code = grpc.StatusCode.DATA_LOSS
    await context.abort(code, end.message, trailing_metadata=((RESUME_FROM, str(sent)),))


def _json_or_empty(value: Any) -> str:
    return "" if value is None else json.dumps(value, sort_keys=True)


# The responses of writes that append to a match: one type per RPC, all of this shape.
WriteResponse = TypeVar(
    "WriteResponse", pb.SubmitResponse, pb.ForcePhaseEndResponse, pb.HostActionResponse, pb.RollbackResponse
)


def _write_response(kind: type[WriteResponse], accepted: Accepted) -> WriteResponse:
    return kind(
        version=accepted.version,
        events=[convert.event_message(version, record) for version, record in accepted.records],
        status=convert.status_message(accepted.status, accepted.paused),
        receipt=convert.receipt_message(accepted.receipt),
    )


# The responses of writes that make a match (a new one, or a fork): one type per RPC, of this shape.
CreatedResponse = TypeVar("CreatedResponse", pb.CreateMatchResponse, pb.ForkResponse)


def _created_response(kind: type[CreatedResponse], created: Created) -> CreatedResponse:
    live = created.live
    return kind(
        match_id=str(live.id),
        host_token=created.host_token,
        version=live.version,
        seed=live.seed,
        invitations=[pb.SeatInvitation(player=p, invitation=code) for p, code in created.invitations.items()],
        receipt=convert.receipt_message(receipt_at(live, live.version)),
    )


def _passing_bytes(serialize: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
    """A response serializer that sends bytes as they are: Subscribe writes updates serialized once and
    shared by every stream of a viewer class."""

    def serialize_or_pass(message: Any) -> bytes:
        return message if isinstance(message, bytes) else serialize(message)

    return serialize_or_pass


def service_handler(service: Any, module: Any = pb, name: str = "MatchService") -> grpc.GenericRpcHandler:
    """The method handlers of a service of `module` (generated code), built from its proto descriptor with
    safe deserializers: MatchService here, ArenaService in server/arena/api.py."""
    descriptor = module.DESCRIPTOR.services_by_name[name]
    handlers = {}
    for method in descriptor.methods:
        request_class = getattr(module, method.input_type.name)
        response_class = getattr(module, method.output_type.name)
        behaviour = getattr(service, method.name, None)
        if behaviour is None:  # not served yet: gRPC answers UNIMPLEMENTED
            continue
        make = grpc.unary_stream_rpc_method_handler if method.server_streaming else grpc.unary_unary_rpc_method_handler
        handlers[method.name] = make(
            behaviour,
            request_deserializer=_safe_deserializer(request_class, service.limits),
            response_serializer=_passing_bytes(response_class.SerializeToString),
        )
    return grpc.method_handlers_generic_handler(descriptor.full_name, handlers)
