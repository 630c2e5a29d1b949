"""Geometry, regions, loose ends, the lake and the product score (LG-1 .. LG-7, LG-11)."""

from __future__ import annotations

import pytest
from lg_helpers import ALL_SPOKES, board_of, crosses_except

from engine.last_gathering.board import (
    CANONICAL_SECTIONS,
    EMPTY_BOARD,
    ROTATIONS,
    Board,
    frame_spoke_at,
    quadrant_cell,
    section_quadrants,
    spokes,
    spot_xy,
)
from engine.last_gathering.config import DEFAULT_FRAMES
from engine.last_gathering.scoring import Region, loose_ends, regions, score_board


def region_of(found: tuple[Region, ...], cell: tuple[int, int]) -> Region:
    return next(r for r in found if cell in r.cells)


def test_lg1_spokes_follow_the_canonical_orientation_and_turn_clockwise() -> None:
    """LG-1: end = N, straight = N,S, bend = N,E, junction = E,S,W, cross = all; rotation clockwise."""
    assert spokes("end", 0) == {"N"}
    assert spokes("end", 90) == {"E"}
    assert spokes("end", 270) == {"W"}
    assert spokes("straight", 90) == {"E", "W"}
    assert spokes("bend", 0) == {"N", "E"}
    assert spokes("bend", 90) == {"E", "S"}  # clockwise, and a reflection (N, W) is never produced
    assert {frozenset(spokes("bend", r)) for r in ROTATIONS} == {
        frozenset(p) for p in ({"N", "E"}, {"E", "S"}, {"S", "W"}, {"W", "N"})
    }
    assert spokes("junction", 0) == {"E", "S", "W"}
    assert spokes("junction", 180) == {"W", "N", "E"}
    assert spokes("cross", 270) == {"N", "E", "S", "W"}


def test_lg1_spots_are_columns_a_to_d_and_rows_1_to_4_from_the_top_left() -> None:
    """LG-1: B3 is column 1, row 2 (both counted from 0)."""
    assert spot_xy("B3") == (1, 2)
    assert spot_xy("A1") == (0, 0)
    assert spot_xy("D4") == (3, 3)


def test_lg2_every_corner_holds_one_whole_sheep_in_its_own_cell() -> None:
    """LG-2: 25 sheep on the 25 corners; with no fence at all the 25 cells form one region."""
    (only,) = regions(EMPTY_BOARD, frame=frozenset(), lakes=[])
    assert len(only.cells) == 25 and only.sheep == 25 and only.loose_ends == 0
    assert only.score == 25


def test_lg3_wall_separates_only_when_both_halves_are_fence() -> None:
    """LG-3: cells (1,0) and (2,0) meet at the wall through B1's north edge: frame N2 over B1's N spoke."""
    walls = crosses_except({}, lake="D4")  # crosses close every other wall around (1,0)
    both_fence = regions(walls, frame=ALL_SPOKES, lakes=[15])
    assert region_of(both_fence, (1, 0)).cells == ((1, 0),)
    without_frame_half = regions(walls, frame=ALL_SPOKES - {"N2"}, lakes=[15])
    assert region_of(without_frame_half, (1, 0)).cells == ((1, 0), (2, 0))
    without_tile_half = regions(crosses_except({"B1": ("junction", 0)}, lake="D4"), frame=ALL_SPOKES, lakes=[15])
    assert region_of(without_tile_half, (1, 0)).cells == ((1, 0), (2, 0))


def test_lg3_fences_never_run_along_tile_edges_nor_the_board_edge() -> None:
    """LG-3: with no spokes (empty spots, empty frame) nothing separates; the rim closes the outside."""
    found = regions(board_of({}), frame=frozenset(), lakes=[])
    assert len(found) == 1 and found[0].loose_ends == 0


def test_lg4_default_frames_number_positions_clockwise_from_each_side() -> None:
    """LG-4: N left to right, E top to bottom, S right to left, W bottom to top; six default frames."""
    assert frame_spoke_at("N", 0) == "N1" and frame_spoke_at("N", 3) == "N4"
    assert frame_spoke_at("E", 0) == "E1" and frame_spoke_at("E", 3) == "E4"
    assert frame_spoke_at("S", 3) == "S1" and frame_spoke_at("S", 0) == "S4"
    assert frame_spoke_at("W", 3) == "W1" and frame_spoke_at("W", 0) == "W4"
    assert DEFAULT_FRAMES["F1"] == []
    assert len(DEFAULT_FRAMES["F2"]) == 16
    assert sorted(DEFAULT_FRAMES["F3"]) == sorted(f"{s}{p}" for s in "NESW" for p in (1, 4))
    assert sorted(DEFAULT_FRAMES["F4"]) == sorted(f"{s}{p}" for s in "NESW" for p in (2, 3))
    assert sorted(DEFAULT_FRAMES["F5"]) == sorted(f"{s}{p}" for s in "NS" for p in range(1, 5))
    assert sorted(DEFAULT_FRAMES["F6"]) == ["E1", "N1", "S1", "W1"]


def test_lg5_a_frame_spoke_without_a_matching_tile_spoke_is_a_loose_end() -> None:
    """LG-5: frame N2 meets B1, a junction with no N spoke: one loose end, in the region of (1,0)+(2,0)."""
    board = crosses_except({"B1": ("junction", 0)}, lake="D4")
    ends = loose_ends(board, ALL_SPOKES, lakes=[15])
    assert [e.where for e in ends if "B1" in e.where] == ["edge between frame N2 and B1"]
    region = region_of(regions(board, ALL_SPOKES, lakes=[15]), (1, 0))
    assert region.cells == ((1, 0), (2, 0)) and region.loose_ends == 1 and region.score == 2 - 2


def test_lg5_a_tile_spoke_without_a_matching_frame_spoke_is_a_loose_end() -> None:
    """LG-5 (the reverse): B1's N spoke reaches the board edge where the frame has no N2 spoke."""
    board = crosses_except({}, lake="D4")
    ends = loose_ends(board, ALL_SPOKES - {"N2"}, lakes=[15])
    assert [e.where for e in ends if "N2" in e.where] == ["edge between frame N2 and B1"]
    region = region_of(regions(board, ALL_SPOKES - {"N2"}, lakes=[15]), (1, 0))
    assert region.loose_ends == 1


def test_lg5_the_rim_joins_every_frame_spoke_and_matched_spokes_are_no_loose_end() -> None:
    """LG-5: crosses everywhere in the full frame: no loose end except at the lake's edges."""
    board = crosses_except({}, lake="D4")
    assert all("D4" in e.where for e in loose_ends(board, ALL_SPOKES, lakes=[15]))


def test_lg5_an_end_tile_centre_is_a_loose_end() -> None:
    """LG-5: the end tile's centre has exactly one spoke."""
    board = crosses_except({"B2": ("end", 0)}, lake="D4")
    ends = [e.where for e in loose_ends(board, ALL_SPOKES, lakes=[15])]
    assert "centre of B2" in ends


def test_lg6_the_lake_blocks_like_a_fence_but_a_spoke_ending_there_is_still_a_loose_end() -> None:
    """LG-6: lake at D4 amid crosses: its four corner cells stay apart, and its four edges are loose ends."""
    board = crosses_except({}, lake="D4")
    found = regions(board, ALL_SPOKES, lakes=[15])
    for cell in ((3, 3), (4, 3), (3, 4), (4, 4)):
        region = region_of(found, cell)
        assert region.cells == (cell,) and region.lake_adjacent and region.score is None
        assert region.loose_ends == 2  # each lake-corner cell touches two of the lake's edges
    assert len([e for e in loose_ends(board, ALL_SPOKES, lakes=[15]) if "D4" in e.where]) == 4


def split_board_with_lake_at_c2() -> tuple[Board, frozenset[str], list[int]]:
    """Straights (N-S) at C1, C3, C4, the lake at C2, frame F5 (all N and S spokes): the line x = 2.5 is
    fenced from rim to rim (the lake blocks its middle), other spots are open."""
    board = board_of({"C1": ("straight", 0), "C3": ("straight", 0), "C4": ("straight", 0)})
    frame = frozenset(DEFAULT_FRAMES["F5"])
    return board, frame, [6]  # C2 is index 1 * 4 + 2


def test_lg6_two_separate_regions_around_the_lake_are_both_unscored() -> None:
    """LG-6: the lake at C2 touches the region west of the fence line and the region east of it."""
    board, frame, lakes = split_board_with_lake_at_c2()
    found = regions(board, frame, lakes)
    assert len(found) == 2
    west, east = sorted(found, key=lambda r: r.cells[0][0])
    assert set(west.cells) == {(x, y) for x in range(3) for y in range(5)}
    assert set(east.cells) == {(x, y) for x in (3, 4) for y in range(5)}
    assert west.lake_adjacent and east.lake_adjacent
    assert west.score is None and east.score is None


def test_lg6_a_board_where_every_region_is_at_the_lake_scores_1() -> None:
    """LG-6 (rule clarification): no scored region -> the score is 1."""
    board, frame, lakes = split_board_with_lake_at_c2()
    result = score_board(board, frame, lakes)
    assert all(r.lake_adjacent for r in result.regions)
    assert result.score == 1
    assert "no region is scored, so the score is 1" in result.trace("Ann")[-1]


QUADRANT_TURN = {"NW": "NE", "NE": "SE", "SE": "SW", "SW": "NW"}
# LG-7, written out from the ruling's words (canonical orientation).
SECTION_WORDS = {
    ("end", "A"): {"NW", "NE", "SE", "SW"},
    ("straight", "A"): {"NW", "SW"},
    ("straight", "B"): {"NE", "SE"},
    ("bend", "A"): {"NE"},
    ("bend", "B"): {"NW", "SE", "SW"},
    ("junction", "A"): {"NW", "NE"},
    ("junction", "B"): {"SW"},
    ("junction", "C"): {"SE"},
    ("cross", "A"): {"NW"},
    ("cross", "B"): {"NE"},
    ("cross", "C"): {"SE"},
    ("cross", "D"): {"SW"},
}


@pytest.mark.parametrize("rotation", ROTATIONS)
@pytest.mark.parametrize(("kind", "section"), sorted(SECTION_WORDS))
def test_lg7_a_populated_sheep_lies_in_the_region_of_its_section(kind: str, section: str, rotation: int) -> None:
    """LG-7: each section letter of each kind under each rotation: the extra sheep joins its section's cells."""
    quadrants = set(SECTION_WORDS[(kind, section)])
    for _ in range(rotation // 90):
        quadrants = {QUADRANT_TURN[q] for q in quadrants}
    assert section_quadrants(kind, section, rotation) == quadrants
    assert set(CANONICAL_SECTIONS[kind]) == {s for k, s in SECTION_WORDS if k == kind}
    # B2 (column 1, row 1) amid crosses in the full frame: the section's region is exactly its cells.
    board = crosses_except({"B2": (kind, rotation, section)}, lake="D4")
    found = regions(board, ALL_SPOKES, lakes=[15])
    cells = {quadrant_cell(1, 1, q) for q in quadrants}
    region = region_of(found, next(iter(cells)))
    assert set(region.cells) == cells
    assert region.sheep == len(cells) + 1
    plain = region_of(regions(crosses_except({"B2": (kind, rotation)}, lake="D4"), ALL_SPOKES, [15]), min(cells))
    assert plain.sheep == len(cells)


def test_lg11_a_region_scoring_0_makes_the_product_0() -> None:
    """LG-11: (1,0)+(2,0) hold 2 sheep and 1 loose end (frame N2 against a junction): 2 - 2 = 0."""
    board = crosses_except({"B1": ("junction", 0)}, lake="D4")
    assert score_board(board, ALL_SPOKES).score == 0


def test_a_board_built_by_hand_scores_its_regions_and_their_product() -> None:
    """LG-2..LG-7, LG-11 on one board, worked out by hand.

    Frame: every spoke but N2, S3 and W2. Lake: D4 (the one empty spot). Crosses everywhere except:
      B1..B4 straights turned 90 (spokes E, W only). The line x = 1.5 has no tile spoke, and frame N2 and
        S3 (its two ends) are absent, so (1,y) and (2,y) meet for each row y = 0..4; B's E and W spokes
        against the crosses' spokes close the walls between rows. Five regions of 2 cells: 2 sheep, no
        loose end: 2 each.
      D1 an end turned 180 (spoke S only) with its extra sheep on A (the whole tile): its N, E, W walls
        open, so (3,0), (4,0), (3,1), (4,1) join. Loose ends: the centre of D1; frame N4 against D1 (a
        frame spoke without a tile spoke); frame E1 against D1 (the same); C1's E spoke against D1 (no W
        spoke) = 4. Sheep 4 + 1 = 5. Score 5 - 2 x 4 = -3.
      A3 a cross with its sheep on D (SW quadrant, cell (0,3)) and A4 a cross with its sheep on A (NW
        quadrant, cell (0,3)). Frame W2 (row 3) is absent, so A3's W spoke is a loose end (a tile spoke
        without a frame spoke) and (0,2), (0,3) join: 2 + 2 sheep, 1 loose end: 4 - 2 = 2.
    Lake-adjacent: (3,3), (4,3), (3,4), (4,4), single cells, not scored.
    Five more single cells, 1 sheep, no loose end, score 1: (0,0), (0,1), (0,4), (3,2), (4,2).
    Product: 2 x 2 x 2 x 2 x 2 x -3 x 2 x 1 x 1 x 1 x 1 x 1 = -192.
    """
    column_b = {f"B{r}": ("straight", 90) for r in range(1, 5)}
    board = crosses_except(
        {**column_b, "D1": ("end", 180, "A"), "A4": ("cross", 0, "A"), "A3": ("cross", 0, "D")}, lake="D4"
    )
    frame = ALL_SPOKES - {"N2", "S3", "W2"}
    result = score_board(board, frame)  # the empty spot D4 is the lake
    found = result.regions
    for y in range(5):
        pair = region_of(found, (1, y))
        assert pair.cells == ((1, y), (2, y))
        assert (pair.sheep, pair.loose_ends, pair.score) == (2, 0, 2)
    d1 = region_of(found, (3, 0))
    assert set(d1.cells) == {(3, 0), (4, 0), (3, 1), (4, 1)}
    assert (d1.sheep, d1.loose_ends, d1.score) == (5, 4, -3)
    west = region_of(found, (0, 2))
    assert set(west.cells) == {(0, 2), (0, 3)}
    assert (west.sheep, west.loose_ends, west.score) == (4, 1, 2)
    singles = [x for x in found if len(x.cells) == 1 and not x.lake_adjacent]
    assert sorted(c for x in singles for c in x.cells) == [(0, 0), (0, 1), (0, 4), (3, 2), (4, 2)]
    assert all(x.score == 1 for x in singles)
    assert sorted(c for x in found if x.lake_adjacent for c in x.cells) == [(3, 3), (3, 4), (4, 3), (4, 4)]
    assert len(found) == 5 + 1 + 1 + 5 + 4
    assert result.score == 2**5 * -3 * 2 == -192
    trace = "\n".join(result.trace("Ann"))
    assert "5 sheep - 2 x 4 loose ends = -3" in trace and "= -192" in trace
