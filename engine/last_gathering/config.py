"""Match configuration: players, garnets, tiebreak order, frames, tile supply, rounds, durations, and
the first deadline as a UTC time (rules version 2, LG-12).

Everything data-like is configuration with the rulings' values as defaults (LG-4 frames, LG-11 garnets
and order), so a host can load the original values when they have them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from engine.contract import Json
from engine.errors import InvalidConfig

KINDS: tuple[str, ...] = ("end", "straight", "bend", "junction", "cross")
SIDES: tuple[str, ...] = ("N", "E", "S", "W")
FRAME_SPOKES: tuple[str, ...] = tuple(f"{side}{pos}" for side in SIDES for pos in range(1, 5))

# LG-4: six default frames standing in for the lost pictures.
DEFAULT_FRAMES: dict[str, list[str]] = {
    "F1": [],
    "F2": list(FRAME_SPOKES),
    "F3": [f"{side}{pos}" for side in SIDES for pos in (1, 4)],
    "F4": [f"{side}{pos}" for side in SIDES for pos in (2, 3)],
    "F5": [f"{side}{pos}" for side in ("N", "S") for pos in range(1, 5)],
    "F6": [f"{side}1" for side in SIDES],
}
DEFAULT_SEATS = 4  # the rule text's game is for four shepherds
ALLOWED_SEATS = range(2, 7)  # 2 to 6 players
DEFAULT_STARTING_GARNETS = 20  # project ruling LG-P1: the text's garnet counts are not given
HOUR = 3600


@dataclass(frozen=True, slots=True)
class Config:
    players: tuple[str, ...]
    starting_garnets: tuple[int, ...]  # by player index
    tiebreak_order: tuple[str, ...]
    frames: tuple[tuple[str, frozenset[str]], ...]  # (name, frame spokes such as "N1"), offered order
    supply: tuple[tuple[str, int], ...]  # (kind, times it may be won)
    rounds: int
    first_frame_round_seconds: float
    frame_round_seconds: float
    step_seconds: float
    # Rules version 2 (LG-12): deadlines sit on the grid anchored at the first frame deadline, which a
    # host may give as a UTC time (`first_deadline_at`, held here as Unix seconds, the match clock's unit).
    # Rules version 1 (LG-P4): each phase's deadline is its opening time plus its duration.
    grid: bool = True
    first_deadline_at: float | None = None
    # Rules version 3 (LG-13): with a day's period the grid sits at noon UTC, the text's "usual time".
    noon: bool = False

    def index(self, player: str) -> int:
        return self.players.index(player)

    def frame_spokes(self, name: str) -> frozenset[str]:
        return dict(self.frames)[name]

    @property
    def frame_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.frames)

    @property
    def steps(self) -> int:
        """Step t resolves auction t (t <= rounds) and placement t-1 (t >= 2), LG-8."""
        return self.rounds + 1


def default_config(players: Sequence[str], grid: bool = True, noon: bool = False) -> dict[str, Json]:
    """The defaults; `grid` False gives rules version 1's keys (no `first_deadline_at`); `noon` (rules
    version 3, LG-13) makes the first frame round last at least 48 h, to the next noon UTC."""
    config: dict[str, Json] = {
        "players": list(players),
        "starting_garnets": dict.fromkeys(players, DEFAULT_STARTING_GARNETS),
        "tiebreak_order": None,  # None: by starting garnets, highest first, then the order given
        "frames": {name: list(spokes) for name, spokes in DEFAULT_FRAMES.items()},
        "tile_supply": dict.fromkeys(KINDS, 4),
        "rounds": 15,
        "first_frame_round_seconds": (48 if noon else 54) * HOUR,
        "frame_round_seconds": 24 * HOUR,
        "step_seconds": 24 * HOUR,
    }
    if grid:
        config["first_deadline_at"] = None  # None: the first frame deadline is the start + its duration
    return config


def _int(value: Json, what: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidConfig(f"{what} must be a whole number, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise InvalidConfig(f"{what} must be {bound}, got {value}")
    return value


def _seconds(value: Json, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise InvalidConfig(f"{what} must be a positive number of seconds, got {value!r}")
    return float(value)


def utc_seconds(value: Json, what: str = "first_deadline_at") -> float:
    """An ISO 8601 UTC time such as "2026-12-05T12:00:00Z" (or "+00:00") -> Unix seconds."""
    example = '"2026-12-05T12:00:00Z"'
    if not isinstance(value, str):
        raise InvalidConfig(f"{what} must be a UTC time written like {example}, got {value!r}")
    try:
        when = datetime.fromisoformat(value.strip())
    except ValueError:
        raise InvalidConfig(f"{what} must be a UTC time written like {example}, got {value!r}") from None
    if when.tzinfo is None or when.utcoffset() != timedelta(0):
        raise InvalidConfig(f"{what} must be in UTC, ending in Z or +00:00 (like {example}), got {value!r}")
    return when.timestamp()


def parse_config(raw: Mapping[str, Json], grid: bool = True, noon: bool = False) -> Config:
    known = set(default_config([], grid))
    unknown = sorted(set(raw) - known)
    if unknown:
        later = " (first_deadline_at is a key of rules version 2)" if "first_deadline_at" in unknown else ""
        raise InvalidConfig(f"unknown configuration keys: {', '.join(unknown)}{later}")
    if "players" not in raw:
        raise InvalidConfig("the configuration must name the players")
    merged = default_config(list(raw["players"]) if isinstance(raw["players"], list) else [], grid, noon)
    merged.update(raw)
    players = merged["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
        raise InvalidConfig("players must be a list of non-empty names")
    if len(players) not in ALLOWED_SEATS:
        raise InvalidConfig(f"The Last Gathering is played by 2 to 6 players, got {len(players)}")
    if len(set(players)) != len(players):
        raise InvalidConfig("player names must be distinct")

    garnets_raw = merged["starting_garnets"]
    if isinstance(garnets_raw, int) and not isinstance(garnets_raw, bool):
        garnets_raw = dict.fromkeys(players, garnets_raw)
    if not isinstance(garnets_raw, dict) or set(garnets_raw) != set(players):
        raise InvalidConfig("starting_garnets must give a number for every player (or one number for all)")
    garnets = tuple(_int(garnets_raw[p], f"starting garnets of {p}", 0) for p in players)

    order_raw = merged["tiebreak_order"]
    if order_raw is None:
        # LG-11 / rule text: highest starting garnets first, then the order given.
        order = tuple(sorted(players, key=lambda p: -garnets[players.index(p)]))
    else:
        if not isinstance(order_raw, list) or sorted(order_raw) != sorted(players):
            raise InvalidConfig("tiebreak_order must list every player exactly once")
        order = tuple(order_raw)

    frames = _frames(merged["frames"])
    if len(frames) < len(players):
        raise InvalidConfig(f"{len(players)} players need at least {len(players)} frames, got {len(frames)}")

    supply_raw = merged["tile_supply"]
    if not isinstance(supply_raw, dict) or set(supply_raw) != set(KINDS):
        raise InvalidConfig(f"tile_supply must give a count for each kind: {', '.join(KINDS)}")
    supply = tuple((kind, _int(supply_raw[kind], f"tile supply of {kind}", 0)) for kind in KINDS)
    rounds = _int(merged["rounds"], "rounds", 1, 15)
    if sum(count for _, count in supply) < rounds:
        raise InvalidConfig(f"the tile supply must allow at least {rounds} tiles to be won")

    return Config(
        players=tuple(players),
        starting_garnets=garnets,
        tiebreak_order=order,
        frames=frames,
        supply=supply,
        rounds=rounds,
        first_frame_round_seconds=_seconds(merged["first_frame_round_seconds"], "first_frame_round_seconds"),
        frame_round_seconds=_seconds(merged["frame_round_seconds"], "frame_round_seconds"),
        step_seconds=_seconds(merged["step_seconds"], "step_seconds"),
        grid=grid,
        first_deadline_at=None if merged.get("first_deadline_at") is None else utc_seconds(merged["first_deadline_at"]),
        noon=noon,
    )


def _frames(frames_raw: Json) -> tuple[tuple[str, frozenset[str]], ...]:
    """The host's frames (name -> frame spokes), in the order given."""
    if not isinstance(frames_raw, dict) or not frames_raw:
        raise InvalidConfig("frames must map frame names to lists of frame spokes such as 'N1'")
    for name, spokes in frames_raw.items():
        if not isinstance(spokes, list) or not all(s in FRAME_SPOKES for s in spokes):
            raise InvalidConfig(
                f"frame {name!r} must be a list of frame spokes N1-N4, E1-E4, S1-S4, W1-W4, got {spokes!r}"
            )
    return _shared_frames(tuple((str(name), tuple(spokes)) for name, spokes in frames_raw.items()))


@functools.lru_cache(maxsize=64)
def _shared_frames(frames: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[tuple[str, frozenset[str]], ...]:
    """One value for every match with these frames (most play the default ones): a frame's frozenset costs
    216 bytes, 3.7 kB a match for the default sixteen. Frozen, so matches may share it."""
    return tuple((name, frozenset(spokes)) for name, spokes in frames)
