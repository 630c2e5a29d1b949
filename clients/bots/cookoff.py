"""Example Cookoff bots: pure functions of the player's view (the JSON of `view(state, Viewer.of(p))`).

`random_bot` plays any legal submission at random; `judge_bot` aims at the judges revealed so far
(flavour, size and cook band). Both return the text command to submit now, or None.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

NAMES = ("random_bot", "judge_bot")  # this module's bots: the plainest first, the strongest last

View = dict[str, Any]

COLUMNS = "ABCDE"
OPPOSITE_FLAVOUR = {"spicy": "bitter", "dry": "sour", "sweet": "spicy", "bitter": "dry", "sour": "sweet"}
OPPOSITE_COOK = {"raw": "well done", "well done": "raw", "slightly raw": "medium", "medium": "slightly raw"}
PERFECT = {"small": 4, "medium": 13, "large": 22}
ALL_SQUARES = [f"{c}{r}" for r in range(1, 6) for c in COLUMNS]


def _neighbours(square: str) -> list[str]:
    col, row = COLUMNS.index(square[0]), int(square[1])
    out = []
    for dc, dr in ((0, -1), (0, 1), (-1, 0), (1, 0)):
        c, r = col + dc, row + dr
        if 0 <= c < 5 and 1 <= r <= 5:
            out.append(f"{COLUMNS[c]}{r}")
    return out


def _groups(squares: set[str]) -> list[list[str]]:
    left, groups = set(squares), []
    while left:
        start = min(left, key=ALL_SQUARES.index)
        group, todo = {start}, [start]
        while todo:
            for nb in _neighbours(todo.pop()):
                if nb in left and nb not in group:
                    group.add(nb)
                    todo.append(nb)
        left -= group
        groups.append(sorted(group, key=ALL_SQUARES.index))
    return groups


def _article(name: str) -> str:
    return "an" if name[0].lower() in "aeiou" else "a"


def _band(cook: int) -> str | None:
    if cook >= 8 or cook <= 0:
        return None
    return "raw" if cook <= 2 else "slightly raw" if cook == 3 else "medium" if cook <= 5 else "well done"


def _inventory_list(inventory: dict[str, int]) -> list[str]:
    return [name for name, n in sorted(inventory.items()) for _ in range(n)]


def _intensity(view: dict[str, Any], square: str) -> int:
    return int(view["flame"][int(square[1]) - 1][COLUMNS.index(square[0])])


def _opponent(view: dict[str, Any], player: str) -> str:
    return str(next(name for name in view["players"] if name != player))


# ---------------------------------------------------------------- random


def random_bot(view: dict[str, Any], player: str, rng: random.Random) -> str | None:
    me = view["players"][player]
    if view["finished"] or me["submitted"] or player not in view["awaiting"]:
        return None
    phase, limits = view["phase"], view["limits"]
    if phase == "gathering":
        trees = [t["berry"] for t in view["trees"]]
        counts: dict[str, int] = {}
        for _ in range(rng.randint(0, limits["harvesters"])):
            tree = rng.choice(trees)
            counts[tree] = counts.get(tree, 0) + 1
        if not counts:
            return "I will send no workers."
        return " ".join(f"I will send {n} worker{'' if n == 1 else 's'} to the {b} tree." for b, n in counts.items())
    if phase in ("placement", "sabotage"):
        sabotage = phase == "sabotage"
        pot = view["players"][_opponent(view, player)]["pot"] if sabotage else me["pot"]
        empty = [s for s in ALL_SQUARES if s not in pot]
        stock = _inventory_list(me["inventory"])
        limit = min(limits["max_sabotage" if sabotage else "max_place"], len(empty), len(stock))
        k = rng.randint(0, limit) if (not sabotage or rng.random() < 0.5) else 0
        if k == 0:
            return "I will not sabotage." if sabotage else "I will place no berries."
        berries, squares = rng.sample(stock, k), rng.sample(empty, k)
        verb = "sabotage and place" if sabotage else "place"
        return " ".join(f"I will {verb} {_article(b)} {b} berry on {s}." for b, s in zip(berries, squares, strict=True))
    if phase == "moves":
        occupied = set(me["pot"])
        moves = []
        for _ in range(rng.randint(0, limits["max_moves"])):
            options = [(a, b) for a in sorted(occupied) for b in _neighbours(a) if b not in occupied]
            if not options:
                break
            a, b = rng.choice(options)
            occupied.discard(a)
            occupied.add(b)
            moves.append((a, b))
        if not moves:
            return "I will not move any berries."
        return " ".join(f"I will move the berry on {a} to {b}." for a, b in moves)
    if phase == "removal":
        last = view["round"] >= view["rounds"]
        if not me["pot"] or (not last and rng.random() < 0.7):
            return "I will not remove a dish."
        group = rng.choice(_groups(set(me["pot"])))
        # a random connected part of the group: grow from one square
        size = rng.randint(1, len(group))
        part, frontier = [group[0]], set(_neighbours(group[0])) & set(group)
        while len(part) < size and frontier:
            nxt = rng.choice(sorted(frontier))
            part.append(nxt)
            frontier = (frontier | set(_neighbours(nxt))) & set(group) - set(part)
        return f"I remove the dish on {', '.join(part)}."
    if phase == "final_choice":
        return f"I choose dish {rng.randint(1, len(me['dishes']))}."
    return None


# ---------------------------------------------------------------- judge-aware


def _judges(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [j for j in view["judges"] if j["revealed"]]


def _value(view: dict[str, Any], berry: str) -> float:
    """How much a berry helps with the revealed flavour judge (or its total potency if none yet)."""
    flavours: dict[str, float] = view["berries"][berry]
    wants: list[str] = [j["want"] for j in _judges(view) if j["family"] == "flavour"]
    if not wants:
        return sum(flavours.values()) / 4
    return sum(flavours[w] - flavours[OPPOSITE_FLAVOUR[w]] for w in wants)


def _target_size(view: dict[str, Any]) -> int:
    sizes = [PERFECT[j["want"]] for j in _judges(view) if j["family"] == "size"]
    return sizes[0] if sizes else 13


def _chain(view: dict[str, Any], berries: list[dict[str, Any]], flavour: str) -> int:
    having = {
        b["square"]: view["berries"][b["berry"]][flavour]
        for b in berries
        if _band(b["cook"]) and view["berries"][b["berry"]][flavour] > 0
    }
    best = (0, 0)
    for group in _groups(set(having)):
        best = max(best, (len(group), sum(having[s] for s in group)))
    return best[1]


def _dish_scores(view: dict[str, Any], dish: dict[str, Any]) -> tuple[float, ...]:
    """Per revealed judge, in order: higher is better."""
    out = []
    for judge in _judges(view):
        berries = dish["berries"]
        if judge["family"] == "flavour":
            out.append(
                _chain(view, berries, judge["want"]) / (_chain(view, berries, OPPOSITE_FLAVOUR[judge["want"]]) or 1)
            )
        elif judge["family"] == "size":
            out.append(-abs(len(berries) - PERFECT[judge["want"]]))
        else:
            bands = [_band(b["cook"]) for b in berries]
            out.append(bands.count(judge["want"]) / (bands.count(OPPOSITE_COOK[judge["want"]]) or 1))
    return tuple(out)


def _judge_gathering(view: View, me: View, opponent: View, limits: View, rng: random.Random) -> str:
    # one harvester per tree on the best trees: a lone harvester takes the whole tree
    trees = sorted(view["trees"], key=lambda t: (-_value(view, t["berry"]) * t["quantity"], rng.random()))
    best = [t["berry"] for t in trees if _value(view, t["berry"]) > 0][: limits["harvesters"]]
    if not best:
        return "I will send no workers."
    return " ".join(f"I will send 1 worker to the {b} tree." for b in best)


def _judge_placement(view: View, me: View, opponent: View, limits: View, rng: random.Random) -> str:
    own = {s for s, item in me["pot"].items() if not item["sabotage"]}
    stock = sorted(_inventory_list(me["inventory"]), key=lambda b: -_value(view, b))
    stock = [b for b in stock if _value(view, b) > 0]
    room = max(0, _target_size(view) + 2 - len(own))
    placed: list[tuple[str, str]] = []
    occupied = set(me["pot"])
    for berry in stock[: min(limits["max_place"], room)]:
        empty = [s for s in ALL_SQUARES if s not in occupied]
        if not empty:
            break
        touching = [s for s in empty if any(nb in own for nb in _neighbours(s))]
        square = min(touching or empty, key=lambda s: (_intensity(view, s), ALL_SQUARES.index(s)))
        placed.append((berry, square))
        occupied.add(square)
        own.add(square)
    if not placed:
        return "I will place no berries."
    return " ".join(f"I will place {_article(b)} {b} berry on {s}." for b, s in placed)


def _judge_sabotage(view: View, me: View, opponent: View, limits: View, rng: random.Random) -> str:
    stock = sorted((b for b in _inventory_list(me["inventory"]) if _value(view, b) <= 0), key=lambda b: _value(view, b))
    empty = [s for s in ALL_SQUARES if s not in opponent["pot"]]
    touching = [s for s in empty if any(nb in opponent["pot"] for nb in _neighbours(s))]
    picks = list(zip(stock[: limits["max_sabotage"]], touching, strict=False))
    if not picks:
        return "I will not sabotage."
    return " ".join(f"I will sabotage and place {_article(b)} {b} berry on {s}." for b, s in picks)


def _judge_moves(view: View, me: View, opponent: View, limits: View, rng: random.Random) -> str:
    # push sabotage berries away from the own cluster when a free square allows it
    occupied = set(me["pot"])
    moves: list[tuple[str, str]] = []
    for square, item in sorted(me["pot"].items()):
        if not item["sabotage"] or len(moves) >= limits["max_moves"]:
            continue
        options = [nb for nb in _neighbours(square) if nb not in occupied]
        if options:
            target = max(options, key=lambda s: -sum(1 for nb in _neighbours(s) if nb in occupied))
            occupied.discard(square)
            occupied.add(target)
            moves.append((square, target))
    if not moves:
        return "I will not move any berries."
    return " ".join(f"I will move the berry on {a} to {b}." for a, b in moves)


def _judge_removal(view: View, me: View, opponent: View, limits: View, rng: random.Random) -> str:
    own = {s for s, item in me["pot"].items() if not item["sabotage"] and item["cook"] < 8}
    if not own:
        return "I will not remove a dish."
    group = max(_groups(own), key=len)
    last = view["round"] >= view["rounds"]
    burning_soon = any(me["pot"][s]["cook"] + _intensity(view, s) >= 8 for s in group)
    cook_wants = [j["want"] for j in _judges(view) if j["family"] == "cook"]
    ripe = bool(cook_wants) and all(_band(me["pot"][s]["cook"]) == cook_wants[0] for s in group)
    big = len(group) >= _target_size(view)
    if last or burning_soon or (ripe and big):
        return f"I remove the dish on {', '.join(group)}."
    return "I will not remove a dish."


def _judge_final_choice(view: View, me: View, opponent: View, limits: View, rng: random.Random) -> str:
    dishes: list[dict[str, Any]] = me["dishes"]
    choice = max(dishes, key=lambda d: (_dish_scores(view, d), len(d["berries"])))
    return f"I choose dish {choice['number']}."


_JUDGE_PHASES: dict[str, Callable[[View, View, View, View, random.Random], str]] = {
    "gathering": _judge_gathering,
    "placement": _judge_placement,
    "sabotage": _judge_sabotage,
    "moves": _judge_moves,
    "removal": _judge_removal,
    "final_choice": _judge_final_choice,
}


def judge_bot(view: dict[str, Any], player: str, rng: random.Random) -> str | None:
    me = view["players"][player]
    if view["finished"] or me["submitted"] or player not in view["awaiting"]:
        return None
    phase, limits = view["phase"], view["limits"]
    opponent = view["players"][_opponent(view, player)]
    play = _JUDGE_PHASES.get(phase)
    return None if play is None else play(view, me, opponent, limits, rng)
