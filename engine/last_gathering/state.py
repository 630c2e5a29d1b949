"""The match state: a frozen value folded from events (see rules.evolve)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.last_gathering.board import EMPTY_BOARD, Board, Tile
from engine.last_gathering.commands import FrameBid, Placement, TileBid
from engine.last_gathering.config import Config


class Phase(StrEnum):
    """The match's phases; the values are those stored matches and views have always used."""

    SETUP = "setup"
    FRAMES = "frames"  # frame rounds: every player without a frame bids (rule text: Frame)
    STEPS = "steps"  # placement t-1 and auction t together (LG-8)
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Pending:
    """A player's sealed orders in the current phase (LG-10: the last submission counts)."""

    frame_bid: FrameBid | None = None
    tile_bid: TileBid | None = None
    placement: Placement | None = None
    end_early: bool = False


@dataclass(frozen=True, slots=True)
class AuctionResult:
    """A resolved tile auction, public from then on."""

    step: int
    winner: str
    kind: str
    sheep: str | None
    paid: int


@dataclass(frozen=True, slots=True)
class PlayerState:
    name: str
    garnets: int
    frame: str | None = None
    board: Board = EMPTY_BOARD
    pending: Pending = Pending()


@dataclass(frozen=True, slots=True)
class State:
    config: Config
    seed: int
    players: tuple[PlayerState, ...]
    order: tuple[str, ...]  # the tiebreak order, earliest wins ties
    supply: tuple[tuple[str, int], ...]  # (kind, times it may still be won)
    phase: Phase = Phase.SETUP
    frame_round: int = 0
    step: int = 0
    deadline: float | None = None
    grid_anchor: float | None = None  # the first frame round's deadline: LG-12's grid starts there
    tile_to_place: Tile | None = None  # won at the previous auction, placed in this step
    auctions: tuple[AuctionResult, ...] = ()  # every resolved tile auction, in order
    last_resolution: dict[str, Any] | None = None  # public summary of the last resolution
    final: str | None = None  # once over, the match_finished event (scores, ranking) as JSON: views.results

    def player(self, name: str) -> PlayerState:
        return self.players[self.config.index(name)]

    def left(self, kind: str) -> int:
        return dict(self.supply)[kind]

    @property
    def available_kinds(self) -> tuple[str, ...]:
        return tuple(kind for kind, count in self.supply if count > 0)

    @property
    def claimed_frames(self) -> frozenset[str]:
        return frozenset(p.frame for p in self.players if p.frame is not None)

    @property
    def open_frames(self) -> tuple[str, ...]:
        return tuple(name for name in self.config.frame_names if name not in self.claimed_frames)

    @property
    def auction_open(self) -> bool:
        return self.phase == Phase.STEPS and self.step <= self.config.rounds

    @property
    def placement_open(self) -> bool:
        return self.phase == Phase.STEPS and self.step >= 2

    def acting(self) -> tuple[str, ...]:
        """Players who take part in the current phase."""
        if self.phase == Phase.FRAMES:
            return tuple(p.name for p in self.players if p.frame is None)
        if self.phase == Phase.STEPS:
            return self.config.players
        return ()

    def complete(self, name: str) -> bool:
        """Has this player every order the current phase needs (LG-10)?"""
        pending = self.player(name).pending
        if self.phase == Phase.FRAMES:
            return pending.frame_bid is not None
        if self.phase == Phase.STEPS:
            bid_ok = pending.tile_bid is not None or not self.auction_open
            place_ok = pending.placement is not None or not self.placement_open
            return bid_ok and place_ok
        return False
