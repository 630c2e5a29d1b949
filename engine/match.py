"""Generic checks written once, and the fold: every game only writes its own rules.

The generic checks run before a game's `decide`: the match is over, the actor is not a player of the
match, the actor has nothing to submit in this phase, a binding submission was already made.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.contract import Context, Event, Game, Json, Status
from engine.errors import AlreadySubmitted, NotYourTurn
from engine.rng import rng_for


def context(seed: int, version: int, now: float) -> Context:
    return Context(now=now, rng=rng_for(seed, version), version=version)


def check_may_submit(game: Game[Any, Any], state: Any, player: str) -> None:
    status = game.status(state)
    if status.finished:
        raise NotYourTurn("the match is over; no more submissions are taken")
    if player not in game.players(state):
        raise NotYourTurn(f"{player!r} is not a player of this match")
    if player in status.awaiting:
        return
    if status.binding and player in status.submitted:
        raise AlreadySubmitted(f"{player} already submitted in {status.phase}; the first valid submission is binding")
    raise NotYourTurn(f"{player} has nothing to submit in {status.phase}")


def submit(game: Game[Any, Any], state: Any, player: str, command: Any, ctx: Context) -> list[Event]:
    """Generic checks, then the game's own rules."""
    check_may_submit(game, state, player)
    return game.decide(state, player, command, ctx)


def is_due(game: Game[Any, Any], state: Any, now: float) -> bool:
    return due(game.status(state), now)


def due(status: Status, now: float) -> bool:
    """Whether a phase with this status has reached its deadline at match-clock `now`."""
    return not status.finished and status.deadline is not None and now >= status.deadline


def fold(game: Game[Any, Any], state: Any, events: Iterable[Event]) -> Any:
    for event in events:
        state = game.evolve(state, event)
    return state


class LocalMatch:
    """A match played in process: the same decide/evolve loop as the server, without a store.

    Used by `matchctl simulate`, golden transcripts and engine tests.
    """

    def __init__(self, game: Game[Any, Any], config: Mapping[str, Json], seed: int, now: float = 0.0) -> None:
        self.game = game
        self.seed = seed
        self.now = now
        self.state = game.initial_state(config, seed)
        self.events: list[Event] = []
        self._apply(game.start(self.state, self._ctx(now)))

    def _ctx(self, now: float) -> Context:
        return context(self.seed, len(self.events), now)

    def _apply(self, events: list[Event]) -> list[Event]:
        for event in events:
            self.state = self.game.evolve(self.state, event)
            self.events.append(event)
        return events

    def submit(self, player: str, command: Any) -> list[Event]:
        return self._apply(submit(self.game, self.state, player, command, self._ctx(self.now)))

    def submit_text(self, player: str, text: str) -> list[Event]:
        return self.submit(player, self.game.parse(self.state, player, text))

    def expire(self) -> list[Event]:
        """End the current phase at its deadline (the clock jumps there)."""
        deadline = self.game.status(self.state).deadline
        if deadline is None:
            return []
        self.now = max(self.now, deadline)
        return self._apply(self.game.timeout(self.state, self._ctx(deadline)))

    def advance(self, seconds: float) -> list[Event]:
        """Move the clock on, applying every deadline passed on the way at its own time."""
        target = self.now + seconds
        applied: list[Event] = []
        while is_due(self.game, self.state, target):
            applied += self.expire()
        self.now = target
        return applied

    @property
    def finished(self) -> bool:
        return self.game.status(self.state).finished
