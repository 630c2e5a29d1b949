"""The plumbing every gRPC service here shares: the one error table, our own request deserializer (a
malformed protobuf is INVALID_ARGUMENT, not the library's INTERNAL), the caller's bearer token, the
request's idempotency tag, and how a stream the server ends on purpose says why and where to resume.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
from collections.abc import Awaitable, Callable, Collection
from typing import Any

import grpc
from google.protobuf.message import DecodeError, Message

from server.errors import Unauthenticated, refusal_of
from server.limits import Limits, check_request_id, cut, request_size
from server.paging import PageRequest
from server.requests import RequestTag
from server.streams import RESUME_FROM, StreamEnd


def status_code_for(exc: Exception) -> grpc.StatusCode | None:
    """The status of the refusal `exc` is (server/errors.py REFUSALS), or None for a server bug."""
    name = refusal_of(exc)
    return None if name is None else grpc.StatusCode[name]


DEFAULT_LIMITS = Limits()


class MalformedRequest:
    """Stands for request bytes that were refused unparsed; the handler answers INVALID_ARGUMENT."""

    def __init__(self, error: str) -> None:
        self.error = error


def safe_deserializer(message_class: type[Message], limits: Limits = DEFAULT_LIMITS) -> Callable[[bytes], Any]:
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


def bearer_token(context: grpc.aio.ServicerContext) -> str | None:
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


def page_of(request: Any) -> PageRequest:
    return PageRequest(request.page_size, request.page_token)


async def abort_for(exc: Exception, context: grpc.aio.ServicerContext, limits: Limits = DEFAULT_LIMITS) -> None:
    code = status_code_for(exc)
    if code is None:
        raise exc
    await context.abort(code, cut(str(exc), limits))  # cut: a message may quote the caller's input


class UnaryCalls:
    """The unary calls in flight, so a shutdown can say how many it let finish or cut. Counted by `unary`
    (every unary method of ours), not by a server interceptor: any interceptor puts every call of the
    server on grpc.aio's slower path (11-45 µs of server CPU a call here: docs/BENCHMARKS.md, bench/grpc_floor.py)."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.cancelled = 0


def unary(method: Callable[[Any, Any, grpc.aio.ServicerContext], Awaitable[Any]]) -> Any:
    """A unary method of a service (which has `limits` and `calls`): malformed requests and the refusals of
    server/errors.py become their status codes; the call is counted in `calls` while it runs."""

    @functools.wraps(method)
    async def handler(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        calls: UnaryCalls = self.calls
        calls.in_flight += 1
        try:
            if isinstance(request, MalformedRequest):
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, cut(request.error, self.limits))
            try:
                return await method(self, request, context)
            except Exception as exc:  # mapped by the table; anything else propagates as a server bug
                await abort_for(exc, context, self.limits)
        except asyncio.CancelledError:
            calls.cancelled += 1
            raise
        finally:
            calls.in_flight -= 1

    return handler


def request_tag(request: Message, limits: Limits) -> RequestTag | None:
    """The request's idempotency tag (server/requests.py), or None when it has no request_id; a malformed
    id is INVALID_ARGUMENT. The fingerprint is a digest of the request without its id."""
    request_id = str(getattr(request, "request_id", ""))
    if not request_id:
        return None
    check_request_id(request_id, limits)
    request.ClearField("request_id")  # the body without its id, serialized without copying the request
    try:
        body = request.SerializeToString(deterministic=True)
    finally:
        setattr(request, "request_id", request_id)  # noqa: B010  # Message has no typed fields
    return RequestTag(request_id, hashlib.sha256(body).hexdigest()[:32])


async def end_stream(context: grpc.aio.ServicerContext, end: StreamEnd, sent: int) -> None:
    """End a stream the server ends on purpose: its status says why, its trailer where to resume."""
    code = grpc.StatusCode.UNAVAILABLE
    if end.revoked:
        code = grpc.StatusCode.UNAUTHENTICATED
    elif end.lost:
        code = grpc.StatusCode.DATA_LOSS
    await context.abort(code, end.message, trailing_metadata=((RESUME_FROM, str(sent)),))


def passing_bytes(serialize: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
    """A response serializer that sends bytes as they are: Subscribe writes updates serialized once and
    shared by every stream of a viewer class."""

    def serialize_or_pass(message: Any) -> bytes:
        return message if isinstance(message, bytes) else serialize(message)

    return serialize_or_pass


def add_service(server: grpc.aio.Server, service: Any, module: Any, name: str, by_method: Collection[str] = ()) -> None:
    """Serve the methods of a service of `module` (generated code), built from its proto descriptor with
    safe deserializers: MatchService (match_service.py) and ArenaService (arena_service.py).

    `by_method`: the methods also registered with gRPC by name, each then waiting for its own next call.
    grpc.aio takes the calls of all other methods one at a time, and under load a CreateMatch queued
    behind the Play streams and joins being opened (the duel bench's clients open five calls a match).
    Registering costs every new call something too (grpc.aio waits on all the methods' futures at once):
    all 37 registered made a unary Submit about 5% dearer. So only the methods a match's start opens."""
    descriptor = module.DESCRIPTOR.services_by_name[name]
    handlers = {}
    for method in descriptor.methods:
        request_class = getattr(module, method.input_type.name)
        response_class = getattr(module, method.output_type.name)
        behaviour = getattr(service, method.name, None)
        if behaviour is None:  # not served yet: gRPC answers UNIMPLEMENTED
            continue
        make = _handler_kind(method.client_streaming, method.server_streaming)
        handlers[method.name] = make(
            behaviour,
            request_deserializer=safe_deserializer(request_class, service.limits),
            response_serializer=passing_bytes(response_class.SerializeToString),
        )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(descriptor.full_name, handlers),))
    if by_method:
        server.add_registered_method_handlers(descriptor.full_name, {name: handlers[name] for name in by_method})


def _handler_kind(client_streaming: bool, server_streaming: bool) -> Any:
    if client_streaming:
        return grpc.stream_stream_rpc_method_handler if server_streaming else grpc.stream_unary_rpc_method_handler
    return grpc.unary_stream_rpc_method_handler if server_streaming else grpc.unary_unary_rpc_method_handler
