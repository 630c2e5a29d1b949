"""A match that waits for its players (created records since issue 24 carry `waits`): when it opens, and
what its status says until then. Read from the live match; nothing here writes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from engine import match as rules
from engine.contract import Game, Status


class LiveMatch(Protocol):
    """What these rules read of a live match (server/live.py)."""

    game: Game[Any, Any]

    @property
    def header(self) -> Mapping[str, Any]: ...
    @property
    def tokens(self) -> Mapping[str, tuple[str, str | None]]: ...
    @property
    def players(self) -> tuple[str, ...]: ...
    @property
    def clock_offset(self) -> float: ...
    @property
    def waiting(self) -> bool: ...
    @property
    def state(self) -> Any: ...


def starts_at(live: LiveMatch) -> float | None:
    """The match-clock time the host set for the first phase to open, if any."""
    at = live.header.get("starts_at")
    return None if at is None else float(at) - live.clock_offset


def unclaimed(live: LiveMatch) -> list[str]:
    claimed = {who for role, who in live.tokens.values() if role == "player"}
    return [player for player in live.players if player not in claimed]


def due_to_start(live: LiveMatch, now: float) -> bool:
    """A waiting match opens at the host's start time, or else once its last seat is claimed."""
    at = starts_at(live)
    return now >= at if at is not None else not unclaimed(live)


def is_due(live: LiveMatch, now: float) -> bool:
    """Whether something is due at match-clock `now`: a waiting match's start, or a phase's deadline."""
    if live.waiting:
        return due_to_start(live, now)
    return rules.is_due(live.game, live.state, now)


def waiting_status(live: LiveMatch) -> Status:
    at = starts_at(live)
    if at is not None:
        return Status("waiting for players: the first phase opens at the host's start time", frozenset(), deadline=at)
    seats = unclaimed(live)
    if not seats:  # every seat is claimed but the start was not written (a crash between): due now
        return Status(
            "waiting for players: every seat is claimed, starting", frozenset(), deadline=float(live.header["at"])
        )
    return Status(f"waiting for players: {', '.join(seats)} to join", frozenset())
