"""Errors of the server layer; server/grpc/plumbing.py maps them (and the engine's) to gRPC status codes."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import TypeVar

from engine.errors import GameError

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
