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
    """Rules version 2 (the default): deadlines on the grid of LG-12. Rules version 1 (`lgp4_deadlines`):
    each phase's deadline is its opening time plus its duration (LG-P4, withdrawn 2026-12-01); stored
    matches of version 1 replay, verify and play on under it."""

    name = "last-gathering"
    command_types: tuple[type, ...] = COMMAND_TYPES
    default_seats = 4  # the rule text's game is for four shepherds

    def __init__(self, lgp4_deadlines: bool = False) -> None:
        self.grid = not lgp4_deadlines
        self.rules_version = "2" if self.grid else "1"

    def default_config(self, players: Sequence[str]) -> dict[str, Json]:
        return default_config(players, self.grid)

    def initial_state(self, config: Mapping[str, Json], seed: int) -> State:
        parsed = parse_config(config, self.grid)
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
RULES_V1 = LastGathering(lgp4_deadlines=True)
RULES_VERSIONS = {RULES_V1.rules_version: RULES_V1}
