"""Regions, sheep, loose ends and the product score (LG-2 .. LG-6, LG-11).

Cells are the 25 squares around the tile corners (x, y), x, y in 0..4 (LG-2). Two side-by-side cells
meet at a wall of two halves (tile spokes or frame spokes) through one edge midpoint (LG-3).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from math import prod

from engine.last_gathering.board import (
    SPOTS,
    Board,
    frame_spoke_at,
    quadrant_cell,
    section_quadrants,
    spokes,
)

Cell = tuple[int, int]
Half = tuple[str, int, str]  # ("tile", spot index, direction) or ("frame", -1, frame spoke)


@dataclass(frozen=True, slots=True)
class Wall:
    cells: tuple[Cell, Cell]
    halves: tuple[Half, Half]


def _walls() -> tuple[Wall, ...]:
    walls: list[Wall] = []
    for y in range(5):  # between (x, y) and (x+1, y): a vertical line through midpoint (x+.5, y)
        for x in range(4):
            upper: Half = ("tile", (y - 1) * 4 + x, "S") if y >= 1 else ("frame", -1, frame_spoke_at("N", x))
            lower: Half = ("tile", y * 4 + x, "N") if y <= 3 else ("frame", -1, frame_spoke_at("S", x))
            walls.append(Wall(((x, y), (x + 1, y)), (upper, lower)))
    for x in range(5):  # between (x, y) and (x, y+1): a horizontal line through midpoint (x, y+.5)
        for y in range(4):
            left: Half = ("tile", y * 4 + x - 1, "E") if x >= 1 else ("frame", -1, frame_spoke_at("W", y))
            right: Half = ("tile", y * 4 + x, "W") if x <= 3 else ("frame", -1, frame_spoke_at("E", y))
            walls.append(Wall(((x, y), (x, y + 1)), (left, right)))
    return tuple(walls)


WALLS = _walls()
CELLS: tuple[Cell, ...] = tuple((x, y) for y in range(5) for x in range(5))
SPOKE_SIDES: dict[str, tuple[Cell, Cell]] = {  # the cells on both sides of a spoke of tile (0, 0)
    "N": ((0, 0), (1, 0)),
    "E": ((1, 0), (1, 1)),
    "S": ((0, 1), (1, 1)),
    "W": ((0, 0), (0, 1)),
}


@dataclass(frozen=True, slots=True)
class LooseEnd:
    where: str  # plain words, e.g. "centre of B3" or "edge between B3 and B4"
    cells: tuple[Cell, Cell]


@dataclass(frozen=True, slots=True)
class Region:
    cells: tuple[Cell, ...]
    sheep: int
    loose_ends: int
    lake_adjacent: bool

    @property
    def score(self) -> int | None:
        return None if self.lake_adjacent else self.sheep - 2 * self.loose_ends

    def to_json(self) -> dict[str, object]:
        return {
            "cells": [list(cell) for cell in self.cells],
            "sheep": self.sheep,
            "loose_ends": self.loose_ends,
            "score": self.score,
            "lake_adjacent": self.lake_adjacent,
        }


@dataclass(frozen=True, slots=True)
class BoardScore:
    regions: tuple[Region, ...]
    score: int

    def trace(self, player: str) -> list[str]:
        lines = []
        for number, region in enumerate(self.regions, start=1):
            cells = " ".join(f"({x},{y})" for x, y in region.cells)
            if region.lake_adjacent:
                lines.append(f"{player} region {number}: cells {cells}; adjacent to the lake, not scored (LG-6)")
            else:
                lines.append(
                    f"{player} region {number}: cells {cells}; {region.sheep} sheep - 2 x {region.loose_ends}"
                    f" loose ends = {region.score} (LG-2, LG-5)"
                )
        scored = [r.score for r in self.regions if r.score is not None]
        if scored:
            lines.append(f"{player} score: product {' x '.join(map(str, scored))} = {self.score} (LG-11)")
        else:
            lines.append(f"{player} score: no region is scored, so the score is 1 (LG-6)")
        return lines


def _half_state(half: Half, board: Board, frame: Collection[str], lakes: Collection[int]) -> str:
    """'fence', 'lake' or 'open'."""
    where, index, name = half
    if where == "frame":
        return "fence" if name in frame else "open"
    if index in lakes:
        return "lake"
    tile = board[index]
    return "fence" if tile is not None and name in spokes(tile.kind, tile.rotation) else "open"


def _spot_name(index: int) -> str:
    return SPOTS[index]


def loose_ends(board: Board, frame: Collection[str], lakes: Collection[int] = ()) -> list[LooseEnd]:
    """LG-5: end-tile centres, and edge midpoints where exactly one half is fence (a lake never joins)."""
    found: list[LooseEnd] = []
    for index, tile in enumerate(board):
        if tile is None or index in lakes:
            continue
        tile_spokes = spokes(tile.kind, tile.rotation)
        if len(tile_spokes) == 1:
            (direction,) = tile_spokes
            c, r = index % 4, index // 4
            a, b = SPOKE_SIDES[direction]
            found.append(LooseEnd(f"centre of {SPOTS[index]}", ((a[0] + c, a[1] + r), (b[0] + c, b[1] + r))))
    for wall in WALLS:
        states = [_half_state(h, board, frame, lakes) for h in wall.halves]
        if states.count("fence") == 1:
            found.append(LooseEnd(_describe(wall), wall.cells))
    return found


def _describe(wall: Wall) -> str:
    names = [_spot_name(h[1]) if h[0] == "tile" else f"frame {h[2]}" for h in wall.halves]
    return f"edge between {names[0]} and {names[1]}"


def _find(parent: dict[Cell, Cell], cell: Cell) -> Cell:
    while parent[cell] != cell:
        parent[cell] = parent[parent[cell]]
        cell = parent[cell]
    return cell


def _lake_corners(lakes: Collection[int]) -> set[Cell]:
    corners: set[Cell] = set()
    for index in lakes:
        c, r = index % 4, index // 4
        corners |= {(c, r), (c + 1, r), (c, r + 1), (c + 1, r + 1)}
    return corners


def regions(board: Board, frame: Collection[str], lakes: Collection[int] = ()) -> tuple[Region, ...]:
    """LG-3: a wall separates two cells only when both halves are fence or lake."""
    parent: dict[Cell, Cell] = {cell: cell for cell in CELLS}
    for wall in WALLS:
        states = [_half_state(h, board, frame, lakes) for h in wall.halves]
        if "open" in states:
            a, b = (_find(parent, c) for c in wall.cells)
            parent[a] = b
    groups: dict[Cell, list[Cell]] = {}
    for cell in CELLS:
        groups.setdefault(_find(parent, cell), []).append(cell)

    lake_corners = _lake_corners(lakes)
    sheep: dict[Cell, int] = dict.fromkeys(groups, 0)
    for cell in CELLS:  # LG-2: one whole sheep per corner, incomplete at the lake's corners (LG-6)
        if cell not in lake_corners:
            sheep[_find(parent, cell)] += 1
    for index, tile in enumerate(board):  # LG-7: the extra sheep lies in its section's region
        if tile is None or tile.sheep is None or index in lakes:
            continue
        quadrant = sorted(section_quadrants(tile.kind, tile.sheep, tile.rotation))[0]
        sheep[_find(parent, quadrant_cell(index % 4, index // 4, quadrant))] += 1
    ends: dict[Cell, int] = dict.fromkeys(groups, 0)
    for end in loose_ends(board, frame, lakes):
        for root in {_find(parent, cell) for cell in end.cells}:
            ends[root] += 1

    out = [
        Region(
            cells=tuple(sorted(cells, key=lambda c: (c[1], c[0]))),
            sheep=sheep[root],
            loose_ends=ends[root],
            lake_adjacent=bool(lake_corners & set(cells)),
        )
        for root, cells in groups.items()
    ]
    return tuple(sorted(out, key=lambda region: (region.cells[0][1], region.cells[0][0])))


def score_board(board: Board, frame: Collection[str], lakes: Collection[int] | None = None) -> BoardScore:
    """The product of the scored regions' scores; 1 when none is scored (LG-6, LG-11).

    `lakes` defaults to every empty spot (at the end of the match that is the one last spot)."""
    if lakes is None:
        lakes = [index for index, tile in enumerate(board) if tile is None]
    found = regions(board, frame, lakes)
    scored = [region.score for region in found if region.score is not None]
    return BoardScore(found, prod(scored) if scored else 1)


def settled_loose_ends(board: Board, frame: Collection[str]) -> int:
    """Loose ends that no later tile can fix: neither half of their wall lies on an empty spot.

    A helper for bots judging a partial board (empty spots count as open, not as lakes)."""
    empty = {index for index, tile in enumerate(board) if tile is None}
    count = sum(1 for tile in board if tile is not None and len(spokes(tile.kind, tile.rotation)) == 1)
    for wall in WALLS:
        if any(h[0] == "tile" and h[1] in empty for h in wall.halves):
            continue
        states = [_half_state(h, board, frame, ()) for h in wall.halves]
        count += states.count("fence") == 1
    return count
