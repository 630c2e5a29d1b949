"""A match of each game stopped in each phase a text order can be sent in, for the grammar tests (the
corpora beside each game's tests and docs/BOTS.md's table of accepted forms)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.contract import Game
from engine.cookoff import GAME as COOKOFF
from engine.cookoff.state import Phase
from engine.last_gathering import GAME as GATHERING
from engine.match import LocalMatch, submit
from engine.mining import GAME as MINING

GATHERING_PLAYERS = ("Ann", "Bob", "Cy", "Di")
MINING_PLAYERS = ("A", "B")
COOKOFF_PLAYERS = ("ann", "bob")
ROUND_1_TREES = [("Oran", 3), ("Cheri", 4), ("Chesto", 3), ("Pecha", 3), ("Rawst", 3), ("Aspear", 3)]


def everyone(match: LocalMatch, text: str | dict[str, str]) -> None:
    for player in sorted(match.game.status(match.state).awaiting):
        match.submit_text(player, text if isinstance(text, str) else text[player])


def last_gathering() -> tuple[LocalMatch, dict[str, Any]]:
    """The first frame round; step 1 (auction 1 only); step 2 (auction 2 and placement 1)."""
    match = LocalMatch(GATHERING, GATHERING.default_config(list(GATHERING_PLAYERS)), 1)
    states = {"frames": match.state}
    frames = dict(zip(GATHERING_PLAYERS, ("F1", "F2", "F3", "F4"), strict=True))
    everyone(match, {p: f"bid 0 on frame {f}; end early" for p, f in frames.items()})
    states["step1"] = match.state
    everyone(match, "bid 0 cross; end early")
    states["step2"] = match.state
    return match, states


def mining() -> tuple[LocalMatch, dict[str, Any]]:
    """The set-up; round 1 (A's miners on spaces 1-5, B's on 6-10)."""
    match = LocalMatch(MINING, MINING.default_config(list(MINING_PLAYERS)), 1)
    states = {"setup": match.state}
    for first, player in ((1, "A"), (6, "B")):
        match.submit_text(player, "; ".join(f"start {r} {first + i}" for i, r in enumerate("bcpst")) + "; end early")
    states["round"] = match.state
    return match, states


def cookoff() -> tuple[LocalMatch, dict[str, Any]]:
    """Every phase of round 1 (ann gathers 2 Oran and 4 Cheri, places Cheri on C3 and Oran on B2; bob
    passes), and the final choice (the removal state, relabelled)."""
    config = COOKOFF.default_config(list(COOKOFF_PLAYERS))
    rounds = [[{"berry": b, "quantity": q} for b, q in ROUND_1_TREES]] * 15
    config.update(schedule=rounds, judges=[{"family": "size", "want": "small"}] * 3)
    match = LocalMatch(COOKOFF, config, 1)
    states = {"gathering": match.state}
    for phase, text in (
        ("placement", "send 2 workers to Oran. send 2 workers to Cheri"),
        ("sabotage", "place Cheri on C3. place Oran on B2"),
        ("moves", "pass"),
        ("removal", "pass"),
    ):
        match.submit_text("ann", text)
        match.submit_text("bob", "pass")
        states[phase] = match.state
    states["final_choice"] = replace(match.state, phase=Phase.FINAL_CHOICE)
    return match, states


def judge(game: Game, match: LocalMatch, state: Any, player: str) -> Any:
    """What the rules say to a parsed command sent in `state` (raises RuleViolation when illegal now)."""
    return lambda command: submit(game, state, player, command, match._ctx(match.now))
