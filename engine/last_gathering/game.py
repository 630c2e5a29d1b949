"""The Last Gathering as a decider: the module-level GAME implements engine.contract.Game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.base import BaseGame
from engine.contract import Event, Json, Status, Viewer
from engine.last_gathering import rules, text, views
from engine.last_gathering.commands import COMMAND_TYPES, Submit
from engine.last_gathering.config import ALLOWED_SEATS, DEFAULT_SEATS, default_config, parse_config
from engine.last_gathering.state import Phase, PlayerState, State


class LastGathering(BaseGame[State, Submit]):
    """Rules version 3 (the default): LG-12's grid sits at noon UTC (LG-13): the first frame round ends at
    the first noon UTC at least `first_frame_round_seconds` (48 h) after the start, when the period is a
    day and the host gives no first deadline. Rules version 2: the same grid anchored at the start plus
    `first_frame_round_seconds` (54 h). Rules version 1: each phase's deadline is its opening time plus
    its duration (LG-P4, withdrawn 2026-12-01). Stored matches replay, verify and play on under the
    version they recorded."""

    name = "last-gathering"
    command_types: tuple[type, ...] = COMMAND_TYPES
    default_seats = DEFAULT_SEATS
    allowed_seats = ALLOWED_SEATS
    wire_field = "last_gathering"
    arena_formats = ("rotation",)
    round_keys = ("rounds",)
    phase_seconds_keys = ("first_frame_round_seconds", "frame_round_seconds", "step_seconds")

    def __init__(self, rules_version: str = "3") -> None:
        if rules_version not in ("1", "2", "3"):
            raise ValueError(f"The Last Gathering has no rules version {rules_version!r}")
        super().__init__(rules, text.format_command)
        self.rules_version = rules_version
        self.grid = rules_version != "1"
        self.noon = rules_version == "3"

    def default_config(self, players: Sequence[str]) -> dict[str, Json]:
        return default_config(players, self.grid, self.noon)

    def initial_state(self, config: Mapping[str, Json], seed: int) -> State:
        parsed = parse_config(config, self.grid, self.noon)
        return State(
            config=parsed,
            seed=seed,
            players=tuple(
                PlayerState(name=p, garnets=g) for p, g in zip(parsed.players, parsed.starting_garnets, strict=True)
            ),
            order=parsed.tiebreak_order,
            supply=parsed.supply,
        )

    def parse(self, state: State, player: str, text_: str) -> Submit:
        return text.parse(state, text_)

    def phase_forms(self, state: State, player: str) -> tuple[str, ...]:
        return text.forms(state, rules.POPULATE_COST)

    def example_command(self, state: State, player: str) -> Submit | None:
        return rules.example_command(state, player)

    def status(self, state: State) -> Status:
        phase = views.phase_text(state)
        if state.phase in (Phase.FRAMES, Phase.STEPS):
            acting = state.acting()
            return Status(
                phase=phase,
                awaiting=frozenset(acting),  # LG-10: submissions may be replaced until the phase ends
                submitted=frozenset(p for p in acting if state.complete(p)),
                deadline=state.deadline,
            )
        return Status(phase=phase, awaiting=frozenset(), finished=state.phase == Phase.OVER)

    def players(self, state: State) -> tuple[str, ...]:
        return state.config.players

    def view(self, state: State, viewer: Viewer) -> dict[str, Json]:
        return views.view(state, viewer, self.results(state) if state.phase == Phase.OVER else None)

    def redact(self, state: State, event: Event, viewer: Viewer) -> Event | None:
        return views.redact(state, event, viewer)

    def results(self, state: State) -> dict[str, Json]:
        return views.results(state)


GAME = LastGathering()
RULES_V1 = LastGathering("1")
RULES_V2 = LastGathering("2")
RULES_VERSIONS = {RULES_V1.rules_version: RULES_V1, RULES_V2.rules_version: RULES_V2}
