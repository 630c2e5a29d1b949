"""The mining game as an SVG picture, drawn only from a view (`engine.mining.views.view`).

Above: the round and phase, and who has submitted (never what: a player's own sealed submission is
shown only in that player's own picture; the host's `pending` is never drawn). Left: the circular board,
a ring of numbered spaces, each with its pile (gold and the red, blue, yellow and green crystals), what it
gains every round, its role ability, and the miners standing on it (player initial + role letter, in the
player's colour). Right: the players' table (gold, crystals, garnets, trait levels; at the end Tokens of
Life, rank and the Elimination Candidate), and a legend.
"""

from __future__ import annotations

import math
from typing import Any
from xml.sax.saxutils import escape

# --- words of the game ---------------------------------------------------------------------------------

ROLES = ("b", "c", "p", "s", "t")
ROLE_NAMES = {"b": "Bully", "c": "Claimer", "p": "Prospector", "s": "Scout", "t": "Thief"}
RESOURCES = ("gold", "r", "b", "y", "g")
COLOURS = ("r", "b", "y", "g")
RESOURCE_NAMES = {"gold": "Gold", "r": "Red", "b": "Blue", "y": "Yellow", "g": "Green"}
TRAIT_NAMES = {"r": "Scavenging", "b": "Exposure", "y": "Dexterity", "g": "Friendship"}
PLURALS = {"Bully": "Bullies", "Thief": "Thieves"}

# --- colours -------------------------------------------------------------------------------------------

RESOURCE_FILL = {"gold": "#d4a017", "r": "#d62728", "b": "#1f77b4", "y": "#f2d21b", "g": "#2ca02c"}
RESOURCE_INK = {"gold": "#000000", "r": "#ffffff", "b": "#ffffff", "y": "#000000", "g": "#ffffff"}
HEADING_INK = {"r": "#c21f20", "b": "#1f5f9a", "y": "#9a7b00", "g": "#23801f"}  # readable on the pale header
PLAYER_FILLS = ("#6a3d9a", "#e6550d", "#0e7c86", "#8c564b", "#c2308f", "#393b79", "#6b6b00", "#525252")
BACKGROUND = "#fbfaf6"
SPACE_FILL = "#ffffff"
SPACE_STROKE = "#555555"
RING_STROKE = "#c9c3b3"
INK = "#222222"
MUTED = "#777777"
WARN = "#b00020"
FONT = "font-family:DejaVu Sans,Verdana,Arial,sans-serif"

# --- sizes ---------------------------------------------------------------------------------------------

MARGIN = 20
HEADER_H = 92
BOX_W = 124
BOX_BASE_H = 64  # title, ability, pile chips and gains, before the miners
CHIP_W = 22
CHIP_H = 15
CHIP_GAP = 2
MARKER_H = 15
MARKER_GAP = 3
MARKER_CHAR_W = 7
MIN_MARKER_ROWS = 2
RING_GAP = 12
MIN_RADIUS = 230
TABLE_ROW_H = 22
TABLE_FONT = 12
LEGEND_LINE_H = 16

# table columns: (key, heading, width)
BASE_COLUMNS = (
    ("colour", "", 18),
    ("name", "Player", 110),
    ("mark", "Marker", 50),
    ("submitted", "Submitted", 72),
    ("gold", "Gold", 50),
    ("r", "Red", 38),
    ("b", "Blue", 38),
    ("y", "Yellow", 48),
    ("g", "Green", 44),
    ("garnets", "Garnets", 58),
)
FINAL_COLUMNS = (
    ("tokens", "Tokens of Life", 96),
    ("rank", "Rank", 42),
    ("candidate", "Elimination", 86),
)
LEVELS_COLUMN = ("levels", "Trait levels (r b y g)", 290)


# --- small helpers -------------------------------------------------------------------------------------


def _t(value: object) -> str:
    """Text for an SVG text node or attribute value."""
    return escape(str(value), {'"': "&quot;"})


def _n(value: float) -> str:
    """A coordinate, written the same way every time."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _text(x: float, y: float, body: str, size: int = 11, *, anchor: str = "start", weight: str = "normal",
          fill: str = INK, cls: str = "", extra: str = "") -> str:  # fmt: skip
    klass = f' class="{cls}"' if cls else ""
    style = f"{FONT};font-size:{size}px;font-weight:{weight};fill:{fill}"
    return f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}" style="{style}"{klass}{extra}>{_t(body)}</text>'


def _rect(x: float, y: float, w: float, h: float, fill: str, stroke: str = "none", *, rx: float = 0,
          cls: str = "", extra: str = "") -> str:  # fmt: skip
    klass = f' class="{cls}"' if cls else ""
    return (
        f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="{_n(rx)}"'
        f' style="fill:{fill};stroke:{stroke};stroke-width:1"{klass}{extra}/>'
    )


def _players(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in view.get("players") or [] if isinstance(p, dict)]


def _spaces(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in view.get("spaces") or [] if isinstance(s, dict)]


def _role_names(view: dict[str, Any]) -> dict[str, str]:
    given = view.get("roles")
    return {**ROLE_NAMES, **given} if isinstance(given, dict) else dict(ROLE_NAMES)


def initials(names: list[str]) -> dict[str, str]:
    """Each player's marker initial: the first letter, or the shortest prefix that tells players apart."""
    for length in range(1, 4):
        short = {name: name[:length].upper() if length == 1 else name[:length] for name in names}
        if len(set(short.values())) == len(names):
            return short
    return {name: str(index) for index, name in enumerate(names, start=1)}


def _player_fill(index: int) -> str:
    return PLAYER_FILLS[index % len(PLAYER_FILLS)]


def _levels(miner: dict[str, Any]) -> dict[str, int]:
    raw = miner.get("levels") if isinstance(miner, dict) else None
    return {c: _int(raw.get(c)) for c in COLOURS} if isinstance(raw, dict) else dict.fromkeys(COLOURS, 0)


# --- the miners ----------------------------------------------------------------------------------------


class Marker:
    """One miner as drawn: its player, role, label and colour."""

    def __init__(self, player: str, role: str, label: str, fill: str, levels: dict[str, int], role_name: str):
        self.player = player
        self.role = role
        self.label = label
        self.fill = fill
        self.levels = levels
        self.role_name = role_name

    @property
    def width(self) -> int:
        return MARKER_CHAR_W * len(self.label) + 8

    def svg(self, x: float, y: float) -> str:
        name = f"{self.player}-{self.role.upper()}"
        traits = ", ".join(f"{TRAIT_NAMES[c]} {self.levels[c]}" for c in COLOURS)
        attrs = f' data-player="{_t(self.player)}" data-role="{_t(self.role)}"'
        return (
            f'<g class="miner"{attrs}><title>{_t(f"{name} ({self.role_name}): {traits}")}</title>'
            + _rect(x, y, self.width, MARKER_H, self.fill, "#000000", rx=4)
            + _text(x + self.width / 2, y + MARKER_H - 4, self.label, 10, anchor="middle", weight="bold", fill="#fff")
            + "</g>"
        )


def markers_by_space(view: dict[str, Any]) -> dict[int, list[Marker]]:
    """The miners standing on each space (space 0, before the set-up resolves, is not on the board)."""
    players = _players(view)
    names = [str(p.get("name", "")) for p in players]
    short = initials(names)
    role_names = _role_names(view)
    out: dict[int, list[Marker]] = {}
    for index, player in enumerate(players):
        miners = _dict(player.get("miners"))
        for role in ROLES:
            miner = miners.get(role)
            if not isinstance(miner, dict) or _int(miner.get("space")) <= 0:
                continue
            name = names[index]
            marker = Marker(name, role, short[name] + role, _player_fill(index), _levels(miner), role_names[role])
            out.setdefault(_int(miner.get("space")), []).append(marker)
    return out


def marker_rows(markers: list[Marker]) -> list[list[Marker]]:
    """Markers packed left to right into rows that fit inside a space."""
    rows: list[list[Marker]] = []
    used = 0
    inner = BOX_W - 2 * 4
    for marker in markers:
        if not rows or used + marker.width > inner:
            rows.append([])
            used = 0
        rows[-1].append(marker)
        used += marker.width + MARKER_GAP
    return rows


# --- the board -----------------------------------------------------------------------------------------


def box_height(markers: dict[int, list[Marker]]) -> int:
    rows = max([len(marker_rows(m)) for m in markers.values()] + [MIN_MARKER_ROWS])
    return BOX_BASE_H + rows * (MARKER_H + MARKER_GAP) + 4


def ring_radius(count: int, box_h: int) -> float:
    """Big enough that neighbouring spaces never overlap, whatever their angle on the ring."""
    step = math.hypot(BOX_W, box_h) + RING_GAP
    return max(MIN_RADIUS, count * step / (2 * math.pi))


def _chip(x: float, y: float, resource: str, amount: int, space: int) -> str:
    faded = ' style="opacity:0.35"' if amount == 0 else ""
    title = f"<title>{_t(f'Space {space}: {amount} {RESOURCE_NAMES[resource]}')}</title>"
    return (
        f'<g class="pile" data-resource="{resource}"{faded}>{title}'
        + _rect(x, y, CHIP_W, CHIP_H, RESOURCE_FILL[resource], "#333333", rx=2)
        + _text(
            x + CHIP_W / 2, y + CHIP_H - 4, str(amount), 10, anchor="middle", weight="bold", fill=RESOURCE_INK[resource]
        )
        + "</g>"
    )


def _ability(bonus: object, role_names: dict[str, str]) -> str:
    if isinstance(bonus, str) and bonus in role_names:
        name = role_names[bonus]
        return f"Ability: {PLURALS.get(name, name + 's')} +1 Gold"
    return ""


def space_svg(space: dict[str, Any], cx: float, cy: float, height: int, markers: list[Marker],
              role_names: dict[str, str]) -> str:  # fmt: skip
    number = _int(space.get("space"))
    x, y = cx - BOX_W / 2, cy - height / 2
    pile = _dict(space.get("pile"))
    gains = _dict(space.get("gains"))
    parts = [f'<g class="space" data-space="{number}">', _rect(x, y, BOX_W, height, SPACE_FILL, SPACE_STROKE, rx=6)]
    parts.append(_text(x + 6, y + 14, f"Space {number}", 12, weight="bold", cls="space-number"))
    ability = _ability(space.get("bonus"), role_names)
    if ability:
        parts.append(_text(x + 6, y + 27, ability, 9, fill="#7a5200", cls="ability"))
    chips_y = y + 33
    for column, resource in enumerate(RESOURCES):
        chip_x = x + 4 + column * (CHIP_W + CHIP_GAP)
        parts.append(_chip(chip_x, chips_y, resource, _int(pile.get(resource)), number))
        gain = _int(gains.get(resource))
        if gain:
            label = f"+{gain}" + ("+R" if resource == "gold" else "")
            parts.append(_text(chip_x + CHIP_W / 2, chips_y + CHIP_H + 10, label, 8, anchor="middle", fill=MUTED))
    row_y = y + BOX_BASE_H
    for row in marker_rows(markers):
        mx = x + 4
        for marker in row:
            parts.append(marker.svg(mx, row_y))
            mx += marker.width + MARKER_GAP
        row_y += MARKER_H + MARKER_GAP
    parts.append("</g>")
    return "".join(parts)


def _arrow(cx: float, cy: float, radius: float, angle: float) -> str:
    """A chevron on the ring pointing the way miners move (clockwise, to higher numbers)."""
    x, y = cx + radius * math.sin(angle), cy - radius * math.cos(angle)
    degrees = math.degrees(angle)
    return (
        f'<polygon points="-6,-5 6,0 -6,5" transform="translate({_n(x)},{_n(y)}) rotate({_n(degrees)})"'
        f' style="fill:{RING_STROKE}"/>'
    )


def board_svg(view: dict[str, Any], left: float, top: float) -> tuple[str, float, float]:
    """The ring of spaces; returns the SVG and its width and height."""
    spaces = _spaces(view)
    markers = markers_by_space(view)
    height = box_height(markers)
    count = max(len(spaces), 1)
    radius = ring_radius(count, height)
    size = 2 * radius + math.hypot(BOX_W, height) + 2 * MARGIN
    cx, cy = left + size / 2, top + size / 2
    role_names = _role_names(view)
    parts = [
        f'<g class="board" data-spaces="{len(spaces)}">',
        f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(radius)}" style="fill:none;stroke:{RING_STROKE};stroke-width:6"/>',
    ]
    for index in range(len(spaces)):
        parts.append(_arrow(cx, cy, radius, (index + 0.5) * 2 * math.pi / count))
    for index, space in enumerate(spaces):
        angle = index * 2 * math.pi / count
        sx, sy = cx + radius * math.sin(angle), cy - radius * math.cos(angle)
        number = _int(space.get("space")) or index + 1
        parts.append(space_svg(space, sx, sy, height, markers.get(number, []), role_names))
    parts.append(_text(cx, cy - 8, "Mining board", 16, anchor="middle", weight="bold", fill=MUTED))
    parts.append(_text(cx, cy + 12, f"{len(spaces)} spaces, miners move clockwise", 11, anchor="middle", fill=MUTED))
    parts.append("</g>")
    return "".join(parts), size, size


# --- header --------------------------------------------------------------------------------------------


def viewer_words(view: dict[str, Any]) -> str:
    if "pending" in view:
        return "Host's view"
    you = view.get("you")
    return f"{you}'s view" if isinstance(you, str) else "Spectator's view"


def phase_words(view: dict[str, Any]) -> str:
    stage = view.get("stage")
    rounds = _int(view.get("rounds"))
    number = _int(view.get("round"))
    if stage == "finished":
        return f"Finished after round {number} of {rounds}"
    if stage == "setup":
        return f"Set-up: players assign their miners' starting spaces ({rounds} rounds to follow)"
    if stage == "round":
        return f"Round {number} of {rounds}: moves, bully and upgrades are submitted sealed"
    if stage == "between":
        return f"Round {number} of {rounds} resolving"
    return "Not started yet"


def submitted_svg(view: dict[str, Any], x: float, y: float) -> str:
    """Who has submitted in the open phase: names and a tick, never the submission."""
    if view.get("stage") not in ("setup", "round"):
        return ""
    parts = [_text(x, y, "Submitted:", 12, weight="bold")]
    cursor = x + 78
    for index, player in enumerate(_players(view)):
        name = str(player.get("name", ""))
        done = bool(player.get("submitted"))
        word = f"{name} {'submitted' if done else 'waiting'}"
        extra = f' data-player="{_t(name)}" data-submitted="{"yes" if done else "no"}"'
        parts.append(_rect(cursor, y - 10, 10, 10, _player_fill(index), rx=2))
        parts.append(_text(cursor + 14, y, word, 12, fill=INK if done else MUTED, cls="submitted-mark", extra=extra))
        cursor += 14 + 7 * len(word) + 18
    return "".join(parts)


def own_submission_svg(view: dict[str, Any], x: float, y: float) -> str:
    """A player's own sealed submission, only in that player's picture."""
    you = view.get("you")
    if not isinstance(you, str) or view.get("stage") not in ("setup", "round"):
        return ""
    mine = view.get("your_submission")
    body = f"Your sealed submission: {mine}" if isinstance(mine, str) else "You have not submitted yet"
    return _text(x, y, body, 11, fill="#1a5e20", cls="your-submission")


def header_svg(view: dict[str, Any], width: float) -> str:
    parts = [
        _text(MARGIN, 28, "Mining", 22, weight="bold"),
        _text(MARGIN + 95, 28, phase_words(view), 15, cls="phase"),
        _text(width - MARGIN, 28, viewer_words(view), 12, anchor="end", fill=MUTED, cls="viewer"),
        submitted_svg(view, MARGIN, 54),
        own_submission_svg(view, MARGIN, 76),
    ]
    return "".join(parts)


# --- players' table ------------------------------------------------------------------------------------


def _final_by_player(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    final = view.get("final")
    rows = final.get("results") if isinstance(final, dict) else None
    if not isinstance(rows, list):
        return {}
    return {str(r.get("player")): r for r in rows if isinstance(r, dict)}


def columns(view: dict[str, Any]) -> tuple[tuple[str, str, int], ...]:
    base: tuple[tuple[str, str, int], ...] = BASE_COLUMNS
    if view.get("stage") not in ("setup", "round"):
        base = tuple(c for c in base if c[0] != "submitted")
    extra = FINAL_COLUMNS if _final_by_player(view) else ()
    return base + extra + (LEVELS_COLUMN,)


def levels_words(player: dict[str, Any]) -> str:
    """Non-zero trait levels per miner, e.g. 'C 1 0 0 1, P 0 2 0 0'."""
    miners = _dict(player.get("miners"))
    words = []
    for role in ROLES:
        levels = _levels(miners.get(role, {}))
        if any(levels.values()):
            words.append(role.upper() + " " + " ".join(str(levels[c]) for c in COLOURS))
    return ", ".join(words) if words else "all 0"


def cells(view: dict[str, Any], player: dict[str, Any], mark: str) -> dict[str, str]:
    name = str(player.get("name", ""))
    crystals = _dict(player.get("crystals"))
    out = {
        "name": name,
        "mark": mark,
        "submitted": ("yes" if player.get("submitted") else "no") if view.get("stage") in ("setup", "round") else "",
        "gold": str(_int(player.get("gold"))),
        "garnets": str(_int(player.get("garnets"))),
        "levels": levels_words(player),
    }
    out.update({c: str(_int(crystals.get(c))) for c in COLOURS})
    final = _final_by_player(view).get(name)
    if final is not None:
        earned = _int(final.get("garnets_earned"))
        out["garnets"] = f"{out['garnets']} (+{earned})" if earned else out["garnets"]
        out["tokens"] = str(_int(final.get("tokens_of_life")))
        out["rank"] = str(final.get("rank")) if final.get("rank") is not None else ""
        out["candidate"] = "Candidate" if final.get("elimination_candidate") else ""
    return out


def _ordered(view: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """Players with their colour index, by rank once the match is finished."""
    indexed = list(enumerate(_players(view)))
    final = _final_by_player(view)
    if final:
        order = {name: place for place, name in enumerate(final)}
        indexed.sort(key=lambda ip: order.get(str(ip[1].get("name")), len(order)))
    return indexed


def table_width(view: dict[str, Any]) -> int:
    return sum(w for _, _, w in columns(view))


def table_svg(view: dict[str, Any], left: float, top: float) -> tuple[str, float]:
    """The players' table; returns the SVG and its height."""
    cols = columns(view)
    width = table_width(view)
    parts = ['<g class="players">', _text(left, top, "Players", 15, weight="bold")]
    y = top + 10
    parts.append(_rect(left, y, width, TABLE_ROW_H, "#ece8dc"))
    x = left
    for key, heading, col_w in cols:
        fill = HEADING_INK.get(key, INK)
        parts.append(_text(x + 4, y + 15, heading, TABLE_FONT - 1, weight="bold", fill=fill))
        x += col_w
    y += TABLE_ROW_H
    names = [str(p.get("name", "")) for p in _players(view)]
    short = initials(names)
    you = view.get("you")
    for colour_index, player in _ordered(view):
        name = str(player.get("name", ""))
        row = cells(view, player, short.get(name, "?"))
        candidate = bool(row.get("candidate"))
        background = "#fde8ea" if candidate else ("#eef6ee" if name == you else SPACE_FILL)
        parts.append(f'<g class="player-row" data-player="{_t(name)}">')
        parts.append(_rect(left, y, width, TABLE_ROW_H, background, "#dddddd"))
        x = left
        for key, _, col_w in cols:
            if key == "colour":
                parts.append(_rect(x + 4, y + 5, 11, 11, _player_fill(colour_index), rx=2))
            else:
                weight = "bold" if key in ("name", "gold", "rank") else "normal"
                fill = WARN if key == "candidate" or (key == "gold" and row["gold"].startswith("-")) else INK
                size = TABLE_FONT
                parts.append(_text(x + 4, y + 15, row.get(key, ""), size, weight=weight, fill=fill, cls=key))
            x += col_w
        parts.append("</g>")
        y += TABLE_ROW_H
    final = view.get("final")
    if isinstance(final, dict):
        candidates = [str(c) for c in final.get("elimination_candidates") or []]
        words = ", ".join(candidates) if candidates else "none"
        label = "Elimination Candidates" if len(candidates) > 1 else "Elimination Candidate"
        parts.append(_text(left, y + 20, f"{label}: {words}", 13, weight="bold", fill=WARN, cls="candidates"))
        y += 26
    parts.append("</g>")
    return "".join(parts), y - top


def legend_svg(view: dict[str, Any], left: float, top: float) -> tuple[str, float]:
    role_names = _role_names(view)
    steps = _dict(view.get("max_steps"))
    lines = [
        "Markers: player initial + role letter, in the player's colour:",
        "  " + ", ".join(f"{r} {role_names[r]} (1-{_int(steps.get(r)) or 3})" for r in ROLES),
        "Chips on a space: its pile of Gold, Red, Blue, Yellow, Green;",
        "  +n below a chip: what the space gains each round (+R: plus the round number).",
        "Trait levels r b y g: " + ", ".join(f"{TRAIT_NAMES[c]}" for c in COLOURS) + ".",
    ]
    parts = ['<g class="legend">']
    y = top
    for line in lines:
        parts.append(_text(left, y, line, 12, fill=MUTED))
        y += LEGEND_LINE_H
    parts.append("</g>")
    return "".join(parts), y - top


# --- the document --------------------------------------------------------------------------------------


def render_svg(view: dict[str, Any]) -> str:
    """A self-contained SVG 1.1 document of a mining view (any viewer, any phase)."""
    board, board_w, board_h = board_svg(view, MARGIN, HEADER_H)
    # The table and legend go under the board: side by side the picture is ~2000 px wide, and a page
    # 1400 px wide would shrink the table's text to ~8 px.
    table_top = HEADER_H + board_h + 10
    table, table_h = table_svg(view, MARGIN, table_top)
    legend, legend_h = legend_svg(view, MARGIN, table_top + table_h + 30)
    width = max(MARGIN + max(board_w, table_width(view), 560) + MARGIN, 900)
    height = table_top + table_h + 30 + legend_h + MARGIN
    w, h = _n(math.ceil(width)), _n(math.ceil(height))
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{w}" height="{h}" viewBox="0 0 {w} {h}">'
        f"<title>{_t('Mining: ' + phase_words(view))}</title>"
        + _rect(0, 0, math.ceil(width), math.ceil(height), BACKGROUND)
        + header_svg(view, width)
        + board
        + table
        + legend
        + "</svg>\n"
    )
