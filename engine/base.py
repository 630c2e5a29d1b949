"""What every game's class shares: the facts' defaults and the methods that only hand over to its rules.

A game's `game.py` subclasses `BaseGame`, names its facts, gives its `rules` module (start, decide,
timeout, evolve: a module satisfies `Rules`) and its text's `format_command`, and writes only what
differs: configuration, parsing, status, views and results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from engine.contract import Context, Event

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
