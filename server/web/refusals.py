"""What a refusal answers over HTTP: the status that says what was wrong, and its own words. The same
classes as server/grpc/plumbing.py's ERROR_CODES, so a page and a gRPC call refuse alike."""

from __future__ import annotations

from aiohttp import web

from engine.errors import GameError, InvalidConfig, MalformedCommand, RuleViolation
from server.errors import (
    Aborted,
    BadRequest,
    DataLoss,
    FailedPrecondition,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    ServerError,
    Unauthenticated,
    Unavailable,
)

# What each refusal answers over HTTP (the same classes as server/grpc/plumbing.py's ERROR_CODES).
STATUS: list[tuple[type[Exception], int]] = [
    (MalformedCommand, 400),
    (InvalidConfig, 400),
    (BadRequest, 400),
    (RuleViolation, 409),
    (NotFound, 404),
    (Unauthenticated, 403),
    (PermissionDenied, 403),
    (Aborted, 409),
    (FailedPrecondition, 409),
    (ResourceExhausted, 429),
    (Unavailable, 503),
    (DataLoss, 503),
    (GameError, 400),
]
REFUSALS = (ServerError, GameError)  # what a page's call may answer with: shown, never a 500


def status_of(exc: Exception) -> int:
    for kind, status in STATUS:
        if isinstance(exc, kind):
            return status
    return 500


def refuse(status: int, message: str) -> web.HTTPException:
    """An error page: plain text that says what was wrong (the page's words end with a newline)."""
    kinds: dict[int, type[web.HTTPException]] = {
        400: web.HTTPBadRequest,
        403: web.HTTPForbidden,
        404: web.HTTPNotFound,
        405: web.HTTPMethodNotAllowed,
        409: web.HTTPConflict,
        410: web.HTTPGone,
        412: web.HTTPPreconditionFailed,
        429: web.HTTPTooManyRequests,
        500: web.HTTPInternalServerError,
        503: web.HTTPServiceUnavailable,
    }
    text = message if message.endswith("\n") else message + "\n"
    if status == 405:
        return web.HTTPMethodNotAllowed("POST", ["GET"], text=text)
    return kinds.get(status, web.HTTPBadRequest)(text=text)
