"""What every game's class shares: the facts' defaults and the methods that only hand over to its rules.

A game's `game.py` subclasses `BaseGame`, names its facts, gives its `rules` module (start, decide,
timeout, evolve: a module satisfies `Rules`) and its text's `format_command`, and writes only what
differs: configuration, parsing, status, views and results, and for `forms` and `example` only the
phase's templates (`phase_forms`) and a command (`example_command`): whether the seat may act, and the
command's canonical text, are written here once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from engine.contract import Context, Event, Status

S = TypeVar("S")
C = TypeVar("C")
C_contra = TypeVar("C_contra", contravariant=True)


class Rules(Protocol[S, C_contra]):
    """A game's rules.py: the decider's four functions, written once per game."""

    def start(self, state: S, ctx: Context) -> list[Event]: ...

    def decide(self, state: S, player: str, command: C_contra, ctx: Context) -> list[Event]: ...

    def timeout(self, state: S, ctx: Context) -> list[Event]: ...

    def evolve(self, state: S, event: Event) -> S: ...


class BaseGame(Generic[S, C]):
    """The shared half of engine.contract.Game; a subclass sets the facts and writes the rest."""

    name: str
    rules_version: str
    command_types: tuple[type, ...]
    default_seats: int
    allowed_seats: range
    wire_field: str
    arena_formats: tuple[str, ...]
    secret_config_keys: tuple[str, ...] = ()
    round_keys: tuple[str, ...] = ()
    phase_seconds_keys: tuple[str, ...] = ()
    reserve_seconds_keys: tuple[str, ...] = ()

    def __init__(self, rules: Rules[S, C], format_command: Callable[[C], str]) -> None:
        self._rules = rules
        self._format = format_command

    def start(self, state: S, ctx: Context) -> list[Event]:
        return self._rules.start(state, ctx)

    def format(self, command: C) -> str:
        return self._format(command)

    def forms(self, state: S, player: str) -> tuple[str, ...]:
        return self.phase_forms(state, player) if self.may_act(state, player) else ()

    def example(self, state: S, player: str) -> str | None:
        command = self.example_command(state, player) if self.may_act(state, player) else None
        return None if command is None else self.format(command)  # format: canonical by the contract

    def may_act(self, state: S, player: str) -> bool:
        """`player` is awaited now: what the generic checks (engine.match.check_may_submit) let through."""
        status = self.status(state)
        return not status.finished and player in status.awaiting

    def phase_forms(self, state: S, player: str) -> tuple[str, ...]:
        """The current phase's templates for `player`, who may act (the game's text module writes them)."""
        raise NotImplementedError

    def example_command(self, state: S, player: str) -> C | None:
        """A command `player`, who may act, could submit now, from what `player` may know (see `example`)."""
        raise NotImplementedError

    def status(self, state: S) -> Status:
        raise NotImplementedError  # every game writes its own

    def decide(self, state: S, player: str, command: C, ctx: Context) -> list[Event]:
        return self._rules.decide(state, player, command, ctx)

    def timeout(self, state: S, ctx: Context) -> list[Event]:
        return self._rules.timeout(state, ctx)

    def evolve(self, state: S, event: Event) -> S:
        return self._rules.evolve(state, event)

    def explain(self, event: Event) -> list[str]:
        """Every game writes the lines that justify a resolution into its event's "trace"."""
        trace = event.get("trace")
        return [str(line) for line in trace] if isinstance(trace, list) else []
