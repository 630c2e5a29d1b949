"""What `matchctl` prints by default, for people: a short board, a results table, one line per record.

`--json` prints the machine form instead (clients/cli.py); nothing here is parsed by anyone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from rich import box
from rich.console import Console
from rich.progress import track
from rich.table import Table

from clients.client import State
from matchserver.v1 import arena_pb2 as arena_pb
from matchserver.v1 import matchserver_pb2 as pb

SUMMARY_WIDTH = 100  # a history or watch line is cut here: `--json` has the whole record
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


def private_part(view: Mapping[str, Any]) -> dict[str, Any]:
    """The viewer's own part of a player's view: what only they see (their pending submission, their hand)."""
    part: dict[str, Any] = {}
    you = view.get("you")
    if isinstance(you, dict):
        part.update(you)
    elif isinstance(you, str):  # Cookoff names the viewer; their private entry is under players
        entry = dict(view.get("players", {}).get(you) or {})
        part.update({k: v for k, v in entry.items() if v not in (None, {}, [])})
    for key, value in view.items():
        if (key.startswith("your_") or key.startswith("my_") or key == "must_submit") and value not in (None, {}):
            part[key] = value
    return part


def state_board(state: State) -> str:
    """The match as text: who, where, who is awaited, time left, the players' numbers, your private part."""
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
    part = private_part(view)
    if part:
        lines.append("your part:")
        lines += [f"  {key}: {json.dumps(value, sort_keys=True)}" for key, value in sorted(part.items())]
    if state.status.finished:
        lines.append("results:")
        lines += ["  " + line for line in results_lines(state.results.get("results"))]
    return "\n".join(lines)


def results_lines(rows: Any) -> list[str]:
    if not isinstance(rows, list) or not rows:
        return ["(none)"]
    return [f"{row.get('rank', '?')}. {row.get('player', '?')}  {_scalars(row, ('rank', 'player'))}" for row in rows]


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
        table.add_row(str(row.get("rank", "?")), player, bots.get(player, ""), *(str(row.get(c, "")) for c in columns))
    with out.capture() as captured:
        out.print(table)
    print("\n".join(line.rstrip() for line in captured.get().splitlines()))
    winners = [str(row.get("player")) for row in rows if row.get("rank") == 1]
    print(f"won by {', '.join(winners)}" if winners else "no winner")


def _summary(record: Mapping[str, Any]) -> str:
    """The few words a record's line shows: who acted and what the event says, cut to a line."""
    parts = []
    cause = record.get("cause") or {}
    if isinstance(cause, dict):
        if cause.get("actor"):
            parts.append(f"by {cause['actor']}")
        elif cause.get("timeout"):
            parts.append("at the deadline")
        elif cause.get("forced"):
            parts.append("ended by the host")
    for key in ("player", "players", "action", "reason", "to"):
        if key in record and record[key] not in (None, "", []):
            value = record[key]
            parts.append(f"{key} {','.join(value) if isinstance(value, list) else value}")
    event = record.get("event")
    if isinstance(event, dict):
        body = {k: v for k, v in event.items() if k != "type"}
        if body:
            parts.append(json.dumps(body, sort_keys=True, separators=(",", ":")))
    text = " ".join(parts)
    return text if len(text) <= SUMMARY_WIDTH else text[: SUMMARY_WIDTH - 3] + "..."


def record_line(event: pb.Event, start: float | None) -> str:
    """One record: version, match-clock offset, kind, type, a summary; `(retracted)` when it was."""
    record = json.loads(event.json) if event.json else {}
    at = record.get("at")
    offset = ""
    if start is not None and isinstance(at, (int, float)):
        offset = "+" + seconds(float(at) - start).replace(" ", "")
    mark = " (retracted)" if event.retracted else ""
    what = event.type or record.get("action") or ""
    return f"{event.version:5d} {offset:>7} {event.kind:8s} {what}{mark} {_summary(record)}".rstrip()


def record_start(event: pb.Event) -> float | None:
    """The match clock at the first record, that later lines are offsets from."""
    at = json.loads(event.json).get("at") if event.json else None
    return float(at) if isinstance(at, (int, float)) else None


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

NUMBERS = frozenset("rank points played wins byes key # round bots finished ordinal matches".split()) | {"mu ± sigma"}


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
    return _table(None, ("bot", "state", "auto-accept", "key", "owner", "created"), rows)


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
