"""Judging (CK-6): each judge's score of a dish, the winner of each judge, and the final decision.

Pure functions over dishes; bots may import them to evaluate their own dishes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from engine.cookoff.config import BURN_AT, OPPOSITE_COOK, OPPOSITE_FLAVOUR, SIZES, Config, Judge
from engine.cookoff.state import Dish, DishBerry, components, square_index


def band(cook: int) -> str | None:
    """CK-2: 1-2 raw, 3 slightly raw, 4-5 medium, 6-7 well done; burned (8+) or uncooked: none."""
    if cook >= BURN_AT or cook <= 0:
        return None
    if cook <= 2:
        return "raw"
    if cook == 3:
        return "slightly raw"
    if cook <= 5:
        return "medium"
    return "well done"


def burned(cook: int) -> bool:
    return cook >= BURN_AT


def flavour_chain(dish: Dish, flavour: str, config: Config) -> tuple[list[DishBerry], int]:
    """CK-6: the largest orthogonally connected group of the dish's berries having `flavour` (largest by
    count, then by potency sum; burned berries have no flavour), and its potency."""
    having = {
        square_index(b.square): b
        for b in dish.berries
        if not burned(b.cook) and config.berry(b.berry).potency(flavour) > 0
    }
    best: list[DishBerry] = []
    best_key = (0, 0)
    for group in components(set(having)):
        chain = [having[i] for i in sorted(group)]
        potency = sum(config.berry(b.berry).potency(flavour) for b in chain)
        key = (len(chain), potency)
        if key > best_key:
            best, best_key = chain, key
    return best, best_key[1]


@dataclass(frozen=True, slots=True)
class Score:
    value: Fraction  # higher is better, except for the size judge (lower is better)
    lines: tuple[str, ...]
    details: dict[str, object]


def _describe(chain: list[DishBerry], flavour: str, potency: int, config: Config) -> str:
    if not chain:
        return f"no {flavour} berry, potency 0"
    parts = "+".join(str(config.berry(b.berry).potency(flavour)) for b in chain)
    squares = ", ".join(f"{b.square} {b.berry}" for b in chain)
    return f"{flavour} chain {squares} ({len(chain)} berries, potency {parts} = {potency})"


def score_dish(judge: Judge, dish: Dish, config: Config) -> Score:
    if judge.family == "flavour":
        opposite = OPPOSITE_FLAVOUR[judge.want]
        chain, potency = flavour_chain(dish, judge.want, config)
        other, other_potency = flavour_chain(dish, opposite, config)
        denominator = other_potency or 1  # CK-6 / clarification: an opposite potency of 0 counts as 1
        value = Fraction(potency, denominator)
        note = " (opposite 0 counts as 1)" if other_potency == 0 else ""
        wanted = _describe(chain, judge.want, potency, config)
        line = (
            f"{wanted}; opposite {_describe(other, opposite, other_potency, config)}"
            f"; score {potency}/{denominator}{note} = {value}"
        )
        details: dict[str, object] = {
            "chain": [b.square for b in chain],
            "potency": potency,
            "opposite_chain": [b.square for b in other],
            "opposite_potency": other_potency,
        }
        return Score(value, (line,), details)
    if judge.family == "size":
        perfect = SIZES[judge.want][2]
        size = len(dish.berries)
        value = Fraction(abs(size - perfect))
        line = f"size {size}, perfect {perfect}: score |{size} - {perfect}| = {value} (lower is better)"
        return Score(value, (line,), {"size": size, "perfect": perfect})
    opposite = OPPOSITE_COOK[judge.want]
    bands = [band(b.cook) for b in dish.berries]
    desired = bands.count(judge.want)
    against = bands.count(opposite)
    denominator = against or 1  # CK-6: a denominator of 0 counts as 1
    value = Fraction(desired, denominator)
    line = (
        f"{desired} tiles {judge.want}, {against} tiles {opposite}"
        f"{' (0 counts as 1)' if against == 0 else ''}; score {desired}/{denominator} = {value}"
    )
    return Score(value, (line,), {"desired": desired, "opposite": against})


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    index: int
    judge: Judge
    scores: tuple[str, ...]
    winner: str | None
    lines: tuple[str, ...]
    details: tuple[dict[str, object] | None, ...]


def judge_one(
    index: int, judge: Judge, names: Sequence[str], dishes: Sequence[Dish | None], config: Config
) -> JudgeVerdict:
    lines = [f"Judge {index} ({judge.criterion()}), CK-6:"]
    scores: list[Score | None] = []
    for name, dish in zip(names, dishes, strict=True):
        if dish is None:
            scores.append(None)
            lines.append(f"  {name} has no dish and loses this judge (CK-6)")
            continue
        score = score_dish(judge, dish, config)
        scores.append(score)
        lines.append(f"  {name} dish {dish.number}: " + " ".join(score.lines))
    winner: str | None = None
    a, b = scores
    if a is None and b is None:
        lines.append("  neither player has a dish: nobody wins this judge")
    elif a is None or b is None:
        winner = names[1] if a is None else names[0]
        lines.append(f"  {winner} wins this judge (the other has no dish)")
    elif a.value == b.value:
        lines.append(f"  equal scores ({a.value}): nobody wins this judge (CK-6)")
    else:
        lower_wins = judge.family == "size"
        first_better = (a.value < b.value) if lower_wins else (a.value > b.value)
        winner = names[0] if first_better else names[1]
        lines.append(
            f"  {winner} wins this judge ({a.value} vs {b.value}, {'lower' if lower_wins else 'higher'} is better)"
        )
    texts = tuple("-" if s is None else str(s.value) for s in scores)
    return JudgeVerdict(
        index, judge, texts, winner, tuple(lines), tuple(None if s is None else s.details for s in scores)
    )


def final_decision(verdicts: Sequence[JudgeVerdict], names: Sequence[str], dmo: str) -> tuple[str, str, list[str]]:
    """CK-6: two judges or more win; otherwise the first judge's winner; otherwise the DMO."""
    wins = {name: sum(1 for v in verdicts if v.winner == name) for name in names}
    lines = ["Judges won: " + ", ".join(f"{name} {wins[name]}" for name in names)]
    for name in names:
        if wins[name] >= 2:
            lines.append(f"{name} won two judges or more and wins the match (rule text: two of three judges)")
            return name, "two judges", lines
    first = verdicts[0].winner
    lines.append("nobody won two judges; the first judge revealed decides")
    if first is not None:
        lines.append(f"{first} won judge one and wins the match (rule text: tie -> first judge)")
        return first, "judge one", lines
    lines.append(f"nobody won judge one; the DMO {dmo} wins the match (rule text: then the DMO)")
    return dmo, "dmo", lines
