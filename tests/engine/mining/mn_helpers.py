"""Builders for mining tests: a state with miners where a test wants them, and orders from text.

Rule tests play on the rule text's 15 spaces followed by quiet empty spaces (16-50, so 50 + 1 = 1), where every
miner a test does not place is parked alone, so it cannot disturb the spaces under test.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from typing import Any

from engine.contract import Context
from engine.match import LocalMatch
from engine.mining import GAME, rules, text
from engine.mining.commands import Move, Orders
from engine.mining.config import COLOURS, DEFAULT_SPACES, RESOURCES, ROLES
from engine.mining.state import Miner, Player, State
from engine.rng import rng_for

EMPTY = {"gold": 0, "red": 0, "blue": 0, "yellow": 0, "green": 0, "bonus": None}
QUIET_SPACES = 35


def config(players: tuple[str, ...] = ("A", "B"), quiet: bool = True, **overrides: Any) -> dict[str, Any]:
    conf = GAME.default_config(players)
    if quiet:
        conf["spaces"] = [dict(s) for s in DEFAULT_SPACES] + [{"space": 16 + i, **EMPTY} for i in range(QUIET_SPACES)]
    conf.update(overrides)
    return conf


def state_with(
    miners: dict[str, dict[str, int]],
    *,
    players: tuple[str, ...] = ("A", "B"),
    levels: dict[str, dict[str, dict[str, int]]] | None = None,
    gold: dict[str, int] | None = None,
    crystals: dict[str, dict[str, int]] | None = None,
    garnets: int = 10,
    replacements: dict[str, int] | None = None,
    piles: dict[int, dict[str, int]] | None = None,
    round_number: int = 1,
    quiet: bool = True,
) -> State:
    """A round-phase state. `miners`: {"A": {"c": 13}}; unplaced miners are parked on quiet spaces."""
    state: State = GAME.initial_state(config(players, quiet, starting_garnets=garnets), seed=1)
    park = itertools.cycle(range(16, 16 + QUIET_SPACES, 2))  # alone for up to 3 players
    built = []
    for p in state.players:
        placed = miners.get(p.name, {})
        lv = (levels or {}).get(p.name, {})
        ms = tuple(
            Miner(
                role, placed[role] if role in placed else next(park), tuple(lv.get(role, {}).get(c, 0) for c in COLOURS)
            )  # type: ignore[arg-type]
            for role in ROLES
        )
        held = (crystals or {}).get(p.name, {})
        built.append(
            Player(
                p.name,
                (gold or {}).get(p.name, 0),
                tuple(held.get(c, 0) for c in COLOURS),  # type: ignore[arg-type]
                garnets,
                (replacements or {}).get(p.name, 0),
                ms,
            )
        )
    pile_list = [(0, 0, 0, 0, 0)] * len(state.piles)
    for space, pile in (piles or {}).items():
        pile_list[space - 1] = tuple(pile.get(r, 0) for r in RESOURCES)  # type: ignore[assignment]
    return dataclasses.replace(
        state, players=tuple(built), piles=tuple(pile_list), phase="round", round=round_number, deadline=1000.0
    )


def orders(state: State, **texts: str) -> dict[str, Orders]:
    """Each player's orders from text; miners without a move move 1."""
    out = {}
    for name in state.config.players:
        given = text.parse(texts.get(name, "end early"), setup=False)
        moved = {m.miner for m in given.moves}  # type: ignore[union-attr]
        moves = given.moves + tuple(Move(r, 1) for r in ROLES if r not in moved)  # type: ignore[union-attr]
        out[name] = Orders(moves, given.upgrades, given.bully, given.end_early)  # type: ignore[union-attr]
    return out


def play(state: State, **texts: str) -> rules.Resolution:
    return rules.resolve_round(state, orders(state, **texts))


def player(resolution: rules.Resolution, name: str) -> Player:
    return next(p for p in resolution.players if p.name == name)


def where(resolution: rules.Resolution, name: str, role: str) -> int:
    return player(resolution, name).miner(role).space


def space(resolution: rules.Resolution, number: int) -> dict[str, Any]:
    return resolution.spaces[number - 1]


def ctx(now: float = 0.0, version: int = 0) -> Context:
    return Context(now=now, rng=rng_for(7, version), version=version)


def new_match(players: tuple[str, ...] = ("A", "B", "C", "D", "E"), seed: int = 3, **overrides: Any) -> LocalMatch:
    conf = GAME.default_config(players)
    conf.update(overrides)
    return LocalMatch(GAME, conf, seed)


SETUP_A = "start b 1; start c 2; start p 3; start s 4; start t 5"
ALL_ONE = "move b 1; move c 1; move p 1; move s 1; move t 1"


def json_plain(value: Any) -> bool:
    return json.loads(json.dumps(value)) == value
