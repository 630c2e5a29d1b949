"""Example bots for the mining game: pure functions from a player's view (the JSON dict of
`GAME.view(state, Viewer.of(player))`) to the text command to submit now, or None.

Both always ask to end the phase early (LG-10), and submit nothing once their submission is in.
"""

from __future__ import annotations

import random
from typing import Any

from engine.errors import RuleViolation
from engine.mining.commands import Upgrade
from engine.mining.config import COLOURS, RESOURCES, ROLES
from engine.mining.rules import MAX_STEPS, plan_payments
from engine.mining.state import Player, player_from

NAMES = ("random_bot", "greedy_bot")  # this module's bots: the plainest first, the strongest last

CRYSTAL_VALUE = 0.4  # a crystal is worth less than a gold: only full sets convert at the end


def _me(view: dict[str, Any], player: str) -> dict[str, Any] | None:
    entries: list[dict[str, Any]] = view["players"]
    for entry in entries:
        if entry["name"] == player:
            return entry
    return None


def _affordable(me: Player, chosen: list[Upgrade], candidate: Upgrade, garnets: bool) -> bool:
    if any(u.miner == candidate.miner and u.crystal == candidate.crystal for u in chosen):
        return False
    try:
        payments = plan_payments(me, (*chosen, candidate))
    except RuleViolation:
        return False
    return garnets or all(p.replaced == 0 for p in payments)


def _setup(spaces: list[int]) -> str:
    return "; ".join(f"start {role} {space}" for role, space in zip(ROLES, spaces, strict=True)) + "; end early"


def _orders(moves: dict[str, int], upgrades: list[Upgrade], bully: bool) -> str:
    parts = [f"move {role} {moves[role]}" for role in ROLES]
    parts += [f"upgrade {u.miner} {u.crystal}" for u in upgrades]
    if bully:
        parts.append("bully 1")
    return "; ".join([*parts, "end early"])


def random_bot(view: dict[str, Any], player: str, rng: random.Random) -> str | None:
    """Random starts, random moves, sometimes the bully, sometimes an upgrade it can pay for."""
    entry = _me(view, player)
    if entry is None or entry["submitted"]:
        return None
    count = len(view["spaces"])
    if view["stage"] == "setup":
        return _setup(rng.sample(range(1, count + 1), len(ROLES)))
    if view["stage"] != "round":
        return None
    me = player_from(entry)
    moves = {role: rng.randint(1, MAX_STEPS[role]) for role in ROLES}
    upgrades: list[Upgrade] = []
    for _ in range(2):
        candidate = Upgrade(rng.choice(ROLES), rng.choice(COLOURS))
        if rng.random() < 0.5 and _affordable(me, upgrades, candidate, garnets=True):
            upgrades.append(candidate)
    return _orders(moves, upgrades, rng.random() < 0.3)


def _worth(view: dict[str, Any], space: int, role: str, crowd: float) -> float:
    """What a miner of `role` may expect on `space` this round, with `crowd` shares already expected."""
    info = view["spaces"][space - 1]
    pile = info["pile"]
    weight = 2 if role == "c" else 1
    shares = crowd + weight
    value = 0.0
    for resource in RESOURCES:
        each = pile[resource] * weight / shares
        unit = 1.0 if resource == "gold" else CRYSTAL_VALUE
        value += each * unit
        if role == "p" and pile[resource] >= shares:
            value += unit
    if info["bonus"] == role:
        value += 1
    return value


def greedy_bot(view: dict[str, Any], player: str, rng: random.Random) -> str | None:
    """Each miner goes where its share of the visible piles looks largest, counting the miners that can
    reach each space; upgrades are bought with crystals only (never garnets), none in the last round."""
    entry = _me(view, player)
    if entry is None or entry["submitted"]:
        return None
    count = len(view["spaces"])
    if view["stage"] == "setup":
        rich = sorted(range(1, count + 1), key=lambda s: -view["spaces"][s - 1]["gains"]["gold"])
        before_rich = []
        for space in rich:
            ahead = (space - 2) % count + 1  # one space before a rich space
            if ahead not in before_rich:
                before_rich.append(ahead)
        spaces = before_rich[:8]
        rng.shuffle(spaces)
        return _setup(spaces[: len(ROLES)])
    if view["stage"] != "round":
        return None
    # expected other miners on each space: every other miner that can reach it, spread over its reach
    crowd = [0.0] * (count + 1)
    for other in view["players"]:
        if other["name"] == player:
            continue
        for role, miner in other["miners"].items():
            reach = MAX_STEPS[role]
            for step in range(1, reach + 1):
                crowd[(miner["space"] - 1 + step) % count + 1] += (2 if role == "c" else 1) / reach
    moves: dict[str, int] = {}
    for role in ("c", "p", "s", "b", "t"):
        start = entry["miners"][role]["space"]
        best = max(
            range(1, MAX_STEPS[role] + 1),
            key=lambda step: (
                _worth(view, (start - 1 + step) % count + 1, role, crowd[(start - 1 + step) % count + 1]),
                -step,
            ),
        )
        moves[role] = best
        crowd[(start - 1 + best) % count + 1] += 2 if role == "c" else 1
    upgrades: list[Upgrade] = []
    if view["round"] < view["rounds"]:
        me = player_from(entry)
        for colour in ("b", "r", "g", "y"):
            for role in ("c", "p", "s", "b", "t"):
                candidate = Upgrade(role, colour)
                if _affordable(me, upgrades, candidate, garnets=False):
                    upgrades.append(candidate)
                    break
    return _orders(moves, upgrades, bully=False)
