"""Commands: one per phase submission (CK-4). Class names are the protobuf message names.

An empty tuple is a valid submission that does nothing ("I will not sabotage.").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HarvesterSend:
    berry: str
    count: int


@dataclass(frozen=True, slots=True)
class SendHarvesters:
    """Gathering: harvesters per tree of this round (0..4 in total)."""

    sends: tuple[HarvesterSend, ...] = ()


@dataclass(frozen=True, slots=True)
class Placement:
    berry: str
    square: str  # CK-3, e.g. "C3"


@dataclass(frozen=True, slots=True)
class PlaceBerries:
    """Placement: up to 4 berries from the inventory into one's own pot."""

    placements: tuple[Placement, ...] = ()


@dataclass(frozen=True, slots=True)
class Sabotage:
    """Sabotage: up to 2 berries from the inventory into the opponent's pot."""

    placements: tuple[Placement, ...] = ()


@dataclass(frozen=True, slots=True)
class Move:
    source: str
    target: str


@dataclass(frozen=True, slots=True)
class MoveBerries:
    """Moves: up to 4 one-square orthogonal steps in one's own pot, applied in order."""

    moves: tuple[Move, ...] = ()


@dataclass(frozen=True, slots=True)
class RemoveDish:
    """Dish removal: one orthogonally connected group of berries of one's pot, or none."""

    squares: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ChooseDish:
    """Final choice: the dish (numbered 1.. in the order removed) that faces the judges."""

    number: int


COMMAND_TYPES: tuple[type, ...] = (SendHarvesters, PlaceBerries, Sabotage, MoveBerries, RemoveDish, ChooseDish)
Command = SendHarvesters | PlaceBerries | Sabotage | MoveBerries | RemoveDish | ChooseDish
