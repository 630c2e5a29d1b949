"""The one command a player sends: a submission holding any of the orders the current phase needs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FrameBid:
    """`bid 3 on frame F2`: a bid in garnets for one offered frame."""

    frame: str
    bid: int


@dataclass(frozen=True, slots=True)
class TileBid:
    """`bid 5 bend with sheep on A`: a bid, a tile kind, and the section of an optional extra sheep."""

    bid: int
    kind: str
    sheep: str | None = None


@dataclass(frozen=True, slots=True)
class Placement:
    """`place B3 rotate 90`: a spot A1-D4 of one's own board and a clockwise rotation."""

    spot: str
    rotation: int = 0


@dataclass(frozen=True, slots=True)
class Submit:
    """One submission per message; its orders replace the pending ones of the same kind (LG-10)."""

    frame_bid: FrameBid | None = None
    tile_bid: TileBid | None = None
    placement: Placement | None = None
    end_early: bool = False


COMMAND_TYPES: tuple[type, ...] = (Submit,)  # the nested orders travel inside it
