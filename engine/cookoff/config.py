"""Match configuration: the berry table, flame map, judges, phase times and reserve (CK-1, CK-2, CK-7).

Everything data-like is configuration with the rulings' values as defaults, so a host can load the
original match's values when they have them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engine.contract import Json
from engine.errors import InvalidConfig

FLAVOURS = ("spicy", "dry", "sweet", "bitter", "sour")
# The rule text's table: not symmetric, it runs in a cycle (spicy -> bitter -> dry -> sour -> sweet).
OPPOSITE_FLAVOUR = {"spicy": "bitter", "dry": "sour", "sweet": "spicy", "bitter": "dry", "sour": "sweet"}
SIZES = {"small": (1, 8, 4), "medium": (9, 17, 13), "large": (18, 25, 22)}  # low, high, perfect
COOK_BANDS = ("raw", "slightly raw", "medium", "well done")
OPPOSITE_COOK = {"raw": "well done", "well done": "raw", "slightly raw": "medium", "medium": "slightly raw"}
FAMILIES = ("flavour", "size", "cook")
ALLOWED_SEATS = range(2, 3)  # a duel: exactly two players
BURN_AT = 8  # CK-2: cook time 8 or more is burned
GRID = 5
COLUMNS = "ABCDE"
PHASE_KEYS = ("gathering", "placement", "sabotage", "moves", "removal", "final_choice")
DEFAULT_TIMES = {"gathering": 60, "placement": 90, "sabotage": 45, "moves": 45, "removal": 30, "final_choice": 120}
DEFAULT_FLAME = [
    [1, 1, 1, 1, 1],
    [1, 2, 2, 2, 1],
    [1, 2, 3, 2, 1],
    [1, 2, 2, 2, 1],
    [1, 1, 1, 1, 1],
]


@dataclass(frozen=True, slots=True)
class Berry:
    name: str
    group: int
    quantities: tuple[int, ...]
    flavours: tuple[int, ...]  # potency per flavour, in FLAVOURS order (CK-1)

    def potency(self, flavour: str) -> int:
        return self.flavours[FLAVOURS.index(flavour)]


@dataclass(frozen=True, slots=True)
class Judge:
    family: str  # "flavour" | "size" | "cook"
    want: str  # a flavour, a size or a cook band

    def criterion(self) -> str:
        if self.family == "flavour":
            return f"I want the main flavour to be {self.want}."
        if self.family == "size":
            return f"I want the dish to be {self.want} sized."
        return f"I want the dish to be {self.want}."

    def to_json(self) -> dict[str, Json]:
        return {"family": self.family, "want": self.want}


@dataclass(frozen=True, slots=True)
class Tree:
    berry: str
    quantity: int

    def to_json(self) -> dict[str, Json]:
        return {"berry": self.berry, "quantity": self.quantity}


@dataclass(frozen=True, slots=True)
class Config:
    players: tuple[str, str]
    dmo: str
    berries: tuple[Berry, ...]
    flame: tuple[int, ...]  # GRID*GRID intensities, row by row
    judges: tuple[Judge, ...] | None  # None: drawn from the seed at start
    schedule: tuple[tuple[Tree, ...], ...] | None  # None: drawn from the seed at start (CK-5)
    times: tuple[tuple[str, float], ...]
    reserve: float
    rounds: int
    trees_per_round: int
    harvesters: int
    max_place: int
    max_sabotage: int
    max_moves: int
    judge_reveal_after: tuple[int, ...]  # judge k is revealed after this round (0 = at the start)

    def time(self, phase: str) -> float:
        return dict(self.times)[phase]

    def berry(self, name: str) -> Berry:
        for berry in self.berries:
            if berry.name == name:
                return berry
        raise KeyError(name)

    def berry_index(self, name: str) -> int:
        return [berry.name for berry in self.berries].index(name)


def load_default_berries() -> list[dict[str, Json]]:
    """The shipped table (engine/cookoff/berries.csv, CK-1) as config rows."""
    text = resources.files("engine.cookoff").joinpath("berries.csv").read_text(encoding="utf-8")
    rows: list[dict[str, Json]] = []
    for row in csv.DictReader(io.StringIO(text)):
        rows.append(
            {
                "name": row["berry"],
                "group": int(row["group"]),
                "quantities": [int(q) for q in row["quantities"].split(";")],
                "flavours": {flavour: int(row[flavour]) for flavour in FLAVOURS},
            }
        )
    return rows


def default_config(players: Sequence[str]) -> dict[str, Json]:
    names = list(players)
    return {
        "players": names,
        # Project ruling CK-P1: the DMO defaults to the second player named (the opponent chosen for
        # the Death Match); a host may name either player.
        "dmo": names[1] if len(names) > 1 else None,
        "berries": load_default_berries(),
        "flame": [list(row) for row in DEFAULT_FLAME],
        "judges": None,
        "schedule": None,
        "times": dict(DEFAULT_TIMES),
        "reserve": 180,
        "rounds": 15,
        "trees_per_round": 6,
        "harvesters": 4,
        "max_place": 4,
        "max_sabotage": 2,
        "max_moves": 4,
        "judge_reveal_after": [0, 5, 10],
    }


def _int(config: Mapping[str, Json], key: str, low: int, high: int | None = None) -> int:
    value = config.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise InvalidConfig(f"{key} must be an integer {bound}, got {value!r}")
    return value


def _number(value: Any, what: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        raise InvalidConfig(f"{what} must be a positive number of seconds, got {value!r}")
    return value


def parse_config(config: Mapping[str, Json]) -> Config:
    players = config.get("players")
    if (
        not isinstance(players, list | tuple)
        or len(players) not in ALLOWED_SEATS
        or not all(isinstance(p, str) for p in players)
    ):
        raise InvalidConfig(f"Cookoff is a duel: players must be two names, got {players!r}")
    if players[0] == players[1] or not all(p.strip() and ":" not in p for p in players):
        raise InvalidConfig(f"player names must be distinct, non-empty and without ':', got {players!r}")
    dmo = config.get("dmo")
    if not isinstance(dmo, str) or dmo not in players:
        raise InvalidConfig(f"dmo must be one of the players {list(players)}, got {dmo!r}")
    berries = _parse_berries(config.get("berries"))
    flame = _parse_flame(config.get("flame"))
    names = {berry.name for berry in berries}
    times_in = config.get("times")
    if not isinstance(times_in, Mapping):
        raise InvalidConfig("times must map each phase to seconds")
    times = tuple((key, _number(times_in.get(key), f"times.{key}")) for key in PHASE_KEYS)
    reserve = config.get("reserve")
    if not isinstance(reserve, int | float) or isinstance(reserve, bool) or reserve < 0:
        raise InvalidConfig(f"reserve must be a number of seconds >= 0, got {reserve!r}")
    rounds = _int(config, "rounds", 1)
    per_round = _int(config, "trees_per_round", 1, len(berries))
    reveal = config.get("judge_reveal_after")
    if (
        not isinstance(reveal, list | tuple)
        or len(reveal) != 3
        or not all(isinstance(r, int) and 0 <= r <= rounds for r in reveal)
        or list(reveal) != sorted(reveal)
    ):
        raise InvalidConfig(f"judge_reveal_after must be three non-decreasing rounds in 0..{rounds}, got {reveal!r}")
    slots = sum(len(berry.quantities) for berry in berries)
    if config.get("schedule") is None and slots < rounds * per_round:
        raise InvalidConfig(f"the berry table gives {slots} tree slots, fewer than {rounds} rounds x {per_round}")
    return Config(
        players=(players[0], players[1]),
        dmo=dmo,
        berries=berries,
        flame=flame,
        judges=_parse_judges(config.get("judges")),
        schedule=_parse_schedule(config.get("schedule"), names, rounds, per_round),
        times=times,
        reserve=reserve,
        rounds=rounds,
        trees_per_round=per_round,
        harvesters=_int(config, "harvesters", 0),
        max_place=_int(config, "max_place", 0),
        max_sabotage=_int(config, "max_sabotage", 0),
        max_moves=_int(config, "max_moves", 0),
        judge_reveal_after=tuple(reveal),
    )


def _parse_berries(rows: Json) -> tuple[Berry, ...]:
    if not isinstance(rows, list | tuple) or not rows:
        raise InvalidConfig("berries must be a non-empty list of berry rows")
    berries: list[Berry] = []
    for row in rows:
        try:
            name = row["name"]
            quantities = tuple(int(q) for q in row["quantities"])
            flavours = tuple(int(row["flavours"].get(f, 0)) for f in FLAVOURS)
            group = int(row.get("group", 0))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidConfig(f"bad berry row {row!r}: {exc}") from None
        if not isinstance(name, str) or not name.isalpha():
            raise InvalidConfig(f"berry names must be single words, got {name!r}")
        if not quantities or min(quantities) < 0 or min(flavours) < 0:
            raise InvalidConfig(f"berry {name}: quantities and potencies must be >= 0")
        berries.append(Berry(name, group, quantities, flavours))
    lowered = [berry.name.lower() for berry in berries]
    if len(set(lowered)) != len(lowered):
        raise InvalidConfig("berry names must be distinct")
    return tuple(berries)


def _parse_flame(rows: Json) -> tuple[int, ...]:
    if (
        not isinstance(rows, list | tuple)
        or len(rows) != GRID
        or not all(isinstance(row, list | tuple) and len(row) == GRID for row in rows)
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for row in rows for v in row)
    ):
        raise InvalidConfig(f"flame must be a {GRID}x{GRID} grid of intensities >= 0, got {rows!r}")
    return tuple(v for row in rows for v in row)


def _parse_judges(rows: Json) -> tuple[Judge, ...] | None:
    if rows is None:
        return None
    if not isinstance(rows, list | tuple) or len(rows) != 3:
        raise InvalidConfig(f"judges must be null (drawn from the seed) or a list of three, got {rows!r}")
    judges = []
    for row in rows:
        family = row.get("family") if isinstance(row, Mapping) else None
        want = row.get("want") if isinstance(row, Mapping) else None
        allowed = {"flavour": FLAVOURS, "size": tuple(SIZES), "cook": COOK_BANDS}.get(str(family))
        if allowed is None or want not in allowed:
            raise InvalidConfig(
                f"bad judge {row!r}: family is flavour/size/cook, want is one of "
                "spicy/dry/sweet/bitter/sour, small/medium/large, raw/slightly raw/medium/well done"
            )
        judges.append(Judge(str(family), str(want)))
    return tuple(judges)


def _parse_schedule(
    rounds_in: Json, names: set[str], rounds: int, per_round: int
) -> tuple[tuple[Tree, ...], ...] | None:
    if rounds_in is None:
        return None
    if not isinstance(rounds_in, list | tuple) or len(rounds_in) != rounds:
        raise InvalidConfig(f"schedule must be null or list {rounds} rounds of trees")
    schedule = []
    for number, trees in enumerate(rounds_in, start=1):
        try:
            row = tuple(Tree(str(t["berry"]), int(t["quantity"])) for t in trees)
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidConfig(f"schedule round {number}: bad tree ({exc})") from None
        berries = [tree.berry for tree in row]
        if len(row) != per_round or len(set(berries)) != len(berries) or not set(berries) <= names:
            raise InvalidConfig(f"schedule round {number}: {per_round} distinct known berries expected (CK-5)")
        schedule.append(row)
    return tuple(schedule)
