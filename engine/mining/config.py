"""Match configuration: players, garnets, rounds, the spaces table and the phase durations.

The 15-space table of the rule text is the default; a host may replace it (any number of spaces from 5
up, so five miners can start on different spaces).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.contract import Json
from engine.errors import InvalidConfig

DEFAULT_SEATS = 5  # the rule text's game is for five miners
ALLOWED_SEATS = range(2, 9)  # 2 to 8 players
ROLES = ("b", "c", "p", "s", "t")
ROLE_NAMES = {"b": "Bully", "c": "Claimer", "p": "Prospector", "s": "Scout", "t": "Thief"}
COLOURS = ("r", "b", "y", "g")
COLOUR_NAMES = {"r": "red", "b": "blue", "y": "yellow", "g": "green"}
TRAIT_NAMES = {"r": "Scavenging", "b": "Exposure", "y": "Dexterity", "g": "Friendship"}
RESOURCES = ("gold", "r", "b", "y", "g")  # the five piles of a space
BONUS_ROLES = {"bully": "b", "claimer": "c", "prospector": "p", "scout": "s", "thief": "t"}

DAY = 24 * 60 * 60
DEFAULT_STARTING_GARNETS = 10  # enough for a few garnet substitutions (MN-4); hosts set their own

# The rule text's table: (gold, red, blue, yellow, green, role whose miners earn 1 extra gold there).
_TABLE: tuple[tuple[int, int, int, int, int, str | None], ...] = (
    (0, 3, 0, 6, 0, None),
    (0, 2, 2, 2, 2, None),
    (5, 0, 0, 0, 0, "claimer"),
    (0, 4, 5, 0, 0, None),
    (0, 0, 0, 4, 5, None),
    (5, 0, 0, 0, 0, "bully"),
    (0, 6, 0, 0, 3, None),
    (0, 0, 6, 3, 0, None),
    (5, 0, 0, 0, 0, "prospector"),
    (0, 5, 4, 0, 0, None),
    (0, 0, 3, 0, 6, None),
    (5, 0, 0, 0, 0, "scout"),
    (7, 0, 0, 0, 0, None),
    (0, 0, 0, 5, 4, None),
    (5, 0, 0, 0, 0, "thief"),
)

DEFAULT_SPACES: list[dict[str, Json]] = [
    {"space": i, "gold": g, "red": r, "blue": b, "yellow": y, "green": gr, "bonus": bonus}
    for i, (g, r, b, y, gr, bonus) in enumerate(_TABLE, start=1)
]

KEYS = ("players", "starting_garnets", "rounds", "spaces", "setup_seconds", "round_seconds")


@dataclass(frozen=True, slots=True)
class SpaceSpec:
    """What a space gains at the start of every round, and the role its ability rewards."""

    gold: int  # gold spaces also gain the round number (MN-1 step 1)
    crystals: tuple[int, int, int, int]  # r, b, y, g
    bonus: str | None  # role letter whose miners earn 1 extra gold there, or None

    def income(self, round_number: int) -> tuple[int, int, int, int, int]:
        gold = self.gold + round_number if self.gold > 0 else 0
        return (gold, *self.crystals)


@dataclass(frozen=True, slots=True)
class Config:
    players: tuple[str, ...]
    starting_garnets: int
    rounds: int
    spaces: tuple[SpaceSpec, ...]
    setup_seconds: int
    round_seconds: int


def default_config(players: Sequence[str]) -> dict[str, Json]:
    return {
        "players": list(players),
        "starting_garnets": DEFAULT_STARTING_GARNETS,
        "rounds": 7,
        "spaces": [dict(space) for space in DEFAULT_SPACES],
        "setup_seconds": DAY,
        "round_seconds": DAY,
    }


def _int(config: Mapping[str, Json], key: str, low: int, high: int | None = None) -> int:
    value = config.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high and value > high):
        bound = f"{low}..{high}" if high else f">= {low}"
        raise InvalidConfig(f"{key} must be an integer {bound}, got {value!r}")
    return value


def _space(index: int, raw: Json) -> SpaceSpec:
    if not isinstance(raw, dict):
        raise InvalidConfig(f"spaces[{index}] must be an object, got {raw!r}")
    unknown = set(raw) - {"space", "gold", "red", "blue", "yellow", "green", "bonus"}
    if unknown:
        raise InvalidConfig(f"spaces[{index}] has unknown keys {sorted(unknown)}")
    if raw.get("space", index + 1) != index + 1:
        raise InvalidConfig(f"spaces[{index}] is numbered {raw.get('space')!r}; spaces are numbered 1, 2, ...")
    amounts = [_int({k: raw.get(k, 0)}, k, 0) for k in ("gold", "red", "blue", "yellow", "green")]
    bonus = raw.get("bonus")
    if bonus is not None and bonus not in BONUS_ROLES:
        raise InvalidConfig(f"spaces[{index}].bonus must be one of {sorted(BONUS_ROLES)} or null, got {bonus!r}")
    return SpaceSpec(amounts[0], (amounts[1], amounts[2], amounts[3], amounts[4]), BONUS_ROLES.get(str(bonus)))


def parse_config(config: Mapping[str, Json]) -> Config:
    unknown = set(config) - set(KEYS)
    if unknown:
        raise InvalidConfig(f"unknown configuration keys {sorted(unknown)}; known: {', '.join(KEYS)}")
    players = config.get("players")
    if not isinstance(players, list | tuple) or len(players) not in ALLOWED_SEATS:
        raise InvalidConfig(f"players must be a list of 2 to 8 names, got {players!r}")
    if not all(isinstance(p, str) and p.strip() for p in players) or len(set(players)) != len(players):
        raise InvalidConfig(f"players must be distinct non-empty names, got {players!r}")
    spaces = config.get("spaces")
    if not isinstance(spaces, list | tuple) or len(spaces) < len(ROLES):
        raise InvalidConfig(f"spaces must be a list of at least {len(ROLES)} spaces (five miners start apart)")
    return Config(
        players=tuple(players),
        starting_garnets=_int(config, "starting_garnets", 0),
        rounds=_int(config, "rounds", 1),
        spaces=tuple(_space(i, raw) for i, raw in enumerate(spaces)),
        setup_seconds=_int(config, "setup_seconds", 1),
        round_seconds=_int(config, "round_seconds", 1),
    )
