"""Cookoff (Death Match 7): a two-player cooking duel with sealed phases and reserve clocks.

Rules versions (a stored match plays on under the version it recorded, `engine.registry`):
- "2" (current): the final dish choice runs on the clock like every phase, 120 s then the reserve; a
  player whose reserve runs out there loses (revised CK-6, CK-7; both at once: the DMO, CK-P2).
- "1": the final choice ran on its 120 s base only, and a player who let it pass was judged on the
  latest dish, recorded by `dish_defaulted` (CK-P4, withdrawn 2026-12-01).
Text parsing is the same under both: it only turns a message into the command that is recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.contract import Context, Event, Json, Status, Viewer
from engine.cookoff import config as _config
from engine.cookoff import rules, text, views
from engine.cookoff.commands import COMMAND_TYPES
from engine.cookoff.state import State

FINAL_CHOICE_ON_CLOCK = {"1": False, "2": True}


class Cookoff:
    name = "cookoff"
    command_types = COMMAND_TYPES
    default_seats = 2  # a duel
    # Host-set judges and tree schedules are hidden information (CK-5, CK-6) until the match is over.
    secret_config_keys = ("judges", "schedule")

    def __init__(self, rules_version: str = "2") -> None:
        if rules_version not in FINAL_CHOICE_ON_CLOCK:
            raise ValueError(f"Cookoff has no rules version {rules_version!r}")
        self.rules_version = rules_version
        self.final_choice_on_clock = FINAL_CHOICE_ON_CLOCK[rules_version]

    def default_config(self, players: Sequence[str]) -> dict[str, Json]:
        return _config.default_config(players)

    def initial_state(self, config: Mapping[str, Json], seed: int) -> State:
        return rules.initial_state(_config.parse_config(config), seed, self.final_choice_on_clock)

    def start(self, state: State, ctx: Context) -> list[Event]:
        return rules.start(state, ctx)

    def parse(self, state: State, player: str, text_: str) -> Any:
        return text.parse(state, text_)

    def format(self, command: Any) -> str:
        return text.format_command(command)

    def decide(self, state: State, player: str, command: Any, ctx: Context) -> list[Event]:
        return rules.decide(state, player, command, ctx)

    def timeout(self, state: State, ctx: Context) -> list[Event]:
        return rules.timeout(state, ctx)

    def evolve(self, state: State, event: Event) -> State:
        return rules.evolve(state, event)

    def status(self, state: State) -> Status:
        return views.status(state)

    def players(self, state: State) -> tuple[str, ...]:
        return state.config.players

    def view(self, state: State, viewer: Viewer) -> dict[str, Json]:
        return views.view(state, viewer)

    def redact(self, state: State, event: Event, viewer: Viewer) -> Event | None:
        return views.redact(state, event, viewer)

    def explain(self, event: Event) -> list[str]:
        return views.explain(event)

    def results(self, state: State) -> dict[str, Json]:
        return views.results(state)


GAME = Cookoff()
RULES_VERSIONS = {"1": Cookoff(rules_version="1")}
