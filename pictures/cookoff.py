"""A picture of a Cookoff match (Death Match 7), drawn only from a view dict.

Above: round and phase, this round's trees and the three judges (unrevealed ones as "?"). Then the two
5x5 pots side by side (columns A-E, rows 1-5, CK-3) with each square shaded by its flame intensity (CK-2)
and each berry drawn as a circle with its name and cook time, coloured by cook band. Under each pot: the
player's reserve, dishes removed and inventory. When the match is over: the chosen dishes, each judge's
winner and the match winner.

A sealed submission is drawn only in its owner's own picture (never for another player, nor for the host
or a spectator), so a picture never shows more than the view's viewer may see.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

# ---------------------------------------------------------------- sizes

MARGIN = 20
CELL = 64
BERRY_RADIUS = 27
GRID = 5
COLUMNS = "ABCDE"
LABEL_GUTTER = 22  # room for the row numbers left of a pot and the column letters above it
POT_SIZE = GRID * CELL
PANEL_WIDTH = LABEL_GUTTER + POT_SIZE + 2 * MARGIN + 40
WIDTH = 2 * PANEL_WIDTH + MARGIN
LINE = 16  # height of one line of small text
TITLE_SIZE = 20
TEXT_SIZE = 13
SMALL_SIZE = 11
TINY_SIZE = 9
TREE_BOX_WIDTH = 118
TREE_BOX_HEIGHT = 34
TREES_PER_ROW = 6
JUDGE_COUNT = 3  # a match always has one judge of each family (CK-6)
JUDGE_BOX_WIDTH = (WIDTH - 2 * MARGIN - (JUDGE_COUNT - 1) * 10) // JUDGE_COUNT
JUDGE_BOX_HEIGHT = 40
INVENTORY_CHARS = 52  # characters of inventory text per line under a pot
LEGEND_SWATCH = 14

# ---------------------------------------------------------------- colours

FONT = "Helvetica, Arial, sans-serif"
BACKGROUND = "#fffdf8"
INK = "#222222"
MUTED = "#6b6b6b"
GRID_LINE = "#8a6a4a"
POT_RIM = "#4a3520"
SABOTAGE_RING = "#c0182b"
WINNER = "#1d7a2e"
BOX_FILL = "#f3efe6"
UNREVEALED_FILL = "#e4e4e4"
# Flame intensity (CK-2) as the square's background; any intensity above the last uses the last shade.
FLAME_SHADES = ("#f6f3ee", "#fde9cf", "#fbc88a", "#f59a4f", "#e5652a")
# Cook bands (CK-2): (fill, text colour).
BAND_COLOURS: dict[str, tuple[str, str]] = {
    "uncooked": ("#ffffff", INK),
    "raw": ("#f6c1cc", INK),
    "slightly raw": ("#f29b78", INK),
    "medium": ("#c97a34", "#ffffff"),
    "well done": ("#7a4a1e", "#ffffff"),
    "burned": ("#1c1c1c", "#ffffff"),
}
BAND_ORDER = ("uncooked", "raw", "slightly raw", "medium", "well done", "burned")
BURN_AT = 8


# ---------------------------------------------------------------- small helpers


def _text(
    x: float,
    y: float,
    content: str,
    size: int = TEXT_SIZE,
    fill: str = INK,
    anchor: str = "start",
    weight: str = "normal",
    css: str = "",
) -> str:
    cls = f" class={quoteattr(css)}" if css else ""
    return (
        f'<text x="{x:g}" y="{y:g}" font-family="{FONT}" font-size="{size}" fill="{fill}" '
        f'text-anchor="{anchor}" font-weight="{weight}"{cls}>{escape(content)}</text>'
    )


def _rect(
    x: float, y: float, w: float, h: float, fill: str, stroke: str = "none", css: str = "", extra: str = ""
) -> str:
    cls = f" class={quoteattr(css)}" if css else ""
    return f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill="{fill}" stroke="{stroke}"{cls}{extra}/>'


def _str(value: Any, default: str = "") -> str:
    return default if value is None else str(value)


def _int(value: Any, default: int = 0) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    return default


def _seconds(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "?"
    return f"{value:g} s" if isinstance(value, int) or float(value).is_integer() else f"{value:.1f} s"


def _band_of(cook: int, given: Any) -> str:
    if isinstance(given, str) and given in BAND_COLOURS:
        return given
    if cook <= 0:
        return "uncooked"
    if cook >= BURN_AT:
        return "burned"
    return "raw" if cook <= 2 else "slightly raw" if cook == 3 else "medium" if cook <= 5 else "well done"


def _flame_shade(intensity: int) -> str:
    return FLAME_SHADES[max(0, min(intensity, len(FLAME_SHADES) - 1))]


def _wrap(items: list[str], width: int) -> list[str]:
    """Join items with ", " into lines of at most about `width` characters."""
    lines: list[str] = []
    current = ""
    for item in items:
        candidate = f"{current}, {item}" if current else item
        if current and len(candidate) > width:
            lines.append(current + ",")
            current = item
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


def _square_xy(square: str) -> tuple[int, int] | None:
    """CK-3: column A-E, row 1-5 -> (column index, row index), or None for anything else."""
    if len(square) != 2 or square[0] not in COLUMNS or not square[1].isdigit():
        return None
    row = int(square[1]) - 1
    return (COLUMNS.index(square[0]), row) if 0 <= row < GRID else None


# ---------------------------------------------------------------- header: phase, trees, judges


def _header(view: dict[str, Any], y: int) -> tuple[list[str], int]:
    out: list[str] = []
    phase_text = _str(view.get("phase_text"), _str(view.get("phase"), "?"))
    rounds = _int(view.get("rounds"))
    round_no = _int(view.get("round"))
    round_part = f"round {round_no} of {rounds}" if round_no else f"{rounds} rounds"
    out.append(_text(MARGIN, y + TITLE_SIZE, f"Cookoff: {phase_text}", TITLE_SIZE, weight="bold", css="phase"))
    out.append(_text(WIDTH - MARGIN, y + TITLE_SIZE, round_part, TEXT_SIZE, MUTED, "end", css="round"))
    y += TITLE_SIZE + 8
    viewer = _str(view.get("viewer"), "?")
    who = f"player {view.get('you')}" if viewer == "player" and view.get("you") else viewer
    awaiting = [str(p) for p in view.get("awaiting") or []]
    line = f"View of the {who}. "
    if not view.get("finished"):
        line += f"Awaiting: {', '.join(awaiting)}." if awaiting else "Awaiting nobody."
    out.append(_text(MARGIN, y + TEXT_SIZE, line, TEXT_SIZE, MUTED))
    y += LINE + 8
    trees_svg, y = _trees(view, y)
    out += trees_svg
    judges_svg, y = _judges(view, y)
    out += judges_svg
    return out, y


def _trees(view: dict[str, Any], y: int) -> tuple[list[str], int]:
    trees = [t for t in view.get("trees") or [] if isinstance(t, dict)]
    label = f"Trees of round {_int(view.get('round'))}" if trees else "Trees: none revealed now"
    out = [_text(MARGIN, y + TEXT_SIZE, label, TEXT_SIZE, weight="bold")]
    y += LINE + 4
    for i, tree in enumerate(trees):
        row, col = divmod(i, TREES_PER_ROW)
        x = MARGIN + col * (TREE_BOX_WIDTH + 8)
        top = y + row * (TREE_BOX_HEIGHT + 6)
        out.append('<g class="tree">')
        out.append(_rect(x, top, TREE_BOX_WIDTH, TREE_BOX_HEIGHT, BOX_FILL, GRID_LINE, extra=' rx="6"'))
        out.append(_text(x + 10, top + 22, _str(tree.get("berry"), "?"), TEXT_SIZE, weight="bold"))
        out.append(_text(x + TREE_BOX_WIDTH - 10, top + 22, f"x {_int(tree.get('quantity'))}", TEXT_SIZE, anchor="end"))
        out.append("</g>")
    if trees:
        rows = (len(trees) + TREES_PER_ROW - 1) // TREES_PER_ROW
        y += rows * (TREE_BOX_HEIGHT + 6)
    return out, y + 6


def _judges(view: dict[str, Any], y: int) -> tuple[list[str], int]:
    shown = {_int(j.get("index")): j for j in view.get("judges") or [] if isinstance(j, dict) and j.get("revealed")}
    out = [_text(MARGIN, y + TEXT_SIZE, "Judges", TEXT_SIZE, weight="bold")]
    y += LINE + 4
    count = max([JUDGE_COUNT, *shown])
    for index in range(1, count + 1):
        x = MARGIN + (index - 1) % JUDGE_COUNT * (JUDGE_BOX_WIDTH + 10)
        top = y + (index - 1) // JUDGE_COUNT * (JUDGE_BOX_HEIGHT + 6)
        judge = shown.get(index)
        if judge is None:
            out.append('<g class="judge unrevealed">')
            out.append(_rect(x, top, JUDGE_BOX_WIDTH, JUDGE_BOX_HEIGHT, UNREVEALED_FILL, MUTED, extra=' rx="6"'))
            out.append(_text(x + 10, top + 16, f"Judge {index}", SMALL_SIZE, MUTED, weight="bold"))
            out.append(_text(x + JUDGE_BOX_WIDTH / 2, top + 32, "?", 18, MUTED, "middle", "bold"))
        else:
            out.append('<g class="judge">')
            out.append(_rect(x, top, JUDGE_BOX_WIDTH, JUDGE_BOX_HEIGHT, BOX_FILL, GRID_LINE, extra=' rx="6"'))
            family = _str(judge.get("family"), "?")
            out.append(_text(x + 10, top + 16, f"Judge {index} ({family})", SMALL_SIZE, MUTED, weight="bold"))
            out.append(_text(x + 10, top + 32, _str(judge.get("criterion"), "?"), SMALL_SIZE))
        out.append("</g>")
    rows = (count + JUDGE_COUNT - 1) // JUDGE_COUNT
    return out, y + rows * (JUDGE_BOX_HEIGHT + 6) + 8


# ---------------------------------------------------------------- pots


def _flame(view: dict[str, Any], col: int, row: int) -> int:
    flame = view.get("flame")
    try:
        return _int(flame[row][col])  # type: ignore[index]
    except (TypeError, IndexError, KeyError):
        return 0


def _pot(view: dict[str, Any], pot: dict[str, Any], x: int, y: int) -> list[str]:
    """The 5x5 pot at (x, y) (top left of its labels): flame-shaded squares, then the berries."""
    left, top = x + LABEL_GUTTER, y + LABEL_GUTTER
    out = ['<g class="pot">']
    for col, letter in enumerate(COLUMNS):
        out.append(_text(left + col * CELL + CELL / 2, y + 15, letter, TEXT_SIZE, MUTED, "middle", "bold"))
    for row in range(GRID):
        out.append(_text(x + 8, top + row * CELL + CELL / 2 + 5, str(row + 1), TEXT_SIZE, MUTED, "middle", "bold"))
        for col in range(GRID):
            intensity = _flame(view, col, row)
            sx, sy = left + col * CELL, top + row * CELL
            out.append(_rect(sx, sy, CELL, CELL, _flame_shade(intensity), GRID_LINE, css="square"))
            out.append(_text(sx + CELL - 4, sy + CELL - 4, str(intensity), TINY_SIZE, MUTED, "end", css="flame"))
    out.append(_rect(left, top, POT_SIZE, POT_SIZE, "none", POT_RIM, extra=' stroke-width="3"'))
    for square in sorted(pot):
        item = pot[square]
        where = _square_xy(square)
        if where is None or not isinstance(item, dict):
            continue
        cx = left + where[0] * CELL + CELL / 2
        cy = top + where[1] * CELL + CELL / 2
        out += _berry(cx, cy, item)
    out.append("</g>")
    return out


def _berry(cx: float, cy: float, item: dict[str, Any]) -> list[str]:
    cook = _int(item.get("cook"))
    band = _band_of(cook, item.get("band"))
    fill, ink = BAND_COLOURS[band]
    sabotage = bool(item.get("sabotage"))
    stroke = SABOTAGE_RING if sabotage else INK
    dash = ' stroke-dasharray="4 3"' if sabotage else ""
    width = 3 if sabotage else 2
    outline = f'stroke="{stroke}" stroke-width="{width}"{dash}'
    css = "berry sabotage" if sabotage else "berry"
    title = f"{_str(item.get('berry'), '?')}: cook {cook}, {band}" + (" (sabotage)" if sabotage else "")
    return [
        f"<g class={quoteattr(css)}><title>{escape(title)}</title>",
        f'<circle cx="{cx:g}" cy="{cy:g}" r="{BERRY_RADIUS}" fill="{fill}" {outline}/>',
        _text(cx, cy - 2, _str(item.get("berry"), "?"), SMALL_SIZE, ink, "middle", "bold"),
        _text(cx, cy + 12, f"cook {cook}", TINY_SIZE + 1, ink, "middle"),
        "</g>",
    ]


# ---------------------------------------------------------------- player panels


def _pending_text(pending: Any) -> str:
    """The owner's own sealed submission in the game's words."""
    if not isinstance(pending, dict):
        return ""
    kind = pending.get("type")
    if kind == "SendHarvesters":
        sends = [f"{_int(s.get('count'))} to {_str(s.get('berry'))}" for s in pending.get("sends") or []]
        return "send harvesters: " + (", ".join(sends) or "none")
    if kind in ("PlaceBerries", "Sabotage"):
        verb = "place" if kind == "PlaceBerries" else "sabotage"
        places = [f"{_str(p.get('berry'))} on {_str(p.get('square'))}" for p in pending.get("placements") or []]
        return f"{verb}: " + (", ".join(places) or "none")
    if kind == "MoveBerries":
        moves = [f"{_str(m.get('source'))} to {_str(m.get('target'))}" for m in pending.get("moves") or []]
        return "move: " + (", ".join(moves) or "none")
    if kind == "RemoveDish":
        squares = [str(s) for s in pending.get("squares") or []]
        return "remove dish: " + (" ".join(squares) or "none")
    if kind == "ChooseDish":
        return f"choose dish {_int(pending.get('number'))}"
    return "submitted"


def _player_heading(view: dict[str, Any], name: str, player: dict[str, Any], x: int, y: int) -> list[str]:
    marks = []
    if view.get("you") == name:
        marks.append("you")
    if view.get("dmo") == name:
        marks.append("DMO")
    result = view.get("result")
    if view.get("finished") and isinstance(result, dict) and result.get("winner") == name:
        marks.append("winner")
    title = name + (f" ({', '.join(marks)})" if marks else "")
    if view.get("finished"):
        state = ""
    elif name in (view.get("awaiting") or []):
        state = "awaiting submission"
    elif player.get("submitted"):
        state = "submitted (sealed)"
    else:
        state = ""
    return [
        _text(x, y + 16, title, 16, weight="bold", css="player-name"),
        _text(x + LABEL_GUTTER + POT_SIZE, y + 16, state, SMALL_SIZE, MUTED, "end", css="submission"),
    ]


def _dish_lines(player: dict[str, Any], chosen: Any) -> list[tuple[str, bool]]:
    lines: list[tuple[str, bool]] = []
    for dish in player.get("dishes") or []:
        if not isinstance(dish, dict):
            continue
        berries = [b for b in dish.get("berries") or [] if isinstance(b, dict)]
        number = _int(dish.get("number"))
        burned = sum(1 for b in berries if _band_of(_int(b.get("cook")), b.get("band")) == "burned")
        size = f"{len(berries)} berr{'y' if len(berries) == 1 else 'ies'}"
        text = f"Dish {number} (round {_int(dish.get('round'))}): {size}"
        if burned:
            text += f", {burned} burned"
        is_chosen = chosen is not None and chosen == number
        lines.append((text + ("  <- chosen" if is_chosen else ""), is_chosen))
    return lines


def _panel(view: dict[str, Any], name: str, player: dict[str, Any], x: int, y: int) -> tuple[list[str], int]:
    """One player's pot and notes; returns the SVG and the panel's bottom."""
    out = ['<g class="player">']
    out += _player_heading(view, name, player, x, y)
    y += 26
    pot = player.get("pot") if isinstance(player.get("pot"), dict) else {}
    out += _pot(view, pot or {}, x, y)
    y += LABEL_GUTTER + POT_SIZE + 8
    notes_x = x + LABEL_GUTTER
    out.append(_text(notes_x, y + TEXT_SIZE, f"Reserve: {_seconds(player.get('reserve'))}", TEXT_SIZE, css="reserve"))
    y += LINE + 4
    result = view.get("result") if isinstance(view.get("result"), dict) else None
    chosen = (result or {}).get("chosen", {}).get(name) if isinstance((result or {}).get("chosen"), dict) else None
    dishes = _dish_lines(player, chosen)
    out.append(_text(notes_x, y + TEXT_SIZE, f"Dishes removed: {len(dishes)}", TEXT_SIZE, weight="bold"))
    y += LINE
    for text, is_chosen in dishes:
        colour = WINNER if is_chosen else INK
        out.append(_text(notes_x + 10, y + SMALL_SIZE, text, SMALL_SIZE, colour, css="dish"))
        y += LINE - 2
    inventory = player.get("inventory")
    if isinstance(inventory, dict):
        items = [f"{berry} {count}" for berry, count in inventory.items()]
        total = sum(_int(c) for c in inventory.values())
        out.append(_text(notes_x, y + 4 + TEXT_SIZE, f"Inventory: {total} berries", TEXT_SIZE, weight="bold"))
        y += LINE + 4
        for line in _wrap(items, INVENTORY_CHARS):
            out.append(_text(notes_x + 10, y + SMALL_SIZE, line, SMALL_SIZE, css="inventory"))
            y += LINE - 2
    own = view.get("viewer") == "player" and view.get("you") == name
    if own and player.get("pending") is not None and not view.get("finished"):  # nothing is pending once it is over
        y += 4
        label = "Your sealed submission: " + _pending_text(player.get("pending"))
        for line in _wrap(label.split(", "), INVENTORY_CHARS):
            out.append(_text(notes_x, y + SMALL_SIZE, line, SMALL_SIZE, "#1f4e9a", css="pending"))
            y += LINE - 2
    out.append("</g>")
    return out, y


# ---------------------------------------------------------------- legend and result


def _legend(y: int) -> tuple[list[str], int]:
    out = ['<g class="legend">']
    x = MARGIN
    out.append(_text(x, y + 11, "Cook:", SMALL_SIZE, weight="bold"))
    x += 42
    for band in BAND_ORDER:
        fill, _ink = BAND_COLOURS[band]
        out.append(f'<circle cx="{x + 7}" cy="{y + 7}" r="7" fill="{fill}" stroke="{INK}"/>')
        words = {"uncooked": "0", "raw": "1-2", "slightly raw": "3", "medium": "4-5", "well done": "6-7"}
        label = f"{band} ({words.get(band, '8+')})"
        out.append(_text(x + 18, y + 11, label, SMALL_SIZE))
        x += 26 + len(label) * 6
    x += 10
    out.append(_text(x, y + 11, "Flame:", SMALL_SIZE, weight="bold"))
    x += 48
    for intensity in range(1, 4):
        out.append(_rect(x, y, LEGEND_SWATCH, LEGEND_SWATCH, _flame_shade(intensity), GRID_LINE))
        out.append(_text(x + 18, y + 11, str(intensity), SMALL_SIZE))
        x += 34
    y += LINE + 4
    ring = (
        f'<circle cx="{MARGIN + 7}" cy="{y + 7}" r="7" fill="#ffffff" stroke="{SABOTAGE_RING}" stroke-dasharray="3 2"/>'
    )
    out.append(ring)
    out.append(_text(MARGIN + 20, y + 11, "dashed red ring: placed by the opponent (sabotage)", SMALL_SIZE))
    out.append("</g>")
    return out, y + LINE + 6


def _result(view: dict[str, Any], y: int) -> tuple[list[str], int]:
    result = view.get("result")
    if not view.get("finished") or not isinstance(result, dict):
        return [], y
    out = ['<g class="result">']
    out.append(_text(MARGIN, y + 16, "Judging", 16, weight="bold"))
    y += 24
    chosen = result.get("chosen") if isinstance(result.get("chosen"), dict) else {}
    parts = [f"{p}: dish {c}" if c is not None else f"{p}: no dish" for p, c in (chosen or {}).items()]
    out.append(_text(MARGIN, y + TEXT_SIZE, "Chosen dishes: " + ("; ".join(parts) or "none"), TEXT_SIZE))
    y += LINE + 2
    for judge in result.get("judges") or []:
        if not isinstance(judge, dict):
            continue
        scores = judge.get("scores") if isinstance(judge.get("scores"), dict) else {}
        score_text = ", ".join(f"{p} {s}" for p, s in (scores or {}).items())
        winner = judge.get("winner")
        won = f"won by {winner}" if winner else "won by nobody (equal scores)"
        line = f"Judge {_int(judge.get('index'))}: {_str(judge.get('criterion'))} Scores: {score_text}. {won}."
        out.append(_text(MARGIN, y + TEXT_SIZE, line, TEXT_SIZE, css="judge-result"))
        y += LINE + 2
    lost = [str(p) for p in result.get("lost_on_time") or []]
    if lost:
        out.append(_text(MARGIN, y + TEXT_SIZE, f"Lost on time: {', '.join(lost)}", TEXT_SIZE, SABOTAGE_RING))
        y += LINE + 2
    winner = _str(result.get("winner"), "?")
    decision = _str(result.get("decision"))
    how = f" (decided by: {decision})" if decision else ""
    out.append(_text(MARGIN, y + 18, f"Winner: {winner}{how}", 18, WINNER, weight="bold", css="winner"))
    out.append("</g>")
    return out, y + 30


# ---------------------------------------------------------------- the document


def render_svg(view: dict[str, Any]) -> str:
    """A self-contained SVG 1.1 document picturing `view` (any viewer's view, any phase)."""
    body, y = _header(view, MARGIN)
    players = view.get("players") if isinstance(view.get("players"), dict) else {}
    bottom = y
    for i, (name, player) in enumerate(list((players or {}).items())[:2]):
        panel, panel_bottom = _panel(
            view, str(name), player if isinstance(player, dict) else {}, MARGIN + i * PANEL_WIDTH, y
        )
        body += panel
        bottom = max(bottom, panel_bottom)
    legend, y = _legend(bottom + 10)
    body += legend
    result, y = _result(view, y)
    body += result
    height = y + MARGIN
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}">'
    )
    background = _rect(0, 0, WIDTH, height, BACKGROUND)
    return "\n".join([head, "<title>Cookoff</title>", background, *body, "</svg>"]) + "\n"
