"""Cookoff (Death Match 7): a two-player cooking duel with sealed phases and reserve clocks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.contract import Context, Event, Json, Status, Viewer
from engine.cookoff import config as _config
from engine.cookoff import rules, text, views
from engine.cookoff.commands import COMMAND_TYPES
from engine.cookoff.state import State


class Cookoff:
    name = "cookoff"
    rules_version = "1"
    command_types = COMMAND_TYPES
    # Host-set judges and tree schedules are hidden information (CK-5, CK-6) until the match is over.
    secret_config_keys = ("judges", "schedule")

    def default_config(self, players: Sequence[str]) -> dict[str, Json]:
        return _config.default_config(players)

    def initial_state(self, config: Mapping[str, Json], seed: int) -> State:
        return rules.initial_state(_config.parse_config(config), seed)

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
