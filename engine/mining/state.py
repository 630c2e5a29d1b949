"""The match state (frozen) and its JSON-plain snapshots, as written into resolution events."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from engine.contract import Json
from engine.mining.commands import Move, Orders, Setup, Start, Upgrade
from engine.mining.config import COLOURS, RESOURCES, ROLES, Config

Pile = tuple[int, int, int, int, int]  # gold, r, b, y, g


class Phase(StrEnum):
    """The match's stages; the values are those views have always shown (a view's "stage")."""

    CREATED = "created"
    SETUP = "setup"  # every player places five miners (MN-P8)
    ROUND = "round"  # orders for the open round (MN-1)
    BETWEEN = "between"  # a phase resolved, the next one not yet opened (within one decision)
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Miner:
    role: str  # b c p s t
    space: int  # 0 before the set-up resolves
    levels: tuple[int, int, int, int] = (0, 0, 0, 0)  # Scavenging r, Exposure b, Dexterity y, Friendship g

    def level(self, colour: str) -> int:
        return self.levels[COLOURS.index(colour)]


@dataclass(frozen=True, slots=True)
class Player:
    name: str
    gold: int
    crystals: tuple[int, int, int, int]  # r, b, y, g
    garnets: int
    replacements: int = 0  # crystals replaced by garnets so far (MN-4 prices)
    miners: tuple[Miner, ...] = tuple(Miner(role, 0) for role in ROLES)

    def miner(self, role: str) -> Miner:
        return self.miners[ROLES.index(role)]

    def crystal(self, colour: str) -> int:
        return self.crystals[COLOURS.index(colour)]


@dataclass(frozen=True, slots=True)
class Final:
    """The end of the match (MN-5), as recorded in the match_finished event."""

    tokens: tuple[tuple[str, int], ...]
    candidates: tuple[str, ...]
    garnets_earned: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class State:
    config: Config
    seed: int
    players: tuple[Player, ...]
    piles: tuple[Pile, ...]
    phase: Phase = Phase.CREATED
    round: int = 0
    deadline: float | None = None
    pending: tuple[tuple[str, Setup | Orders], ...] = ()  # sealed submissions of the open phase
    final: Final | None = None
    last_resolution: dict[str, Json] | None = field(default=None, compare=False)

    def player(self, name: str) -> Player:
        for player in self.players:
            if player.name == name:
                return player
        raise KeyError(name)

    def pending_of(self, name: str) -> Setup | Orders | None:
        for who, command in self.pending:
            if who == name:
                return command
        return None


def miner_name(player: str, role: str) -> str:
    """The text's naming: the player and the role letter, e.g. Liridium-T."""
    return f"{player}-{role.upper()}"


def pile_json(pile: Sequence[int]) -> dict[str, Json]:
    return dict(zip(RESOURCES, pile, strict=True))


def pile_from(data: dict[str, Json]) -> Pile:  # RESOURCES' order
    return (data["gold"], data["r"], data["b"], data["y"], data["g"])


def player_json(player: Player) -> dict[str, Json]:
    return {
        "name": player.name,
        "gold": player.gold,
        "crystals": dict(zip(COLOURS, player.crystals, strict=True)),
        "garnets": player.garnets,
        "replacements": player.replacements,
        "miners": {
            m.role: {"space": m.space, "levels": dict(zip(COLOURS, m.levels, strict=True))} for m in player.miners
        },
    }


def player_from(data: dict[str, Json], previous: Player | None = None) -> Player:
    """A player from its JSON snapshot. With `previous` (the same player before this event), what did not
    change is kept rather than rebuilt: a resolution moves a few miners and leaves the rest, and the fold
    builds every snapshot of every player otherwise."""
    crystals = data["crystals"]
    miners = data["miners"]
    kept = previous.miners if previous is not None else (None,) * len(ROLES)
    player = Player(
        data["name"],
        data["gold"],
        (crystals["r"], crystals["b"], crystals["y"], crystals["g"]),  # COLOURS' order
        data["garnets"],
        data["replacements"],
        tuple(_miner_from(role, miners[role], old) for role, old in zip(ROLES, kept, strict=True)),
    )
    return previous if player == previous else player


def _miner_from(role: str, data: dict[str, Json], previous: Miner | None) -> Miner:
    levels = data["levels"]
    space = data["space"]
    levels_now = (levels["r"], levels["b"], levels["y"], levels["g"])  # COLOURS' order
    if previous is not None and previous.role == role and previous.space == space and previous.levels == levels_now:
        return previous
    return Miner(role, space, levels_now)


def setup_json(command: Setup) -> dict[str, Json]:
    return {"starts": {s.miner: s.space for s in command.starts}, "end_early": command.end_early}


def setup_from(data: dict[str, Json]) -> Setup:
    starts = tuple(Start(role, space) for role, space in data["starts"].items())
    return Setup(starts, bool(data["end_early"]))


def orders_json(command: Orders) -> dict[str, Json]:
    return {
        "moves": {m.miner: m.steps for m in command.moves},
        "upgrades": [[u.miner, u.crystal] for u in command.upgrades],
        "bully": command.bully,
        "end_early": command.end_early,
    }


# Every round's orders repeat the same few moves and upgrades: the fold shares one (immutable) value of each.
_move = functools.lru_cache(maxsize=1024, typed=True)(Move)
_upgrade = functools.lru_cache(maxsize=1024, typed=True)(Upgrade)


def orders_from(data: dict[str, Json]) -> Orders:
    return Orders(
        moves=tuple(_move(role, steps) for role, steps in data["moves"].items()),
        upgrades=tuple(_upgrade(miner, crystal) for miner, crystal in data["upgrades"]),
        bully=bool(data["bully"]),
        end_early=bool(data["end_early"]),
    )
