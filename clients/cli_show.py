"""What `matchctl` prints by default, for people: a short board, a results table, one line per record.

`--json` prints the machine form instead (clients/cli.py); nothing here is parsed by anyone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from rich import box
from rich.console import Console
from rich.progress import track
from rich.table import Table

from clients.client import State
from matchserver.v1 import arena_pb2 as arena_pb
from matchserver.v1 import matchserver_pb2 as pb

CLOCK_READING = re.compile(r"\b\d{7,}(?:\.\d+)?\b")  # a match-clock time inside a trace line (Unix time live)


def console() -> Console:
    """Plain text to stdout: no colours, no wrapping to the terminal (output is also piped and compared)."""
    return Console(highlight=False, color_system=None, width=160, soft_wrap=True)


T = TypeVar("T")


def progress(items: Sequence[T], what: str) -> Iterable[T]:
    """A progress bar on stderr while a long loop runs (shown on a terminal only; gone when done)."""
    if len(items) < 2:
        return items
    return track(items, description=what, console=Console(stderr=True), transient=True)


def seconds(value: float) -> str:
    return f"{value:.0f} s" if value == int(value) else f"{value:.1f} s"


def status_lines(status: pb.Status, clock: float) -> list[str]:
    """Phase, who is awaited, time left, paused: what every board starts with."""
    over = status.finished and "finished" not in status.phase and "cancelled" not in status.phase
    lines = [f"phase:     {status.phase}" + (" (finished)" if over else "")]
    if status.finished:
        return lines
    lines.append(f"awaiting:  {', '.join(status.awaiting) or 'nobody'}")
    if status.submitted:
        lines.append(f"submitted: {', '.join(status.submitted)}")
    if status.HasField("deadline"):
        left = max(0.0, status.deadline - clock)
        spelled = f" ({timedelta(seconds=round(left))})" if left >= 60 else ""
        lines.append(
            f"time left: {seconds(left)}{spelled}" + (" (the clock is stopped: paused)" if status.paused else "")
        )
    elif status.paused:
        lines.append("time left: none (paused)")
    if status.binding:
        lines.append("binding:   a player's first submission in this phase is final")
    return lines


def _scalars(entry: Mapping[str, Any], skip: tuple[str, ...] = ("name", "submitted")) -> str:
    """The short public numbers of a player's entry (garnets, gold, reserve...), as `name value` pairs."""
    shown = []
    for key, value in sorted(entry.items()):
        if key in skip or isinstance(value, (dict, list)) or value is None:
            continue
        shown.append(f"{key} {value}")
    return ", ".join(shown)


def _players(view: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    players = view.get("players")
    if isinstance(players, list):
        return [(str(p.get("name", "?")), p) for p in players if isinstance(p, dict)]
    if isinstance(players, dict):
        return [(str(name), entry) for name, entry in players.items() if isinstance(entry, dict)]
    return []


def _entry_of(view: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A player's entry in a view's `players`, a table keyed by name (Cookoff) or a list of named entries
    (mining, The Last Gathering)."""
    for entry_name, entry in _players(view):
        if entry_name == name:
            return dict(entry)
    return {}


def viewer_name(view: Mapping[str, Any]) -> str | None:
    """The player a view is for (None: a spectator's or the host's view)."""
    you = view.get("you")
    if isinstance(you, str):
        return you
    if isinstance(you, dict) and isinstance(you.get("player"), str):
        return str(you["player"])
    return None


def private_part(view: Mapping[str, Any]) -> dict[str, Any]:
    """The viewer's own part of a player's view: what only they see (their pending submission, their hand)."""
    part: dict[str, Any] = {}
    you = view.get("you")
    if isinstance(you, dict):
        part.update(you)
    elif isinstance(you, str):  # Cookoff and mining name the viewer; their own entry is under players
        entry = _entry_of(view, you)
        part.update({k: v for k, v in entry.items() if k != "name" and v not in (None, {}, [])})
    for key, value in view.items():
        if (key.startswith("your_") or key.startswith("my_") or key == "must_submit") and value not in (None, {}):
            part[key] = value
    return part


def state_board(state: State) -> str:
    """The match as text: who, where, who is awaited, time left, the players' numbers, and for a player
    what they need to decide now, in the game's own terms (games without a board here: their own part)."""
    view = state.view
    lines = [f"match {state.match_id} · {state.game} · version {state.version} · as {state.viewer or 'spectator'}"]
    lines += status_lines(state.status, state.clock)
    players = _players(view)
    if players:
        lines.append("players:")
        width = max(len(name) for name, _ in players)
        for name, entry in players:
            mark = " (submitted)" if entry.get("submitted") else ""
            lines.append(f"  {name:<{width}}  {_scalars(entry)}{mark}".rstrip())
    board = GAME_BOARDS.get(state.game)
    if board is not None:
        lines += board(view, viewer_name(view))
    else:
        lines += generic_board(view, state.viewer.startswith("player:"))
    if state.status.finished:
        lines.append("results:")
        lines += ["  " + line for line in results_lines(state.results.get("results"))]
    return "\n".join(lines)


def generic_board(view: Mapping[str, Any], is_player: bool) -> list[str]:
    """A game without a board of its own here: the view's fields, one a line, and a player's own part."""
    part = private_part(view)
    shown = [(key, value) for key, value in view.items() if key not in part and key != "players"]
    lines = ["view:"] if shown else []
    lines += [f"  {key}: {json.dumps(value, sort_keys=True)}" for key, value in shown]
    if is_player:
        lines.append("your part:")
        lines += [f"  {key}: {json.dumps(value, sort_keys=True)}" for key, value in sorted(part.items())]
        lines += [] if part else ["  nothing of yours in the view now"]
    return lines


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _counts(table: Any) -> str:
    """{"Cheri": 2, "Pecha": 1} as `Cheri 2, Pecha 1`; `none` when empty."""
    if not isinstance(table, Mapping) or not table:
        return "none"
    return ", ".join(f"{name} {count}" for name, count in table.items())


def _command_text(game_name: str, command: Any) -> str:
    """A pending command (its JSON) in the game's own words, as `submit` accepts it."""
    from engine import codec
    from engine.registry import get_game

    try:
        game = get_game(game_name)
        return game.format(codec.from_json(game.command_types, command))
    except Exception:  # a form this client does not know: the JSON itself, on one line
        return json.dumps(command, sort_keys=True)


def cookoff_board(view: Mapping[str, Any], me: str | None) -> list[str]:
    """Cookoff: the round's trees, the judges revealed so far; for a player their inventory, pot, dishes,
    reserve and sealed submission."""
    lines = [f"round:     {view.get('round', '?')} of {view.get('rounds', '?')}"]
    trees = [f"{t.get('berry')} {t.get('quantity')}" for t in view.get("trees") or [] if isinstance(t, dict)]
    lines.append(f"trees:     {', '.join(trees) or 'none this round'}")
    judges = [j for j in view.get("judges") or [] if isinstance(j, dict) and j.get("revealed")]
    lines.append("judges:" if judges else "judges:    none revealed yet")
    lines += [f"  {j.get('index', '?')}. {j.get('criterion') or j.get('want', '')}" for j in judges]
    if me is None:
        return lines
    seat = _entry_of(view, me)
    limits = _mapping(view.get("limits"))
    lines.append("your part:")
    lines.append(f"  inventory: {_counts(seat.get('inventory'))}")
    pot = _mapping(seat.get("pot"))
    cooked = [
        f"{square} {b.get('berry')} ({b.get('band')}{', sabotage' if b.get('sabotage') else ''})"
        for square, b in sorted(pot.items())
        if isinstance(b, Mapping)
    ]
    lines.append(f"  pot:       {', '.join(cooked) or 'empty'}")
    dishes = seat.get("dishes") or []
    lines.append(f"  dishes:    {len(dishes)}" if dishes else "  dishes:    none yet")
    if "reserve" in seat:
        lines.append(f"  reserve:   {seconds(float(seat['reserve']))}")
    if limits:
        lines.append("  limits:    " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in limits.items()))
    if seat.get("pending") is not None:
        lines.append(f"  submitted: {_command_text('cookoff', seat['pending'])}")
    return lines


TILE_SYMBOLS = {"end": "-", "straight": "I", "bend": "L", "junction": "T", "cross": "+"}


def last_gathering_board(view: Mapping[str, Any], me: str | None) -> list[str]:
    """The Last Gathering: the step, the tiles on offer and the tile to place; for a player their board
    (a 4 x 4 grid, A-D by 1-4), garnets, frame and what they must still submit."""
    lines = [f"step:      {view.get('status', view.get('phase', ''))}"]
    if view.get("auction_open"):
        supply = _mapping(view.get("supply"))
        offered = [f"{kind} {supply.get(kind, '?')}" for kind in view.get("available_kinds") or []]
        lines.append(f"on offer:  {', '.join(offered) or 'nothing'} (tiles left of each kind)")
    if view.get("phase") == "frames":
        lines.append(f"frames:    open {', '.join(view.get('open_frames') or []) or 'none'}")
    tile = view.get("tile_to_place")
    if isinstance(tile, Mapping):
        sheep = f" with sheep on {tile['sheep']}" if tile.get("sheep") else ""
        lines.append(f"to place:  {tile.get('kind')}{sheep}")
    if me is None:
        return lines
    you = _mapping(view.get("you"))
    entry = _entry_of(view, me)
    lines.append("your part:")
    garnets = you.get("garnets", entry.get("garnets", "?"))
    lines.append(f"  garnets:   {garnets}; frame: {you.get('frame') or 'none yet'}")
    must = you.get("must_submit") or []
    lines.append(f"  to submit: {', '.join(str(m).replace('_', ' ') for m in must) or 'nothing now'}")
    pending = _mapping(you.get("pending"))
    orders = [_lg_order(kind, value) for kind, value in pending.items() if kind != "end_early" and value]
    if orders:
        lines.append(f"  submitted: {'; '.join(orders)}{'; end early' if pending.get('end_early') else ''}")
    lines.append("  board:")
    lines += ["    " + row for row in _lg_grid(entry.get("board") or [])]
    return lines


def _lg_order(kind: str, value: Any) -> str:
    if not isinstance(value, Mapping):
        return f"{kind} {value}"
    if kind == "frame_bid":
        return f"bid {value.get('bid')} on frame {value.get('frame')}"
    if kind == "tile_bid":
        sheep = f" with sheep on {value['sheep']}" if value.get("sheep") else ""
        return f"bid {value.get('bid')} {value.get('kind')}{sheep}"
    if kind == "placement":
        return f"place {value.get('spot')} rotate {value.get('rotation', 0)}"
    return f"{kind} {json.dumps(value, sort_keys=True)}"


def _lg_grid(board: Sequence[Any]) -> list[str]:
    """A board as rows 1-4 of columns A-D; a tile as its symbol (- I L T +), rotation and sheep."""
    tiles = {str(t.get("spot")): t for t in board if isinstance(t, Mapping)}
    rows = ["     " + "".join(f"{column:<9}" for column in "ABCD").rstrip()]
    for row in "1234":
        cells = []
        for column in "ABCD":
            tile = tiles.get(column + row)
            if tile is None:
                cells.append(".")
                continue
            sheep = f" {tile['sheep']}" if tile.get("sheep") else ""
            cells.append(f"{TILE_SYMBOLS.get(str(tile.get('kind')), '?')}{tile.get('rotation', 0)}{sheep}")
        rows.append(f"  {row}  " + "".join(f"{cell:<9}" for cell in cells).rstrip())
    return [*rows, "  (- end, I straight, L bend, T junction, + cross; rotation clockwise; a letter: sheep)"]


def mining_board(view: Mapping[str, Any], me: str | None) -> list[str]:
    """Mining: every space (its pile, its gains, its bonus, the miners on it); for a player their miners,
    how far each may move, and their submission."""
    lines = ["board:     space: pile (gains per round) [bonus] miners"]
    for space in view.get("spaces") or []:
        if not isinstance(space, Mapping):
            continue
        bonus = f" [bonus {space['bonus']}]" if space.get("bonus") else ""
        miners = ", ".join(space.get("miners") or []) or "-"
        pile, gains = _resources(space.get("pile")), _resources(space.get("gains"))
        lines.append(f"  {space.get('space', '?'):>2}: {pile} ({gains}){bonus} {miners}")
    if me is None:
        return lines
    entry = _entry_of(view, me)
    roles = _mapping(view.get("roles"))
    steps = _mapping(view.get("max_steps"))
    lines.append("your part:")
    crystals = _resources(entry.get("crystals"))
    lines.append(f"  gold {entry.get('gold', 0)}, garnets {entry.get('garnets', 0)}, crystals {crystals}")
    must = view.get("must_submit")
    lines.append(f"  to submit: {must or 'nothing now'}")
    lines.append("  your miners:")
    own = _mapping(entry.get("miners"))
    for role, miner in own.items():
        if not isinstance(miner, Mapping):
            continue
        where = f"on space {miner['space']}" if miner.get("space") else "not placed yet"
        levels = _resources(miner.get("levels"), "none")
        reach = f", moves up to {steps[role]}" if role in steps else ""
        lines.append(f"    {role} ({roles.get(role, role)}): {where}{reach}; levels {levels}")
    if view.get("your_submission"):
        lines.append(f"  submitted: {view['your_submission']}")
    return lines


def _resources(table: Any, empty: str = "nothing") -> str:
    """{"gold": 5, "r": 0, "b": 2} as `gold 5, b 2` (what is there); `nothing` when all are 0."""
    if not isinstance(table, Mapping):
        return "?"
    return ", ".join(f"{name} {count}" for name, count in table.items() if count) or empty


GAME_BOARDS: dict[str, Callable[[Mapping[str, Any], str | None], list[str]]] = {
    "cookoff": cookoff_board,
    "last-gathering": last_gathering_board,
    "mining": mining_board,
}


def results_lines(rows: Any) -> list[str]:
    if not isinstance(rows, list) or not rows:
        return ["(none)"]
    return [f"{row.get('rank', '?')}. {row.get('player', '?')}  {_scalars(row, ('rank', 'player'))}" for row in rows]


def cell(value: Any) -> str:
    """A table cell as people read it: yes/no, not Python's True/False."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def results_table(
    match_id: str, game: str, finished: bool, results: Mapping[str, Any], bots: Mapping[str, str]
) -> None:
    """play-bots' report: who won, as a table."""
    out = console()
    rows = results.get("results")
    if not finished or not isinstance(rows, list):
        print(f"match {match_id} ({game}) did not finish")
        return
    columns = sorted({key for row in rows for key, value in row.items() if not isinstance(value, (dict, list))})
    columns = [c for c in columns if c not in ("rank", "player")]
    table = Table(
        title=f"{game} match {match_id}: finished",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
    )
    for name in ("rank", "player", "bot", *columns):
        table.add_column(name, justify="right" if name not in ("player", "bot") else "left")
    for row in sorted(rows, key=lambda r: (r.get("rank", 0), str(r.get("player")))):
        player = str(row.get("player", "?"))
        table.add_row(str(row.get("rank", "?")), player, bots.get(player, ""), *(cell(row.get(c, "")) for c in columns))
    with out.capture() as captured:
        out.print(table)
    print("\n".join(line.rstrip() for line in captured.get().splitlines()))
    winners = [str(row.get("player")) for row in rows if row.get("rank") == 1]
    print(f"won by {', '.join(winners)}" if winners else "no winner")


def audit_lines(entry: pb.AuditEntry, start: float) -> list[str]:
    """An audit entry with its time as an offset on the match clock, epoch readings in its trace likewise."""
    mark = " [retracted]" if entry.retracted else ""
    who = f" by {entry.actor}" if entry.actor else ""
    said = f": {_offsets(entry.input, start)}" if entry.input else ""
    lines = [f"v{entry.version} +{seconds(entry.at - start)} {entry.type or entry.kind}{who}{said}{mark}"]
    return lines + [f"    {_offsets(line, start)}" for line in entry.lines]


def _offsets(text: str, start: float) -> str:
    """Clock readings at or after the match's start, as offsets from it (smaller numbers are counts)."""

    def offset(found: re.Match[str]) -> str:
        value = float(found.group())
        return f"+{seconds(value - start)}" if start and value >= start else found.group()

    return CLOCK_READING.sub(offset, text)


# The arena (matchctl bot, tournament, leaderboard): tables of bots, standings, matches and ratings.

NUMBERS = frozenset(
    {"rank", "points", "played", "wins", "byes", "generation", "#", "round", "bots", "finished", "ordinal"}
    | {"matches", "mu ± sigma"}
)


def _table(title: str | None, headings: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A plain table as lines; numbers to the right, words to the left."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for heading in headings:
        table.add_column(heading, justify="right" if heading in NUMBERS else "left")
    for row in rows:
        table.add_row(*row)
    out = console()
    with out.capture() as captured:
        out.print(table)
    return [line.rstrip() for line in captured.get().splitlines()]


def points(value: float) -> str:
    """Standings points: 1 per bot beaten, 0.5 per tie, so one decimal at most."""
    return f"{value:g}"


def when(epoch_seconds: float) -> str:
    return datetime.fromtimestamp(epoch_seconds, UTC).strftime("%Y-%m-%d %H:%M UTC") if epoch_seconds else ""


def bots_table(bots: Sequence[arena_pb.Bot]) -> list[str]:
    if not bots:
        return ["no bots registered (matchctl bot create NAME)"]
    rows = [
        (
            bot.name,
            "revoked" if bot.revoked else "active",
            "yes" if bot.auto_accept else "no",
            str(bot.key_generation),
            bot.owner,
            when(bot.created_at),
        )
        for bot in bots
    ]
    return _table(None, ("bot", "state", "auto-accept", "key generation", "owner", "created"), rows)


def progress_line(tournament: arena_pb.Tournament) -> str:
    return f"{tournament.matches_finished} of {tournament.matches_total} matches finished"


def tournament_lines(tournament: arena_pb.Tournament) -> list[str]:
    """`tournament show`: who leads, how far it is, every match, and the audit that explains the standings."""
    name = f" · {tournament.name}" if tournament.name else ""
    lines = [
        f"tournament {tournament.tournament_id}{name} · {tournament.game} {tournament.format} · {tournament.state}"
        f" · organised by {tournament.organiser or '?'}",
        progress_line(tournament),
        "",
    ]
    standings = [
        (str(s.rank), s.bot, points(s.points), str(s.played), str(s.wins), str(s.byes)) for s in tournament.standings
    ]
    lines += _table("standings", ("rank", "bot", "points", "played", "wins", "byes"), standings)
    if tournament.matches:
        matches = [
            (str(m.index), str(m.round), ", ".join(m.seats), m.state, m.match_id or "-") for m in tournament.matches
        ]
        lines += ["", *_table("matches", ("#", "round", "seats", "state", "match"), matches)]
        notes = [f"  #{m.index}: {m.note}" for m in tournament.matches if m.note]
        if notes:
            lines += ["notes:", *notes]
    if tournament.audit:
        lines += ["", "audit:", *(f"  {line}" for line in tournament.audit)]
    return lines


def tournaments_table(tournaments: Sequence[arena_pb.Tournament]) -> list[str]:
    if not tournaments:
        return ["no tournaments yet (matchctl tournament create ...)"]
    rows = [
        (
            t.tournament_id,
            t.name,
            t.game,
            t.format,
            str(len(t.bots)),
            f"{t.matches_finished}/{t.matches_total}",
            t.state,
        )
        for t in tournaments
    ]
    return _table(None, ("tournament", "name", "game", "format", "bots", "finished", "state"), rows)


def rating(mu: float, sigma: float) -> str:
    """A rating with its uncertainty, as people read it: 25.0 ± 8.3."""
    return f"{mu:.1f} ± {sigma:.1f}"


def leaderboard_lines(board: arena_pb.LeaderboardResponse) -> list[str]:
    if not board.ratings:
        return [f"no rated arena matches of {board.game} yet"]
    rows = [(str(r.rank), r.bot, f"{r.ordinal:.1f}", rating(r.mu, r.sigma), str(r.matches)) for r in board.ratings]
    return _table(f"{board.game} leaderboard", ("rank", "bot", "ordinal", "mu ± sigma", "matches"), rows)
