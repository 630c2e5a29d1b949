"""A seat's turn: the decision point at which it may act and has not, named by the version it opened at.

One rule, read from the match alone (never from a stream's memory), so every Play stream of a seat, a
resumed one, and the write that checks a Move all agree on it: the turn opened at the earliest version
from which, without a break, the phase (its words and deadline) has stayed the same and the seat has been
awaited with no submission of its own. A rollback opens a new turn; a pause does not end one. A Move
names the turn it was decided on, and is refused as stale if that is not the seat's turn now.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.contract import Json, Status, Viewer
from server.errors import Aborted, engine_step
from server.live import LiveMatch


@dataclass(frozen=True)
class TurnView:
    """A seat's turn, as its Play stream shows it (server/turns.py says when one is open)."""

    version: int  # the version the turn opened at (a Move names it)
    match_version: int  # the version the view is of
    seat: str
    game: str
    view: dict[str, Json]
    view_json: str  # `view` as JSON with sorted keys (the Update of the same version carries the same)
    status: Status
    forms: tuple[str, ...]  # the sentences the phase accepts, as templates
    example: str | None  # one command text the seat could send now
    clock: float
    deadline: float | None = None  # this seat's own deadline (Cookoff's reserve clock runs past the phase's)
    reserve: float | None = None  # the reserve seconds it still holds


# How far back a turn is looked for: a phase longer than this many records is rare (each submission of
# the others is one or two records), and a bound keeps the walk cheap on a long match.
MAX_WALK = 256


def may_act(status: Status, seat: str) -> bool:
    return not status.finished and seat in status.awaiting and seat not in status.submitted


def turn_of(live: LiveMatch, seat: str) -> int | None:
    """The version the seat's current turn opened at, or None when it may not act now."""
    current = live.status()
    if live.waiting or not may_act(current, seat):
        return None
    phase = (current.phase, current.deadline)
    opened = live.version
    while opened > 1 and live.version - opened < MAX_WALK:
        if live.records[opened - 1]["kind"] == "rollback":
            break  # play goes on from a restored state: a new decision
        before = live.status(opened - 1)
        if not may_act(before, seat) or (before.phase, before.deadline) != phase:
            break
        opened -= 1
    return opened


def check_turn(live: LiveMatch, seat: str, turn_version: int) -> None:
    """A Move decided on `turn_version` is applied only if that is the seat's turn now."""
    now = turn_of(live, seat)
    if now == turn_version:
        return
    if now is None:
        raise Aborted(
            f"stale move: it answers the turn at version {turn_version}, and {seat} may not act now "
            f"(the match is at version {live.version}); nothing was done"
        )
    raise Aborted(
        f"stale move: it answers the turn at version {turn_version}, but {seat}'s turn now opened at "
        f"version {now}; decide again on that Turn; nothing was done"
    )


def turn_view(live: LiveMatch, seat: str, server_now: float, shown: int | None = None) -> TurnView | None:
    """The seat's open turn as a Turn shows it, or None when it may not act now (or the match is paused),
    or when it is the turn `shown` (already sent: its view, forms and example are not built again)."""
    version = turn_of(live, seat)
    if version is None or version == shown or live.paused_at is not None:
        return None
    game, state, viewer = live.game, live.state, Viewer.of(seat)
    deadline, reserve = engine_step(lambda: game.clock_of(state, seat))
    return TurnView(
        version=version,
        match_version=live.version,
        seat=seat,
        game=game.name,
        view=live.view_at(live.version, viewer),
        view_json=live.facts.view_json(live.version, viewer),
        status=live.status(),
        forms=engine_step(lambda: tuple(game.forms(state, seat))),
        example=engine_step(lambda: game.example(state, seat)),
        clock=live.clock_at(server_now),
        deadline=deadline,
        reserve=reserve,
    )
