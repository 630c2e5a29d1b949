"""The match state: frozen, rebuilt exactly from the events at any version (clocks included, CK-7)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.cookoff.commands import Command
from engine.cookoff.config import COLUMNS, GRID, Config, Judge, Tree
from engine.errors import MalformedCommand
from engine.frozen import replace


class Phase(StrEnum):
    SETUP = "setup"
    GATHERING = "gathering"
    PLACEMENT = "placement"
    SABOTAGE = "sabotage"
    MOVES = "moves"
    REMOVAL = "removal"
    FINAL_CHOICE = "final_choice"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class PotBerry:
    berry: str
    cook: int = 0
    sabotage: bool = False  # placed by the opponent (it still belongs to this pot, CK-5b)


@dataclass(frozen=True, slots=True)
class DishBerry:
    square: str
    berry: str
    cook: int


@dataclass(frozen=True, slots=True)
class Dish:
    number: int
    round: int
    berries: tuple[DishBerry, ...]


@dataclass(frozen=True, slots=True)
class Seat:
    name: str
    inventory: tuple[int, ...]  # count per berry, in the config's berry order
    pot: tuple[PotBerry | None, ...]  # GRID*GRID squares, row by row
    reserve: float
    dishes: tuple[Dish, ...] = ()
    pending: Command | None = None  # this phase's binding submission, sealed until the phase resolves


@dataclass(frozen=True, slots=True)
class JudgeResult:
    index: int
    judge: Judge
    scores: tuple[str, ...]  # per seat, as text ("7/2", "3", "-" for no dish)
    winner: str | None


@dataclass(frozen=True, slots=True)
class Outcome:
    winner: str
    decision: str  # "two judges" | "judge one" | "dmo" | "time"
    chosen: tuple[int | None, ...]  # per seat
    judges: tuple[JudgeResult, ...] = ()
    lost_on_time: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class State:
    config: Config
    seed: int
    seats: tuple[Seat, Seat]
    schedule: tuple[tuple[Tree, ...], ...] = ()
    judges: tuple[Judge, ...] = ()
    revealed: int = 0  # judges revealed so far
    round: int = 0
    phase: Phase = Phase.SETUP
    opened_at: float = 0.0
    expected: frozenset[str] = frozenset()  # players who must submit in this phase
    outcome: Outcome | None = None
    # Rules version 2 (revised CK-6): the final choice runs on the clock like every phase (CK-7).
    # Rules version 1 (withdrawn CK-P4): base time only, then the latest dish (`dish_defaulted`).
    final_choice_on_clock: bool = True

    def seat(self, player: str) -> Seat:
        return self.seats[self.index(player)]

    def index(self, player: str) -> int:
        first, second = self.seats
        if first.name == player:
            return 0
        if second.name == player:
            return 1
        raise ValueError(f"{player!r} is not in list")  # as list.index says it

    def opponent(self, player: str) -> Seat:
        return self.seats[1 - self.index(player)]

    def with_seat(self, seat: Seat) -> State:
        first, second = self.seats
        return replace(self, seats=(seat, second) if self.index(seat.name) == 0 else (first, seat))

    @property
    def submitted(self) -> frozenset[str]:
        return frozenset(seat.name for seat in self.seats if seat.pending is not None)

    @property
    def awaiting(self) -> frozenset[str]:
        if self.phase in (Phase.SETUP, Phase.OVER):
            return frozenset()
        return self.expected - self.submitted

    @property
    def trees(self) -> tuple[Tree, ...]:
        if 1 <= self.round <= len(self.schedule) and self.phase is not Phase.FINAL_CHOICE:
            return self.schedule[self.round - 1]
        return ()

    def base_deadline(self) -> float:
        return self.opened_at + self.config.time(self.phase.value)

    def deadline_of(self, player: str) -> float:
        """When this player's clock runs out in the current phase (CK-7): base time, then reserve (the
        final choice too, revised CK-6). Under rules version 1 the final choice had no reserve: its base
        deadline applied the default (withdrawn CK-P4)."""
        if self.phase is Phase.FINAL_CHOICE and not self.final_choice_on_clock:
            return self.base_deadline()
        return self.base_deadline() + self.seat(player).reserve


def square_name(index: int) -> str:
    return f"{COLUMNS[index % GRID]}{index // GRID + 1}"


def square_index(name: str) -> int:
    """CK-3: columns A-E left to right, rows 1-5 top to bottom."""
    known = _SQUARE_INDEX.get(name)  # events hold square names as square_name writes them
    if known is not None:
        return known
    text = name.strip().upper()
    if len(text) != 2 or text[0] not in COLUMNS or not text[1].isdigit() or not 1 <= int(text[1]) <= GRID:
        raise MalformedCommand(f"{name!r} is not a square of the pot; expected a column A-E and a row 1-5, e.g. C3")
    return (int(text[1]) - 1) * GRID + COLUMNS.index(text[0])


_SQUARE_INDEX = {square_name(index): index for index in range(GRID * GRID)}


def neighbours(index: int) -> list[int]:
    row, col = divmod(index, GRID)
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = row + dr, col + dc
        if 0 <= r < GRID and 0 <= c < GRID:
            out.append(r * GRID + c)
    return out


def connected(indices: set[int]) -> bool:
    """True when the squares form one orthogonally connected group."""
    if not indices:
        return False
    start = next(iter(indices))
    seen = {start}
    todo = [start]
    while todo:
        for nb in neighbours(todo.pop()):
            if nb in indices and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    return seen == indices


def components(indices: set[int]) -> list[set[int]]:
    """The orthogonally connected groups of `indices`, in order of their smallest square."""
    left = set(indices)
    groups = []
    while left:
        start = min(left)
        group = {start}
        todo = [start]
        while todo:
            for nb in neighbours(todo.pop()):
                if nb in left and nb not in group:
                    group.add(nb)
                    todo.append(nb)
        left -= group
        groups.append(group)
    return groups
