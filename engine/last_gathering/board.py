"""Board geometry (LG-1, LG-4, LG-7): spots, tile spokes under rotation, sections, frame spokes.

Tile (c, r) is the unit square [c, c+1] x [r, r+1]; columns A-D left to right, rows 1-4 top to bottom.
A board is a tuple of 16 spots, index r * 4 + c, each a PlacedTile or None (empty).
"""

from __future__ import annotations

from dataclasses import dataclass

DIRECTIONS: tuple[str, ...] = ("N", "E", "S", "W")  # clockwise
QUADRANTS: tuple[str, ...] = ("NW", "NE", "SE", "SW")  # clockwise
ROTATIONS: tuple[int, ...] = (0, 90, 180, 270)
COLUMNS = "ABCD"
SPOTS: tuple[str, ...] = tuple(f"{COLUMNS[c]}{r + 1}" for r in range(4) for c in range(4))

# LG-1: spokes in canonical orientation.
CANONICAL_SPOKES: dict[str, frozenset[str]] = {
    "end": frozenset({"N"}),
    "straight": frozenset({"N", "S"}),
    "bend": frozenset({"N", "E"}),
    "junction": frozenset({"E", "S", "W"}),
    "cross": frozenset({"N", "E", "S", "W"}),
}
# LG-7: sections in canonical orientation, as the quadrants they cover.
CANONICAL_SECTIONS: dict[str, dict[str, frozenset[str]]] = {
    "end": {"A": frozenset(QUADRANTS)},
    "straight": {"A": frozenset({"NW", "SW"}), "B": frozenset({"NE", "SE"})},
    "bend": {"A": frozenset({"NE"}), "B": frozenset({"NW", "SE", "SW"})},
    "junction": {"A": frozenset({"NW", "NE"}), "B": frozenset({"SW"}), "C": frozenset({"SE"})},
    "cross": {
        "A": frozenset({"NW"}),
        "B": frozenset({"NE"}),
        "C": frozenset({"SE"}),
        "D": frozenset({"SW"}),
    },
}
KIND_LETTERS: dict[str, str] = {"-": "end", "I": "straight", "L": "bend", "T": "junction", "+": "cross"}
LETTER_OF: dict[str, str] = {kind: letter for letter, kind in KIND_LETTERS.items()}


@dataclass(frozen=True, slots=True)
class Tile:
    """A tile as won at auction: its kind and the section of its extra sheep, if populated."""

    kind: str
    sheep: str | None = None


@dataclass(frozen=True, slots=True)
class PlacedTile:
    kind: str
    rotation: int
    sheep: str | None = None


Board = tuple[PlacedTile | None, ...]
EMPTY_BOARD: Board = (None,) * 16


def spot_index(spot: str) -> int:
    return SPOTS.index(spot.upper())


def spot_xy(spot: str) -> tuple[int, int]:
    index = spot_index(spot)
    return index % 4, index // 4


def _turn(items: tuple[str, ...], name: str, rotation: int) -> str:
    return items[(items.index(name) + rotation // 90) % 4]


def spokes(kind: str, rotation: int) -> frozenset[str]:
    """LG-1: rotation is clockwise, so N becomes E at 90 degrees."""
    return frozenset(_turn(DIRECTIONS, d, rotation) for d in CANONICAL_SPOKES[kind])


def section_quadrants(kind: str, section: str, rotation: int) -> frozenset[str]:
    return frozenset(_turn(QUADRANTS, q, rotation) for q in CANONICAL_SECTIONS[kind][section])


def sections(kind: str) -> tuple[str, ...]:
    return tuple(CANONICAL_SECTIONS[kind])


def quadrant_cell(c: int, r: int, quadrant: str) -> tuple[int, int]:
    """Each tile quadrant lies in the cell around the tile corner it touches (LG-2)."""
    dx, dy = {"NW": (0, 0), "NE": (1, 0), "SE": (1, 1), "SW": (0, 1)}[quadrant]
    return c + dx, r + dy


def frame_spoke_at(side: str, index: int) -> str:
    """LG-4: the frame spoke name at column/row `index` of a side, positions numbered clockwise."""
    position = {"N": index + 1, "E": index + 1, "S": 4 - index, "W": 4 - index}[side]
    return f"{side}{position}"


def empty_spots(board: Board) -> tuple[str, ...]:
    return tuple(SPOTS[i] for i, tile in enumerate(board) if tile is None)


def place(board: Board, spot: str, tile: PlacedTile) -> Board:
    index = spot_index(spot)
    return (*board[:index], tile, *board[index + 1 :])
