"""The mining game as a decider: the module-level GAME implements engine.contract.Game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.base import BaseGame
from engine.contract import Event, Json, Status, Viewer
from engine.mining import config as cfg
from engine.mining import rules, text, views
from engine.mining.commands import COMMAND_TYPES, Orders, Setup
from engine.mining.state import Phase, Player, State


class MiningGame(BaseGame[State, Setup | Orders]):
    name = "mining"
    rules_version = "1"
    command_types: tuple[type, ...] = COMMAND_TYPES
    default_seats = cfg.DEFAULT_SEATS
    allowed_seats = cfg.ALLOWED_SEATS
    wire_field = "mining"
    arena_formats = ("rotation",)
    round_keys = ("rounds",)
    phase_seconds_keys = ("setup_seconds", "round_seconds")

    def __init__(self) -> None:
        super().__init__(rules, text.format_command)

    def default_config(self, players: Sequence[str]) -> dict[str, Json]:
        return cfg.default_config(players)

    def initial_state(self, config: Mapping[str, Json], seed: int) -> State:
        conf = cfg.parse_config(config)
        players = tuple(Player(name, 0, (0, 0, 0, 0), conf.starting_garnets) for name in conf.players)
        return State(conf, seed, players, tuple((0, 0, 0, 0, 0) for _ in conf.spaces))

    def parse(self, state: State, player: str, line: str) -> Setup | Orders:
        return text.parse(line, setup=state.phase is Phase.SETUP)

    def phase_forms(self, state: State, player: str) -> tuple[str, ...]:
        return text.forms(state.phase is Phase.SETUP, len(state.config.spaces), rules.MAX_STEPS)

    def example_command(self, state: State, player: str) -> Setup | Orders:
        return rules.example_command(state)

    def status(self, state: State) -> Status:
        if state.phase is Phase.FINISHED:
            return Status(phase="finished", awaiting=frozenset(), finished=True)
        if state.phase not in (Phase.SETUP, Phase.ROUND):
            return Status(phase=state.phase.value, awaiting=frozenset())
        phase = "setup" if state.phase is Phase.SETUP else f"round {state.round} of {state.config.rounds}"
        # LG-10: a submission may be replaced until the phase ends, so everyone may still submit.
        return Status(
            phase=phase,
            awaiting=frozenset(state.config.players),
            submitted=frozenset(p for p, _ in state.pending),
            deadline=state.deadline,
        )

    def players(self, state: State) -> tuple[str, ...]:
        return state.config.players

    def view(self, state: State, viewer: Viewer) -> dict[str, Json]:
        return views.view(state, viewer, self.status(state).phase)

    def redact(self, state: State, event: Event, viewer: Viewer) -> Event | None:
        return views.redact(event, viewer)

    def results(self, state: State) -> dict[str, Json]:
        return views.results(state)


GAME = MiningGame()
RULES_VERSIONS: dict[str, MiningGame] = {}  # no earlier rules yet
