"""Commands: the set-up (where each miner starts) and a round's sealed orders.

Miners are named by letter (b c p s t: Bully, Claimer, Prospector, Scout, Thief) and crystals by colour
letter (r b y g), as in the rule text's submission format.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Start:
    """`start b 3`: the Bully starts on space 3."""

    miner: str
    space: int


@dataclass(frozen=True, slots=True)
class Setup:
    """Where all five miners start (five different spaces). Only `end_early` set: ask to end the phase
    early keeping the set-up already submitted (LG-10)."""

    starts: tuple[Start, ...] = ()
    end_early: bool = False

    @property
    def only_end_early(self) -> bool:
        return not self.starts and self.end_early


@dataclass(frozen=True, slots=True)
class Move:
    """`move s 4`: the Scout moves 4 spaces forward."""

    miner: str
    steps: int


@dataclass(frozen=True, slots=True)
class Upgrade:
    """`upgrade b r`: raise the Bully's Scavenging (red) by one level."""

    miner: str
    crystal: str


@dataclass(frozen=True, slots=True)
class Orders:
    """A round's sealed orders: a move for every miner, upgrades, the bully's ability (MN-2). Only
    `end_early` set: ask to end the round early keeping the orders already submitted (LG-10)."""

    moves: tuple[Move, ...] = ()
    upgrades: tuple[Upgrade, ...] = ()
    bully: bool = False
    end_early: bool = False

    @property
    def only_end_early(self) -> bool:
        return not self.moves and not self.upgrades and not self.bully and self.end_early


COMMAND_TYPES: tuple[type, ...] = (Setup, Orders)
