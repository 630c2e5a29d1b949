"""The Last Gathering as an SVG picture, drawn only from a view (see engine/last_gathering/views.py).

Geometry follows the rulings LG-1 .. LG-7: tile (c, r) is the unit square [c, c+1] x [r, r+1]; a tile's
fences are spokes from its centre to edge midpoints; frame spokes run from the board edge out to the
rim (itself a fence); a sheep sits on each of the 25 tile corners; the last empty spot becomes the lake.
A player's sealed orders are drawn only in that player's own picture (the view holds them under "you").
"""

from __future__ import annotations

import textwrap
from typing import Any
from xml.sax.saxutils import escape

from engine.last_gathering.board import CANONICAL_SECTIONS, CANONICAL_SPOKES, COLUMNS, DIRECTIONS, QUADRANTS

View = dict[str, Any]
Point = tuple[float, float]

# ---------------------------------------------------------------- sizes (pixels)

UNIT = 44  # one tile
RING = UNIT // 2  # the frame ring: border cells reach to the rim (LG-2)
BOARD_SPAN = 4 * UNIT + 2 * RING
PANEL_PAD = 24
PANEL_W = BOARD_SPAN + 2 * PANEL_PAD
NAME_H = 22
LETTERS_H = 14
CAPTION_LINE = 16
CAPTION_LINES = 3
PANEL_H = NAME_H + LETTERS_H + BOARD_SPAN + 8 + CAPTION_LINE * CAPTION_LINES
PANELS_PER_ROW = 4
MARGIN = 16
MIN_WIDTH = 760
LINE_H = 18
CHAR_W = 6.6  # rough width of a 12px character, for wrapping
GLYPH = 26  # a small tile in the header (kinds left)
BIG_GLYPH = 44  # the tile to place
FRAME_GLYPH = 40  # a frame offered, with its ring
SHEEP_R = 4.5
EXTRA_SHEEP_R = 5.0
FENCE_W = 5
FONT = "font-family:Helvetica,Arial,sans-serif"

# ---------------------------------------------------------------- colours

BACKGROUND = "#ffffff"
INK = "#222222"
MUTED = "#777777"
RING_FILL = "#e6d8b8"
TILE_FILL = "#e4f0d0"
EMPTY_FILL = "#f4f4f4"
GRID = "#a8a8a8"
FENCE = "#7a4a1e"
LAKE = "#3f88d8"
SHEEP_FILL = "#ffffff"
SHEEP_EDGE = "#555555"
EXTRA_EDGE = "#c28a00"
INCOMPLETE_SHEEP = "#d0d0d0"
PENDING = "#c0392b"
UNSCORED_FILL = "#bbbbbb"
REGION_FILLS = ("#f7b2c4", "#b5d8f7", "#fde39a", "#c5e8b7", "#d9c2f0", "#fbc99a", "#a8e6e0", "#f2b8e8")
REGION_OPACITY = 0.45

# where a tile's spoke ends, as a fraction of the tile from its top-left corner
SPOKE_END: dict[str, Point] = {"N": (0.5, 0.0), "E": (1.0, 0.5), "S": (0.5, 1.0), "W": (0.0, 0.5)}
QUADRANT_CENTRE: dict[str, Point] = {"NW": (0.25, 0.25), "NE": (0.75, 0.25), "SE": (0.75, 0.75), "SW": (0.25, 0.75)}
OPPOSITE: dict[str, str] = {"N": "S", "S": "N", "E": "W", "W": "E", "NW": "SE", "SE": "NW", "NE": "SW", "SW": "NE"}


# ---------------------------------------------------------------- small SVG helpers


def _attr(value: object) -> str:
    return escape(str(value), {'"': "&quot;"})


def _num(value: float) -> str:
    """Coordinates with at most two decimals, so output is stable and short."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _text(x: float, y: float, content: str, size: int = 12, cls: str = "label", **style: str) -> str:
    weight = style.get("weight", "normal")
    anchor = style.get("anchor", "start")
    fill = style.get("fill", INK)
    return (
        f'<text class="{cls}" x="{_num(x)}" y="{_num(y)}" font-size="{size}" font-weight="{weight}"'
        f' text-anchor="{anchor}" fill="{fill}" style="{FONT}">{escape(content)}</text>'
    )


def _line(a: Point, b: Point, cls: str, colour: str = FENCE, width: float = FENCE_W, extra: str = "") -> str:
    return (
        f'<line class="{cls}" x1="{_num(a[0])}" y1="{_num(a[1])}" x2="{_num(b[0])}" y2="{_num(b[1])}"'
        f' stroke="{colour}" stroke-width="{_num(width)}" stroke-linecap="round"{extra}/>'
    )


def _rect(x: float, y: float, w: float, h: float, cls: str, fill: str, extra: str = "") -> str:
    return (
        f'<rect class="{cls}" x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" fill="{fill}"{extra}/>'
    )


def _circle(centre: Point, r: float, cls: str, fill: str, edge: str, width: float = 1.2) -> str:
    return (
        f'<circle class="{cls}" cx="{_num(centre[0])}" cy="{_num(centre[1])}" r="{_num(r)}"'
        f' fill="{fill}" stroke="{edge}" stroke-width="{_num(width)}"/>'
    )


def _title(content: str) -> str:
    return f"<title>{escape(content)}</title>"


# ---------------------------------------------------------------- geometry (LG-1, LG-4, LG-7)


def _turns(rotation: Any) -> int:
    return (int(rotation) // 90) % 4 if isinstance(rotation, int) else 0


def tile_spokes(kind: str, rotation: Any) -> list[str]:
    """LG-1: the spokes of a tile turned clockwise, in N, E, S, W order."""
    turned = {DIRECTIONS[(DIRECTIONS.index(d) + _turns(rotation)) % 4] for d in CANONICAL_SPOKES.get(kind, ())}
    return [d for d in DIRECTIONS if d in turned]


def section_quadrants(kind: str, section: str, rotation: Any) -> list[str]:
    """LG-7: the quadrants a section covers once the tile is turned."""
    canonical = CANONICAL_SECTIONS.get(kind, {}).get(section, frozenset())
    turned = {QUADRANTS[(QUADRANTS.index(q) + _turns(rotation)) % 4] for q in canonical}
    return [q for q in QUADRANTS if q in turned]


def extra_sheep_spot(kind: str, section: str, rotation: Any) -> Point:
    """Where to draw a populated tile's extra sheep, as a fraction of the tile, clear of its fences."""
    quadrants = section_quadrants(kind, section, rotation)
    if len(quadrants) == 3:  # e.g. the outside of a bend: the quadrant across from the missing one
        missing = next(q for q in QUADRANTS if q not in quadrants)
        return QUADRANT_CENTRE[OPPOSITE[missing]]
    if len(quadrants) == 4:  # the whole end tile: the half away from its one spoke
        spokes = tile_spokes(kind, rotation)
        if not spokes:
            return (0.5, 0.5)
        ex, ey = SPOKE_END[OPPOSITE[spokes[0]]]
        return ((0.5 + ex) / 2, (0.5 + ey) / 2)
    if not quadrants:
        return (0.5, 0.5)
    xs = [QUADRANT_CENTRE[q][0] for q in quadrants]
    ys = [QUADRANT_CENTRE[q][1] for q in quadrants]
    return (sum(xs) / len(xs), sum(ys) / len(ys))


def frame_spoke_segment(name: str) -> tuple[Point, Point] | None:
    """LG-4: a frame spoke ("N1".."W4") in board units, from the board edge midpoint out to the rim."""
    if len(name) != 2 or name[0] not in "NESW" or name[1] not in "1234":
        return None
    side, position = name[0], int(name[1])
    if side == "N":
        x = position - 0.5
        return (x, 0.0), (x, -0.5)
    if side == "E":
        y = position - 0.5
        return (4.0, y), (4.5, y)
    if side == "S":
        x = 4 - position + 0.5
        return (x, 4.0), (x, 4.5)
    y = 4 - position + 0.5
    return (0.0, y), (-0.5, y)


def spot_xy(spot: str) -> tuple[int, int] | None:
    if len(spot) != 2 or spot[0] not in COLUMNS or spot[1] not in "1234":
        return None
    return COLUMNS.index(spot[0]), int(spot[1]) - 1


# ---------------------------------------------------------------- words


def describe_tile(kind: Any, sheep: Any) -> str:
    return f"{kind} with an extra sheep on {sheep}" if sheep else str(kind)


def wrap(content: str, width_px: float) -> list[str]:
    return textwrap.wrap(content, max(20, int(width_px / CHAR_W))) or [""]


# ---------------------------------------------------------------- a tile


def tile_marks(x: float, y: float, size: float, tile: dict[str, Any]) -> list[str]:
    """A tile's fence spokes (LG-1) and extra sheep (LG-7); (x, y) is the tile's top-left corner."""
    kind = str(tile.get("kind", ""))
    rotation = tile.get("rotation", 0)
    sheep = tile.get("sheep")
    centre = (x + size / 2, y + size / 2)
    width = max(2.0, FENCE_W * size / UNIT)
    parts = []
    for direction in tile_spokes(kind, rotation):
        fx, fy = SPOKE_END[direction]
        parts.append(_line(centre, (x + fx * size, y + fy * size), "fence tile-spoke", width=width))
    if sheep:
        fx, fy = extra_sheep_spot(kind, str(sheep), rotation)
        radius = EXTRA_SHEEP_R * max(0.6, size / UNIT)
        parts.append(_circle((x + fx * size, y + fy * size), radius, "extra-sheep", SHEEP_FILL, EXTRA_EDGE, 2))
    return parts


def tile_square(x: float, y: float, size: float, cls: str, fill: str = TILE_FILL) -> str:
    return _rect(x, y, size, size, cls, fill, f' stroke="{GRID}" stroke-width="1"')


def tile_glyph(x: float, y: float, size: float, tile: dict[str, Any], cls: str, fill: str = TILE_FILL) -> list[str]:
    """A whole tile drawn on its own: its square, fence spokes and extra sheep."""
    return [tile_square(x, y, size, cls, fill), *tile_marks(x, y, size, tile)]


# ---------------------------------------------------------------- a player's board


class BoardGeometry:
    """Pixel positions for one board whose frame ring's top-left corner is (left, top)."""

    def __init__(self, left: float, top: float) -> None:
        self.x0 = left + RING
        self.y0 = top + RING

    def at(self, x: float, y: float) -> Point:
        return self.x0 + x * UNIT, self.y0 + y * UNIT


def _regions(row: dict[str, Any] | None) -> list[dict[str, Any]]:
    regions = row.get("regions") if row else None
    return [r for r in regions if isinstance(r, dict)] if isinstance(regions, list) else []


def _region_label_cell(cells: list[tuple[int, int]]) -> tuple[int, int]:
    """The region's cell nearest its middle (ties: the first in reading order)."""
    mx = sum(c[0] for c in cells) / len(cells)
    my = sum(c[1] for c in cells) / len(cells)
    return min(cells, key=lambda c: ((c[0] - mx) ** 2 + (c[1] - my) ** 2, c[1], c[0]))


def region_layer(geo: BoardGeometry, regions: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Light shading of each region's cells (LG-2) and a label with its score; lake-adjacent regions grey."""
    shades: list[str] = []
    labels: list[str] = []
    colour_index = 0
    for region in regions:
        cells = [(int(c[0]), int(c[1])) for c in region.get("cells", []) if isinstance(c, list) and len(c) == 2]
        if not cells:
            continue
        unscored = bool(region.get("lake_adjacent")) or region.get("score") is None
        if unscored:
            fill = UNSCORED_FILL
            summary = "adjacent to the lake, not scored"
        else:
            fill = REGION_FILLS[colour_index % len(REGION_FILLS)]
            colour_index += 1
            summary = f"{region.get('sheep')} sheep - 2 x {region.get('loose_ends')} loose ends = {region.get('score')}"
        group = [f'<g class="region" fill-opacity="{REGION_OPACITY}">', _title(summary)]
        for cx, cy in cells:
            px, py = geo.at(cx - 0.5, cy - 0.5)
            group.append(_rect(px, py, UNIT, UNIT, "region-cell", fill))
        shades.append("".join(group) + "</g>")
        if not unscored:
            lx, ly = geo.at(*_region_label_cell(cells))
            labels.append(
                _text(lx, ly - 8, str(region.get("score")), 12, "region-score", weight="bold", anchor="middle")
            )
    return shades, labels


def board_svg(
    left: float,
    top: float,
    player: dict[str, Any],
    frame_spokes: list[str],
    lakes: list[str],
    regions: list[dict[str, Any]],
    pending: dict[str, Any] | None,
) -> str:
    """One board: frame ring, tiles, empty spots, lake, fences, sheep; optional region shading and the
    viewer's own sealed placement (pending = {"spot", "rotation", "tile"})."""
    geo = BoardGeometry(left, top)
    out: list[str] = [f'<g class="board" data-player="{_attr(player.get("name", ""))}">']
    out.append(_rect(left, top, BOARD_SPAN, BOARD_SPAN, "frame-ring", RING_FILL))
    placed: dict[tuple[int, int], dict[str, Any]] = {}
    for item in player.get("board") or []:
        xy = spot_xy(str(item.get("spot", "")))
        if xy is not None:
            placed[xy] = item
    lake_xy = {xy for xy in (spot_xy(str(s)) for s in lakes) if xy is not None}

    squares: list[str] = []
    marks: list[str] = []
    for r in range(4):
        for c in range(4):
            px, py = geo.at(c, r)
            spot = f"{COLUMNS[c]}{r + 1}"
            if (c, r) in lake_xy:
                continue
            if (c, r) in placed:
                item = placed[(c, r)]
                desc = f"{spot}: {describe_tile(item.get('kind'), item.get('sheep'))}, rotated {item.get('rotation')}"
                squares.append(f"<g>{_title(desc)}{tile_square(px, py, UNIT, 'tile')}</g>")
                marks += tile_marks(px, py, UNIT, item)
            else:
                squares.append(tile_square(px, py, UNIT, "empty-spot", EMPTY_FILL))
                label = _text(px + UNIT / 2, py + UNIT / 2 + 4, spot, 11, "spot-label", anchor="middle", fill=MUTED)
                squares.append(label)
    shades, region_labels = region_layer(geo, regions)
    # squares first, region shading over them, then the lake, fences and sheep on top
    out += squares + shades
    for xy in sorted(lake_xy, key=lambda p: (p[1], p[0])):
        px, py = geo.at(*xy)
        out.append(tile_square(px, py, UNIT, "lake", LAKE))
        out.append(_text(px + UNIT / 2, py + UNIT / 2 + 4, "lake", 11, "lake-label", anchor="middle", fill="#ffffff"))
    if pending is not None:
        out.append(pending_placement_svg(geo, pending))
    # the rim is a fence (LG-3); frame spokes run from the board edge to the rim (LG-4)
    out.append(
        f'<rect class="fence rim" x="{_num(left)}" y="{_num(top)}" width="{BOARD_SPAN}" height="{BOARD_SPAN}"'
        f' fill="none" stroke="{FENCE}" stroke-width="{FENCE_W}"/>'
    )
    for name in frame_spokes:
        segment = frame_spoke_segment(str(name))
        if segment is not None:
            out.append(_line(geo.at(*segment[0]), geo.at(*segment[1]), "fence frame-spoke"))
    out += marks
    out += sheep_layer(geo, lake_xy)
    out += region_labels
    out += coordinate_labels(geo)
    out.append("</g>")
    return "".join(out)


def sheep_layer(geo: BoardGeometry, lake_xy: set[tuple[int, int]]) -> list[str]:
    """LG-2: a whole sheep on each of the 25 corners; those at the lake's corners are incomplete (LG-6)."""
    lake_corners = {(c + dx, r + dy) for c, r in lake_xy for dx in (0, 1) for dy in (0, 1)}
    out = []
    for y in range(5):
        for x in range(5):
            if (x, y) in lake_corners:
                out.append(_circle(geo.at(x, y), SHEEP_R, "sheep incomplete", INCOMPLETE_SHEEP, SHEEP_EDGE))
            else:
                out.append(_circle(geo.at(x, y), SHEEP_R, "sheep", SHEEP_FILL, SHEEP_EDGE))
    return out


def coordinate_labels(geo: BoardGeometry) -> list[str]:
    out = []
    for c in range(4):
        x, y = geo.at(c + 0.5, -0.5)
        out.append(_text(x, y - 4, COLUMNS[c], 10, "coord", anchor="middle", fill=MUTED))
    for r in range(4):
        x, y = geo.at(-0.5, r + 0.5)
        out.append(_text(x - 6, y + 4, str(r + 1), 10, "coord", anchor="end", fill=MUTED))
    return out


def pending_placement_svg(geo: BoardGeometry, pending: dict[str, Any]) -> str:
    """The viewer's own sealed placement: a dashed ghost of the tile to place."""
    xy = spot_xy(str(pending.get("spot", "")))
    if xy is None:
        return ""
    px, py = geo.at(*xy)
    tile = dict(pending.get("tile") or {})
    tile["rotation"] = pending.get("rotation", 0)
    parts = tile_glyph(px, py, UNIT, tile, "pending-tile", EMPTY_FILL)
    desc = f"your sealed placement: {pending.get('spot')} rotated {pending.get('rotation')}"
    return (
        f'<g class="pending" opacity="0.6">{_title(desc)}{"".join(parts)}'
        f"{_rect(px + 2, py + 2, UNIT - 4, UNIT - 4, 'pending-outline', 'none', _dashed())}</g>"
    )


def _dashed() -> str:
    return f' stroke="{PENDING}" stroke-width="2" stroke-dasharray="4 3"'


# ---------------------------------------------------------------- one player's panel


def _result_rows(view: View) -> dict[str, dict[str, Any]]:
    results = view.get("results")
    rows = results.get("results") if isinstance(results, dict) else None
    if not isinstance(rows, list):
        return {}
    return {str(row.get("player")): row for row in rows if isinstance(row, dict)}


def _lakes(view: View, player: dict[str, Any], row: dict[str, Any] | None) -> list[str]:
    """The lake spots: from the results, or once finished the last empty spot (LG-6)."""
    if row and isinstance(row.get("lake"), list):
        return [str(s) for s in row["lake"]]
    if view.get("phase") == "over":
        return [str(s) for s in player.get("empty_spots") or []]
    return []


def _own_pending_placement(view: View, name: str) -> dict[str, Any] | None:
    """The viewer's own sealed placement, only in their own view ("you"); never another player's."""
    you = view.get("you")
    if not isinstance(you, dict) or you.get("player") != name:
        return None
    pending = you.get("pending")
    placement = pending.get("placement") if isinstance(pending, dict) else None
    if not isinstance(placement, dict):
        return None
    return {**placement, "tile": view.get("tile_to_place") or {}}


def product_text(row: dict[str, Any]) -> str:
    """How the score came about: the product of the scored regions (LG-6: 1 when none is scored)."""
    scored = [str(r.get("score")) for r in _regions(row) if not r.get("lake_adjacent") and r.get("score") is not None]
    if not scored:
        return "no region scored, so 1"
    product = "product " + " × ".join(scored)
    if len(product) * CHAR_W * 11 / 12 <= PANEL_W - 2 * PANEL_PAD:
        return product
    return f"product of {len(scored)} scored regions"


def panel_svg(view: View, player: dict[str, Any], left: float, top: float) -> str:
    name = str(player.get("name", "?"))
    rows = _result_rows(view)
    row = rows.get(name)
    frames = view.get("frames") if isinstance(view.get("frames"), dict) else {}
    frame = player.get("frame")
    frame_spokes = [str(s) for s in (frames or {}).get(frame, [])] if frame else []
    you = view.get("you")
    is_you = isinstance(you, dict) and you.get("player") == name
    out = [f'<g class="player-panel" data-player="{_attr(name)}">']
    heading = f"{name} (you)" if is_you else name
    out.append(_text(left + PANEL_W / 2, top + 16, heading, 15, "player-name", weight="bold", anchor="middle"))
    board_left = left + PANEL_PAD
    board_top = top + NAME_H + LETTERS_H
    out.append(
        board_svg(
            board_left,
            board_top,
            player,
            frame_spokes,
            _lakes(view, player, row),
            _regions(row),
            _own_pending_placement(view, name),
        )
    )
    y = board_top + BOARD_SPAN + 8 + 12
    frame_text = f"frame {frame}" if frame else "no frame yet"
    out.append(_text(left + PANEL_PAD, y, f"{player.get('garnets')} garnets · {frame_text}", 12, "garnets"))
    y += CAPTION_LINE
    if row is not None and row.get("score") is not None:
        score_line = f"score {row.get('score')} · rank {row.get('rank')}"
        out.append(_text(left + PANEL_PAD, y, score_line, 13, "score", weight="bold"))
        y += CAPTION_LINE
        out.append(_text(left + PANEL_PAD, y, product_text(row), 11, "product", fill=MUTED))
    elif player.get("submitted"):
        out.append(_text(left + PANEL_PAD, y, "✓ submitted", 12, "submitted", fill="#2e7d32"))
    out.append("</g>")
    return "".join(out)


# ---------------------------------------------------------------- the header


class Header:
    """Lines of text and small tiles above the boards, laid out top to bottom."""

    def __init__(self, width: float) -> None:
        self.width = width
        self.y: float = MARGIN
        self.parts: list[str] = []

    def line(self, content: str, cls: str, size: int = 12, weight: str = "normal", fill: str = INK) -> None:
        for piece in wrap(content, self.width - 2 * MARGIN):
            self.y += LINE_H if size <= 13 else size + 8
            self.parts.append(_text(MARGIN, self.y, piece, size, cls, weight=weight, fill=fill))

    def gap(self, pixels: float) -> None:
        self.y += pixels


def _order_text(view: View) -> str:
    order = view.get("tiebreak_order") or []
    return "Tiebreak order (earliest wins ties): " + (", ".join(map(str, order)) or "—")


def kinds_left_row(header: Header, view: View) -> None:
    """Tile kinds left: each kind drawn small with how many more times it may be won."""
    supply = view.get("supply") if isinstance(view.get("supply"), dict) else {}
    header.gap(8)
    header.parts.append(_text(MARGIN, header.y + GLYPH / 2 + 4, "Tile kinds left:", 12, "kinds-title"))
    x: float = MARGIN + 104
    for kind, count in (supply or {}).items():
        fill = TILE_FILL if count else EMPTY_FILL
        glyph = tile_glyph(x, header.y, GLYPH, {"kind": kind, "rotation": 0}, "kind-glyph", fill)
        header.parts.append(f'<g class="kind-left">{_title(f"{kind}: {count} left")}{"".join(glyph)}</g>')
        colour = INK if count else MUTED
        label = f"{kind} ×{count}"
        header.parts.append(_text(x + GLYPH + 5, header.y + GLYPH / 2 + 4, label, 12, "kind-count", fill=colour))
        x += GLYPH + 5 + len(label) * CHAR_W + 14
    header.gap(GLYPH)


def tile_to_place_row(header: Header, view: View) -> None:
    tile = view.get("tile_to_place")
    if not isinstance(tile, dict):
        return
    header.gap(8)
    header.parts.append(
        f'<g class="tile-to-place">{"".join(tile_glyph(MARGIN, header.y, BIG_GLYPH, tile, "to-place"))}</g>'
    )
    step = view.get("step")
    words = f"Tile to place this step (placement {step - 1 if isinstance(step, int) else '?'}, everyone places it):"
    header.parts.append(_text(MARGIN + BIG_GLYPH + 10, header.y + 18, words, 12, "to-place-title"))
    header.parts.append(
        _text(
            MARGIN + BIG_GLYPH + 10,
            header.y + 36,
            describe_tile(tile.get("kind"), tile.get("sheep")) + " (shown unrotated)",
            13,
            "to-place-kind",
            weight="bold",
        )
    )
    header.gap(BIG_GLYPH)


def last_auction_lines(view: View) -> list[str]:
    """The last resolved tile auction: who won what for how much, and the bids (public once resolved)."""
    auctions = [a for a in view.get("auctions") or [] if isinstance(a, dict)]
    if not auctions:
        return []
    last = auctions[-1]
    lines = [
        f"Last auction (auction {last.get('step')}): {last.get('winner')} won "
        f"{describe_tile(last.get('kind'), last.get('sheep'))} for {last.get('paid')} garnets"
    ]
    resolution = view.get("last_resolution")
    if (
        isinstance(resolution, dict)
        and resolution.get("type") == "step_resolved"
        and resolution.get("step") == last.get("step")
    ):
        bids = [
            f"{b.get('player')} {b.get('bid')} on {describe_tile(b.get('kind'), b.get('sheep'))}"
            + (" (missed, default)" if b.get("defaulted") else "")
            for b in resolution.get("bids") or []
            if isinstance(b, dict)
        ]
        if bids:
            lines.append("Bids: " + "; ".join(bids))
    return lines


def frame_round_lines(view: View) -> list[str]:
    """The last frame round, while that was the last thing resolved."""
    lines: list[str] = []
    resolution = view.get("last_resolution")
    if isinstance(resolution, dict) and resolution.get("type") == "frame_round_resolved":
        awards = [
            f"{a.get('player')} got {a.get('frame')} for {a.get('paid')} ({a.get('how')})"
            for a in resolution.get("awards") or []
            if isinstance(a, dict)
        ]
        lines.append(f"Frame round {resolution.get('round')}: " + ("; ".join(awards) or "no frame awarded"))
    return lines


def frames_offered_row(header: Header, view: View) -> None:
    """While frames are auctioned: each frame still offered, drawn as a small ring with its spokes (LG-4)."""
    frames = view.get("frames") if isinstance(view.get("frames"), dict) else {}
    offered = [str(f) for f in view.get("open_frames") or [] if str(f) in (frames or {})]
    if not offered:
        return
    header.gap(8)
    header.parts.append(_text(MARGIN, header.y + FRAME_GLYPH / 2 + 4, "Frames offered:", 12, "frames-title"))
    unit = FRAME_GLYPH / 5
    x: float = MARGIN + 104
    for name in offered:
        parts = [_rect(x, header.y, FRAME_GLYPH, FRAME_GLYPH, "frame-glyph", RING_FILL)]
        parts.append(_rect(x + unit / 2, header.y + unit / 2, 4 * unit, 4 * unit, "frame-board", EMPTY_FILL))
        for spoke in (frames or {}).get(name, []):
            segment = frame_spoke_segment(str(spoke))
            if segment is not None:
                (ax, ay), (bx, by) = segment
                a = (x + (ax + 0.5) * unit, header.y + (ay + 0.5) * unit)
                b = (x + (bx + 0.5) * unit, header.y + (by + 0.5) * unit)
                parts.append(_line(a, b, "fence frame-spoke", width=2.5))
        parts.append(
            f'<rect class="fence rim" x="{_num(x)}" y="{_num(header.y)}" width="{FRAME_GLYPH}"'
            f' height="{FRAME_GLYPH}" fill="none" stroke="{FENCE}" stroke-width="2.5"/>'
        )
        header.parts.append(f'<g class="frame-offered">{_title(f"frame {name}")}{"".join(parts)}</g>')
        header.parts.append(_text(x + FRAME_GLYPH + 5, header.y + FRAME_GLYPH / 2 + 4, name, 12, "frame-name"))
        x += FRAME_GLYPH + 40
    header.gap(FRAME_GLYPH)


def own_orders_line(view: View) -> str | None:
    """The viewer's own sealed orders (only in their own view)."""
    you = view.get("you")
    pending = you.get("pending") if isinstance(you, dict) else None
    if not isinstance(pending, dict):
        return None
    parts = []
    frame_bid = pending.get("frame_bid")
    if isinstance(frame_bid, dict):
        parts.append(f"bid {frame_bid.get('bid')} on frame {frame_bid.get('frame')}")
    tile_bid = pending.get("tile_bid")
    if isinstance(tile_bid, dict):
        parts.append(f"bid {tile_bid.get('bid')} on {describe_tile(tile_bid.get('kind'), tile_bid.get('sheep'))}")
    placement = pending.get("placement")
    if isinstance(placement, dict):
        parts.append(f"place at {placement.get('spot')} rotated {placement.get('rotation')}")
    if pending.get("end_early"):
        parts.append("end early")
    if not parts:
        return None
    return "Your sealed orders (until the step resolves): " + "; ".join(parts)


def ranking_line(view: View) -> str | None:
    rows = sorted(
        (row for row in _result_rows(view).values() if isinstance(row.get("rank"), int)),
        key=lambda row: int(row["rank"]),
    )
    if not rows:
        return None
    return "Final ranking: " + ", ".join(f"{r['rank']}. {r.get('player')} ({r.get('score')})" for r in rows)


def header_svg(view: View, width: float) -> tuple[str, float]:
    header = Header(width)
    header.line(f"The Last Gathering — {view.get('status', view.get('phase', ''))}", "status", 18, "bold")
    you = view.get("you")
    if isinstance(you, dict):
        must = ", ".join(str(m).replace("_", " ") for m in you.get("must_submit") or [])
        header.line(f"You are {you.get('player')}" + (f"; to submit: {must}" if must else ""), "viewer", fill=MUTED)
    ranking = ranking_line(view)
    if ranking:
        header.line(ranking, "ranking", 13, "bold")
    header.line(_order_text(view), "tiebreak")
    if view.get("phase") in ("steps", "over"):
        kinds_left_row(header, view)
    if view.get("phase") == "frames":
        frames_offered_row(header, view)
    tile_to_place_row(header, view)
    for text in frame_round_lines(view) + last_auction_lines(view):
        header.line(text, "resolution")
    orders = own_orders_line(view)
    if orders:
        header.line(orders, "pending", fill=PENDING)
    return "".join(header.parts), header.y + 12


# ---------------------------------------------------------------- the document


LEGEND_ITEM_W = 250


def legend_svg(left: float, top: float, width: float) -> tuple[str, float]:
    """What each mark on a board means, in rows under the boards; returns the SVG and its height."""
    items: list[tuple[str, str]] = [
        (_line((0, 7), (18, 7), "legend-fence"), "fence (a tile's spoke, LG-2)"),
        (_circle((9, 7), SHEEP_R, "legend-sheep", SHEEP_FILL, SHEEP_EDGE), "sheep on a corner (LG-2)"),
        (_circle((9, 7), SHEEP_R, "legend-sheep", INCOMPLETE_SHEEP, SHEEP_EDGE), "incomplete sheep by the lake (LG-6)"),
        (_circle((9, 7), EXTRA_SHEEP_R, "legend-sheep", SHEEP_FILL, EXTRA_EDGE, 2), "extra sheep of a tile"),
        (_rect(0, 0, 18, 14, "legend-lake", LAKE), "lake (LG-6)"),
        (
            _rect(0, 0, 18, 14, "legend-region", REGION_FILLS[0])
            + _text(9, 12, "2", 11, "legend-score", anchor="middle"),
            "region and its score (LG-5)",
        ),
        (_rect(0, 0, 18, 14, "legend-region", UNSCORED_FILL), "region by the lake: not scored"),
    ]
    per_row = max(1, int((width - 2 * MARGIN) // LEGEND_ITEM_W))
    parts = ['<g class="legend">']
    for index, (mark, words) in enumerate(items):
        x = left + (index % per_row) * LEGEND_ITEM_W
        y = top + (index // per_row) * LINE_H
        parts.append(f'<g transform="translate({_num(x)},{_num(y)})">{mark}</g>')
        parts.append(_text(x + 26, y + 12, words, 12, "legend-words", fill=MUTED))
    parts.append("</g>")
    rows = (len(items) + per_row - 1) // per_row
    return "".join(parts), rows * LINE_H


def render_svg(view: dict[str, Any]) -> str:
    """A self-contained SVG document of a Last Gathering view (any viewer, any phase)."""
    players = [p for p in view.get("players") or [] if isinstance(p, dict)]
    columns = max(1, min(len(players), PANELS_PER_ROW))
    rows = (len(players) + columns - 1) // columns
    width = max(MIN_WIDTH, columns * PANEL_W + 2 * MARGIN)
    header, header_h = header_svg(view, width)
    legend_top = header_h + rows * PANEL_H + 8
    legend, legend_h = legend_svg(MARGIN, legend_top, width)
    height = legend_top + legend_h + MARGIN
    body = [header, legend]
    for index, player in enumerate(players):
        left = MARGIN + (index % columns) * PANEL_W
        top = header_h + (index // columns) * PANEL_H
        body.append(panel_svg(view, player, left, top))
    w, h = _num(width), _num(height)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{w}" height="{h}" viewBox="0 0 {w} {h}">'
        f"<title>The Last Gathering: {escape(str(view.get('status', '')))}</title>"
        f'<rect class="background" x="0" y="0" width="{w}" height="{h}" fill="{BACKGROUND}"/>'
        + "".join(body)
        + "</svg>\n"
    )
