"""Cookoff as a decider: the module-level GAME implements engine.contract.Game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.base import BaseGame
from engine.contract import Event, Json, Status, Viewer
from engine.cookoff import config as _config
from engine.cookoff import rules, text, views
from engine.cookoff.commands import COMMAND_TYPES, Command
from engine.cookoff.state import State

FINAL_CHOICE_ON_CLOCK = {"1": False, "2": True}


class Cookoff(BaseGame[State, Command]):
    name = "cookoff"
    command_types = COMMAND_TYPES
    default_seats = 2  # a duel
    allowed_seats = _config.ALLOWED_SEATS
    wire_field = "cookoff"
    arena_formats = ("round-robin",)  # a duel: every pair of bots meets
    # Host-set judges and tree schedules are hidden information (CK-5, CK-6) until the match is over.
    secret_config_keys = ("judges", "schedule")
    round_keys = ("rounds",)
    phase_seconds_keys = ("times",)  # a mapping of phases to seconds
    reserve_seconds_keys = ("reserve",)  # the chess-style reserve clock (may be 0)

    def __init__(self, rules_version: str = "2") -> None:
        if rules_version not in FINAL_CHOICE_ON_CLOCK:
            raise ValueError(f"Cookoff has no rules version {rules_version!r}")
        super().__init__(rules, text.format_command)
        self.rules_version = rules_version
        self.final_choice_on_clock = FINAL_CHOICE_ON_CLOCK[rules_version]

    def default_config(self, players: Sequence[str]) -> dict[str, Json]:
        return _config.default_config(players)

    def initial_state(self, config: Mapping[str, Json], seed: int) -> State:
        return rules.initial_state(_config.parse_config(config), seed, self.final_choice_on_clock)

    def parse(self, state: State, player: str, text_: str) -> Command:
        return text.parse(state, text_)

    def phase_forms(self, state: State, player: str) -> tuple[str, ...]:
        return text.forms(state)

    def example_command(self, state: State, player: str) -> Command | None:
        return rules.example_command(state, player)

    def status(self, state: State) -> Status:
        return views.status(state)

    def players(self, state: State) -> tuple[str, ...]:
        return state.config.players

    def view(self, state: State, viewer: Viewer) -> dict[str, Json]:
        return views.view(state, viewer)

    def redact(self, state: State, event: Event, viewer: Viewer) -> Event | None:
        return views.redact(state, event, viewer)

    def results(self, state: State) -> dict[str, Json]:
        return views.results(state)


GAME = Cookoff()
RULES_VERSIONS = {"1": Cookoff(rules_version="1")}
