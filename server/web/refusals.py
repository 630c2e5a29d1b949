"""What a refusal answers over HTTP: the status that says what was wrong, and its own words, from the one
table of refusals (server/errors.py REFUSALS) the gRPC edge answers by too."""

from __future__ import annotations

from aiohttp import web

from engine.errors import GameError
from server.errors import ServerError, refusal_of

# The HTTP status of each refusal of server/errors.py's table (by its gRPC status name).
HTTP_STATUS = {
    "INVALID_ARGUMENT": 400,
    "FAILED_PRECONDITION": 409,
    "NOT_FOUND": 404,
    "UNAUTHENTICATED": 403,
    "PERMISSION_DENIED": 403,
    "ABORTED": 409,
    "RESOURCE_EXHAUSTED": 429,
    "UNAVAILABLE": 503,
    "DATA_LOSS": 503,
    "INTERNAL": 500,
}
REFUSALS = (ServerError, GameError)  # what a page's call may answer with: shown, never an unexplained 500


def status_of(exc: Exception) -> int:
    return HTTP_STATUS.get(refusal_of(exc) or "INTERNAL", 500)


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
