"""The Last Gathering as a decider: the module-level GAME implements engine.contract.Game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.contract import Context, Event, Json, Status, Viewer
from engine.last_gathering import rules, text, views
from engine.last_gathering.commands import COMMAND_TYPES, Submit
from engine.last_gathering.config import default_config, parse_config
from engine.last_gathering.state import FRAMES, OVER, STEPS, PlayerState, State


class LastGathering:
    """Rules version 3 (the default): LG-12's grid sits at noon UTC (LG-13): the first frame round ends at
    the first noon UTC at least `first_frame_round_seconds` (48 h) after the start, when the period is a
    day and the host gives no first deadline. Rules version 2: the same grid anchored at the start plus
    `first_frame_round_seconds` (54 h). Rules version 1: each phase's deadline is its opening time plus
    its duration (LG-P4, withdrawn 2026-12-01). Stored matches replay, verify and play on under the
    version they recorded."""

    name = "last-gathering"
    command_types: tuple[type, ...] = COMMAND_TYPES
    default_seats = 4  # the rule text's game is for four shepherds

    def __init__(self, rules_version: str = "3") -> None:
        if rules_version not in ("1", "2", "3"):
            raise ValueError(f"The Last Gathering has no rules version {rules_version!r}")
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

    def start(self, state: State, ctx: Context) -> list[Event]:
        return rules.start(state, ctx)

    def parse(self, state: State, player: str, text_: str) -> Submit:
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
        phase = views.phase_text(state)
        if state.phase in (FRAMES, STEPS):
            acting = state.acting()
            return Status(
                phase=phase,
                awaiting=frozenset(acting),  # LG-10: submissions may be replaced until the phase ends
                submitted=frozenset(p for p in acting if state.complete(p)),
                deadline=state.deadline,
            )
        return Status(phase=phase, awaiting=frozenset(), finished=state.phase == OVER)

    def players(self, state: State) -> tuple[str, ...]:
        return state.config.players

    def view(self, state: State, viewer: Viewer) -> dict[str, Json]:
        return views.view(state, viewer, self.results(state) if state.phase == OVER else None)

    def redact(self, state: State, event: Event, viewer: Viewer) -> Event | None:
        return views.redact(state, event, viewer)

    def explain(self, event: Event) -> list[str]:
        return list(event.get("trace", []))

    def results(self, state: State) -> dict[str, Json]:
        final = state.final
        rows: list[Json] = []
        if final is None:
            for p in state.players:
                rows.append({"player": p.name, "rank": None, "score": None, "garnets": p.garnets, "frame": p.frame})
            return {"results": rows, "tiebreak_order": list(state.order)}
        scores = {s["player"]: s for s in final["scores"]}
        lakes = final["lakes"]
        for rank, name in enumerate(final["ranking"], start=1):
            p = state.player(name)
            rows.append(
                {
                    "player": name,
                    "rank": rank,
                    "score": scores[name]["score"],
                    "garnets": p.garnets,
                    "frame": p.frame,
                    "lake": lakes[name],
                    "regions": scores[name]["regions"],
                }
            )
        return {"results": rows, "tiebreak_order": list(state.order)}


GAME = LastGathering()
RULES_V1 = LastGathering("1")
RULES_V2 = LastGathering("2")
RULES_VERSIONS = {RULES_V1.rules_version: RULES_V1, RULES_V2.rules_version: RULES_V2}
