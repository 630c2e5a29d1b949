"""Shared set-ups for the Cookoff tests: a match with a known tree schedule and known judges."""

from __future__ import annotations

import json
from typing import Any

from engine.contract import Event, Game, Json, Viewer
from engine.cookoff import GAME
from engine.cookoff.config import load_default_berries
from engine.cookoff.state import Phase, State
from engine.match import LocalMatch, fold

A, B = "ann", "bob"
NAMES = [row["name"] for row in load_default_berries()]


def schedule(first: list[tuple[str, int]] | None = None) -> list[list[dict[str, Json]]]:
    """15 rounds of 6 distinct berries; round 1 may be given (berry, quantity) pairs."""
    rounds: list[list[dict[str, Json]]] = []
    for r in range(15):
        names = [NAMES[(r * 6 + i) % 30] for i in range(6)]
        rounds.append([{"berry": n, "quantity": 3} for n in names])
    if first:
        rounds[0] = [{"berry": b, "quantity": q} for b, q in first]
        taken = {b for b, _ in first}
        rounds[0] += [{"berry": n, "quantity": 3} for n in NAMES if n not in taken][: 6 - len(first)]
    return rounds


JUDGES = [
    {"family": "flavour", "want": "sweet"},
    {"family": "size", "want": "small"},
    {"family": "cook", "want": "medium"},
]


def config(**overrides: Any) -> dict[str, Json]:
    cfg = GAME.default_config([A, B])
    cfg["schedule"] = schedule(overrides.pop("first", None))
    cfg["judges"] = JUDGES
    cfg.update(overrides)
    return cfg


def match(seed: int = 1, game: Game = GAME, **overrides: Any) -> LocalMatch:
    """A match under the current rules, or under `game` (an earlier rules version)."""
    cfg = config(**overrides)
    m = LocalMatch(game, cfg, seed)
    m.cfg = cfg  # type: ignore[attr-defined]
    return m


def say(m: LocalMatch, player: str, text: str) -> list[Event]:
    return m.submit_text(player, text)


def both(m: LocalMatch, text_a: str, text_b: str = "pass") -> list[Event]:
    return say(m, A, text_a) + say(m, B, text_b)


def phase(m: LocalMatch) -> Phase:
    state: State = m.state
    return state.phase


def finish_round(m: LocalMatch) -> None:
    """Both players pass every remaining phase of the current round."""
    start = m.state.round
    while m.state.round == start and phase(m) not in (Phase.FINAL_CHOICE, Phase.OVER):
        for player in sorted(GAME.status(m.state).awaiting):
            say(m, player, "pass")


def to_phase(m: LocalMatch, target: Phase, round_: int | None = None) -> None:
    while not (phase(m) is target and (round_ is None or m.state.round == round_)):
        assert phase(m) is not Phase.OVER
        for player in sorted(GAME.status(m.state).awaiting):
            say(m, player, "pass")


def play_to_final(m: LocalMatch, dishes_a: list[str], dishes_b: list[str]) -> None:
    """From round 1's placement: ann and bob each place a Cheri berry and remove it as a dish, one a round on
    the given squares (the berries gathered in round 1); pass otherwise, up to the final choice."""
    for round_ in range(1, 16):
        to_phase(m, Phase.PLACEMENT, round_)
        a = dishes_a[round_ - 1] if round_ <= len(dishes_a) else ""
        b = dishes_b[round_ - 1] if round_ <= len(dishes_b) else ""
        both(m, f"place Cheri on {a}" if a else "pass", f"place Cheri on {b}" if b else "pass")
        both(m, "pass")
        both(m, "pass")
        both(m, f"remove the dish on {a}" if a else "pass", f"remove the dish on {b}" if b else "pass")


def gather(m: LocalMatch, text_a: str, text_b: str = "pass") -> None:
    """Gather in the current round and stop at placement."""
    assert phase(m) is Phase.GATHERING
    both(m, text_a, text_b)


def inventory(m: LocalMatch, player: str) -> dict[str, int]:
    seat = m.state.seat(player)
    return {b.name: n for b, n in zip(m.state.config.berries, seat.inventory, strict=True) if n}


def pot(m: LocalMatch, player: str) -> dict[str, tuple[str, int]]:
    view = GAME.view(m.state, Viewer.host())
    return {sq: (item["berry"], item["cook"]) for sq, item in view["players"][player]["pot"].items()}


def events_of(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e["type"] == kind]


def replayed(m: LocalMatch, upto: int | None = None) -> Any:
    """The state rebuilt from the recorded events (all, or the first `upto`)."""
    events = m.events if upto is None else m.events[:upto]
    return fold(m.game, m.game.initial_state(m.cfg, m.seed), events)  # type: ignore[attr-defined]


def plain(event: Event) -> bool:
    return json.loads(json.dumps(event)) == event
