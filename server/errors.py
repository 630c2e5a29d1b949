"""Errors of the server layer, and which refusal each is (REFUSALS: the gRPC edge and the pages answer by it)."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import TypeVar

from engine.errors import AlreadySubmitted, GameError, InvalidConfig, MalformedCommand, NotYourTurn, RuleViolation

log = logging.getLogger(__name__)
T = TypeVar("T")


class ServerError(Exception):
    """Base of the server's own errors."""


class NotFound(ServerError):
    pass


class Unauthenticated(ServerError):
    pass


class PermissionDenied(ServerError):
    pass


class Aborted(ServerError):
    """A lost race or a stale expected version: nothing was written; reload and retry."""


class Conflict(Aborted):
    """Another node wrote to one of several streams written together first: nothing landed; read what was
    missed and decide again (server/application/platform.py write_together)."""


class BadRequest(ServerError):
    """A request that is malformed regardless of the game (missing field, bad JSON)."""


class FailedPrecondition(ServerError):
    """The request is well-formed but the match is not in a state that allows it (e.g. a claimed seat)."""


class ResourceExhausted(ServerError):
    """A quota is used up (the message names the setting)."""


class DataLoss(ServerError):
    """A stored record of a match cannot be read or applied: the match is quarantined (DATA_LOSS)."""


class StartupRefused(ServerError):
    """The server will not start on what it was given (an unreadable store file, a missing chain key, TLS
    files, a public address in plaintext, a taken address): `matchserver` prints why and exits with
    `exit_code`, 2 for settings that cannot work, 1 for the machine's state."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class Unavailable(ServerError):
    """The server could not complete the request now (nothing was written); retrying may succeed."""


class UnknownRecord(ServerError):
    """A match record of a kind the server does not know: a bug, or a record from a newer release."""


class EngineFault(ServerError):
    """The engine failed on a request it should have decided (a bug: the caller sent nothing wrong).
    Nothing was written; the message carries the id of the server log line with the traceback."""


def engine_step(step: Callable[[], T]) -> T:
    """Run engine code: its refusals (GameError) pass; anything else is an EngineFault, logged with an id."""
    try:
        return step()
    except GameError:
        raise
    except Exception:
        log_id = secrets.token_hex(4)
        log.exception("engine error while deciding a request (log id %s)", log_id)
        raise EngineFault(
            f"the command could not be applied: the engine failed (server log id {log_id}); nothing was written"
        ) from None


# Every refusal the server answers with, named by the gRPC status that says it (most specific first: the
# first matching class decides). server/grpc/plumbing.py sends that status, server/web/refusals.py its HTTP
# twin, so a call and a page refuse alike; an error in no row is a server bug (INTERNAL, or a 500).
REFUSALS: list[tuple[type[Exception], str]] = [
    (MalformedCommand, "INVALID_ARGUMENT"),
    (InvalidConfig, "INVALID_ARGUMENT"),
    (BadRequest, "INVALID_ARGUMENT"),
    (AlreadySubmitted, "FAILED_PRECONDITION"),
    (NotYourTurn, "FAILED_PRECONDITION"),
    (RuleViolation, "FAILED_PRECONDITION"),
    (NotFound, "NOT_FOUND"),
    (Unauthenticated, "UNAUTHENTICATED"),
    (PermissionDenied, "PERMISSION_DENIED"),
    (Aborted, "ABORTED"),
    (FailedPrecondition, "FAILED_PRECONDITION"),
    (ResourceExhausted, "RESOURCE_EXHAUSTED"),
    (Unavailable, "UNAVAILABLE"),
    (DataLoss, "DATA_LOSS"),
    # The engine failed on a request it should have decided: the caller sent nothing wrong. The message
    # carries the id of the log line with the traceback (engine_step).
    (EngineFault, "INTERNAL"),
    (UnknownRecord, "INTERNAL"),
]


def refusal_of(exc: Exception) -> str | None:
    """The gRPC status name of the refusal `exc` is, or None for a server bug."""
    for cls, name in REFUSALS:
        if isinstance(exc, cls):
            return name
    return None
