"""The front door (`/`) and the pages it leads to: live and finished public matches, tournaments,
leaderboards, and each bot's page (its rating over time, its matches, its record against each rival).

Pure and standard library only, drawn from plain data (server/web/front.py and server/arena/front.py build
it), so it is tested without a server. Every string is escaped: players', bots' and tournaments' names are
user input. The front door's live sections are drawn here only: an update from its event stream carries
the same sections, and the page's script puts them in place."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any
from urllib.parse import quote, urlencode

from pictures.page import script_json

Row = Mapping[str, Any]


def with_query(path: str, query: Mapping[str, str], key: str, value: str | int) -> str:
    """`path` with the query as it is but `key` set: a paging link that leaves the other sections' pages be."""
    changed = {k: v for k, v in query.items() if k != key} | {key: str(value)}
    return f"{path}?{urlencode(sorted(changed.items()))}"


def time_text(seconds: float) -> str:
    """'1h 02m', '4m 05s', '12s'."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"


def _ordinal(rank: int) -> str:
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return f"{rank}{suffix}"


def match_href(match_id: str) -> str:
    return f"/matches/{quote(str(match_id), safe='')}"


def bot_href(bot: str) -> str:
    return f"/bots/{quote(str(bot), safe='')}"


def tournament_href(tournament_id: str) -> str:
    return f"/tournaments/{quote(str(tournament_id), safe='')}"


def leaderboard_href(game: str) -> str:
    return f"/leaderboard/{quote(str(game), safe='')}"


def _a(href: str, label: str, css: str = "") -> str:
    klass = f' class="{css}"' if css else ""
    return f'<a href="{escape(href)}"{klass}>{escape(label)}</a>'


def _more(href: str | None, label: str = "more") -> str:
    return f'<p class="more">{_a(href, label + " →")}</p>' if href else ""


def _table(head: Sequence[str], rows: Sequence[str], css: str = "") -> str:
    """A table (a heading starting '#' is a number's, right-aligned). Each cell is labelled by its heading
    (data-label), so a narrow screen draws a "stack" table's rows as cards of labelled lines."""
    labels = [h.removeprefix("#") for h in head]
    heads = "".join(
        f'<th class="num">{escape(label)}</th>' if h.startswith("#") else f"<th>{escape(label)}</th>"
        for h, label in zip(head, labels, strict=True)
    )
    labelled = []
    for row in rows:
        pieces = row.split("<td")
        cells = (f'<td data-label="{escape(label)}"' for label in labels)
        labelled.append(pieces[0] + "".join(next(cells, "<td") + piece for piece in pieces[1:]))
    klass = f' class="{css}"' if css else ""
    body = "".join(labelled)
    return f'<div class="scroll"><table{klass}><thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table></div>'


def _names(names: Sequence[str], marked: Sequence[str] = ()) -> str:
    """Names in order, each kept on one line; those in `marked` (awaited) stand out."""
    return ", ".join(
        f'<span class="nowrap{" awaited" if name in marked else ""}">{escape(str(name))}</span>' for name in names
    )


# --- matches ----------------------------------------------------------------------------------------


def live_matches_html(rows: Sequence[Row], more: str | None = None) -> str:
    """Game, players (those awaited marked), phase, who is awaited and the time left of each live match."""
    if not rows:
        return '<p class="empty">no public match is being played</p>'
    lines = []
    for row in rows:
        if row.get("paused"):
            left = '<span class="paused">paused</span>'
        elif row.get("time_left") is None:
            left = '<span class="muted">no deadline</span>'
        else:
            seconds = float(row["time_left"])
            left = f'<span class="left" data-left="{seconds:.0f}">{time_text(seconds)}</span>'
        awaited = _names(row["awaiting"]) if row["awaiting"] else '<span class="muted">nobody</span>'
        lines.append(
            f"<tr><td>{_a(match_href(row['match_id']), str(row['game']))}</td>"
            f'<td>{_names(row["players"], row["awaiting"])}</td><td class="phase">{escape(str(row["phase"]))}</td>'
            f'<td class="awaiting">{awaited}</td><td class="num">{left}</td></tr>'
        )
    return _table(["game", "players", "phase", "awaiting", "#time left"], lines, "matches stack") + _more(more, "older")


def finished_matches_html(rows: Sequence[Row], more: str | None = None) -> str:
    """Game, players and winners of each finished public match, newest first."""
    if not rows:
        return '<p class="empty">no public match has finished yet</p>'
    lines = []
    for row in rows:
        winners = _names(row["winners"]) if row["winners"] else '<span class="muted">no result</span>'
        lines.append(
            f"<tr><td>{_a(match_href(row['match_id']), str(row['game']))}</td>"
            f'<td>{_names(row["players"])}</td><td class="winners">{winners}</td></tr>'
        )
    return _table(["game", "players", "winners"], lines, "matches stack") + _more(more, "older")


# --- tournaments --------------------------------------------------------------------------------------


def tournament_title(row: Row) -> str:
    return str(row.get("name") or f"tournament {row['id']}")


def tournaments_html(rows: Sequence[Row], more: str | None = None) -> str:
    """Name (linking to its page), game, format, state and progress of each tournament."""
    if not rows:
        return '<p class="empty">no tournaments</p>'
    lines = []
    for row in rows:
        state = str(row["state"])
        lines.append(
            f'<tr class="{escape(state)}"><td>{_a(tournament_href(row["id"]), tournament_title(row))}</td>'
            f"<td>{escape(str(row['game']))}</td><td>{escape(str(row['format']))}</td>"
            f'<td><span class="state {escape(state)}">{escape(state)}</span></td>'
            f'<td class="num">{int(row["finished"])} of {int(row["counted"])}</td></tr>'
        )
    return _table(["tournament", "game", "format", "state", "#matches"], lines, "stack") + _more(more)


# --- leaderboards -------------------------------------------------------------------------------------


def leaderboard_html(rows: Sequence[Row], first_rank: int = 1, more: str | None = None) -> str:
    """Rank, bot (linking to its page), mu, sigma, ordinal (mu - 3 sigma, what it is sorted by), matches."""
    if not rows:
        return '<p class="empty">no rated matches yet</p>'
    lines = [
        f'<tr><td class="num">{rank}</td><td class="bot">{_a(bot_href(row["bot"]), str(row["bot"]))}</td>'
        f'<td class="num">{float(row["mu"]):.2f}</td><td class="num">{float(row["sigma"]):.2f}</td>'
        f'<td class="num strong">{float(row["ordinal"]):.2f}</td><td class="num">{int(row["matches"])}</td></tr>'
        for rank, row in enumerate(rows, start=first_rank)
    ]
    return _table(["#rank", "bot", "#mu", "#sigma", "#ordinal", "#matches"], lines, "board") + _more(more)


def leaderboards_html(boards: Sequence[tuple[str, Sequence[Row]]]) -> str:
    """Each game's top of the leaderboard, with a link to the whole of it; the games without a rated match
    yet on one line."""
    if not boards:
        return '<p class="empty">no games</p>'
    parts = []
    for game, rows in boards:
        if rows:
            whole = _a(leaderboard_href(game), f"whole {game} leaderboard →")
            parts.append(
                f'<div class="board-of"><h3>{escape(game)}</h3>{leaderboard_html(rows)}'
                f'<p class="more">{whole}</p></div>'
            )
    unrated = ", ".join(_a(leaderboard_href(game), game) for game, rows in boards if not rows)
    rest = f'<p class="empty">no rated matches yet: {unrated}</p>' if unrated else ""
    return f'<div class="boards">{"".join(parts)}</div>{rest}'


# --- a bot's page -------------------------------------------------------------------------------------


def sparkline(values: Sequence[float], width: int = 240, height: int = 48) -> str:
    """A small line of the values in order (an inline SVG, no script), with the last value dotted."""
    if not values:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = (width - 8) / max(1, len(values) - 1)
    points = [(4 + i * step, 4 + (height - 8) * (1 - (v - low) / span)) for i, v in enumerate(values)]
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    x, y = points[-1]
    return (
        f'<svg class="spark" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="ordinal after each match, from {low:.2f} to {high:.2f}">'
        f'<polyline fill="none" stroke="#8a6a4a" stroke-width="2" points="{path}"/>'
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="#1f5fa8"/></svg>'
    )


def rating_history_html(games: Sequence[tuple[str, Sequence[Row]]]) -> str:
    """Per game: the line of its ordinal, and the table of its rating after each match it played."""
    if not games:
        return '<p class="empty">no rated matches yet</p>'
    parts = []
    for game, steps in games:
        last = steps[-1]
        lines = [
            f'<tr><td class="num">{n}</td><td>{_a(match_href(step["match_id"]), str(step["match_id"])[:8])}</td>'
            f'<td class="num">{float(step["mu"]):.2f}</td><td class="num">{float(step["sigma"]):.2f}</td>'
            f'<td class="num strong">{float(step["ordinal"]):.2f}</td></tr>'
            for n, step in enumerate(steps, start=1)
        ]
        table = _table(["#after", "match", "#mu", "#sigma", "#ordinal"], lines, "board")
        parts.append(
            f'<div class="history"><h3>{escape(game)} · ordinal {float(last["ordinal"]):.2f} after '
            f"{len(steps)} match{'es' if len(steps) != 1 else ''} "
            f"({_a(leaderboard_href(game), 'leaderboard')})</h3>"
            f"{sparkline([float(step['ordinal']) for step in steps])}"
            f"<details><summary>after each match</summary>{table}</details></div>"
        )
    return "".join(parts)


def bot_matches_html(rows: Sequence[Row], more: str | None = None) -> str:
    """Each of the bot's matches, newest first: the match, its tournament, the rivals and how it ended."""
    if not rows:
        return '<p class="empty">no matches</p>'
    lines = []
    for row in rows:
        state = str(row["state"])
        if state == "finished":
            outcome = _ordinal(int(row["rank"])) if row.get("rank") is not None else "no result"
        else:
            outcome = state
        tournament = (
            _a(
                tournament_href(row["tournament_id"]),
                str(row.get("tournament_name") or f"tournament {str(row['tournament_id'])[:8]}"),
            )
            if row.get("tournament_id")
            else '<span class="muted">challenge</span>'
        )
        lines.append(
            f'<tr class="{escape(state)}"><td>{_a(match_href(row["match_id"]), str(row["game"]))}</td>'
            f"<td>{tournament}</td><td>{_bots(row['rivals'])}</td>"
            f'<td><span class="state {escape(state)}">{escape(outcome)}</span></td></tr>'
        )
    return _table(["match", "tournament", "rivals", "result"], lines, "stack") + _more(more, "older")


def _bots(names: Sequence[str]) -> str:
    return ", ".join(_a(bot_href(name), str(name), "nowrap") for name in names)


def record_html(rows: Sequence[Row]) -> str:
    """Against each rival, per game: wins, losses and draws (by the ranks of the two in each match)."""
    if not rows:
        return '<p class="empty">no finished matches</p>'
    lines = [
        f'<tr><td class="bot">{_a(bot_href(row["rival"]), str(row["rival"]))}</td><td>{escape(str(row["game"]))}</td>'
        f'<td class="num">{int(row["wins"])}</td><td class="num">{int(row["losses"])}</td>'
        f'<td class="num">{int(row["draws"])}</td></tr>'
        for row in rows
    ]
    return _table(["rival", "game", "#wins", "#losses", "#draws"], lines, "record")


# --- the pages ----------------------------------------------------------------------------------------

PAGE_CSS = """
body { font-family: system-ui, sans-serif; margin: 0; color: #222; background: #fbfaf7; }
header { background: #5a4632; padding: .6em 1.2em; display: flex; flex-wrap: wrap; gap: .3em 1.2em; }
header a { color: #fff; text-decoration: none; }
main { padding: 1em 1.2em; max-width: 72em; }
h1 { font-size: 1.45em; margin: 0 0 .5em; overflow-wrap: anywhere; }
h2 { font-size: 1.02em; margin: 0 0 .5em; color: #5a4632; text-transform: uppercase; letter-spacing: .06em; }
h3 { font-size: 1em; margin: .2em 0 .4em; overflow-wrap: anywhere; }
#live { color: #1d7a2e; font-size: .9em; margin: 0 0 .8em; }
section { background: #fff; border: 1px solid #e3ddd0; border-radius: 6px; padding: .8em 1em; margin: 0 0 1.2em; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; width: 100%; font-size: 15px; }
th { text-align: left; font-weight: 600; color: #666; border-bottom: 2px solid #e3ddd0; padding: .3em .5em; }
td { border-bottom: 1px solid #eee; padding: .35em .5em; vertical-align: top; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.strong { font-weight: 700; }
.nowrap { white-space: nowrap; }
.awaited { font-weight: 700; color: #7a5200; }
.muted, .empty { color: #888; }
.empty { margin: 0; }
.paused { color: #8a1c1c; }
a { color: #1f5fa8; font-weight: 600; }
.more { margin: .5em 0 0; }
.state { display: inline-block; padding: .05em .5em; border-radius: 1em; font-size: .85em; background: #eee; }
.state.running, .state.playing { background: #fff0c8; color: #7a5200; }
.state.finished { background: #dcefdc; color: #1d5a26; }
.state.voided { background: #f3dede; color: #8a1c1c; }
.boards { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 30em), 1fr)); gap: 1em; }
td.bot { overflow-wrap: anywhere; min-width: 6em; }
table.board, table.record { width: auto; min-width: min(100%, 30em); }
.spark { display: block; max-width: 100%; height: auto; margin: .2em 0 .4em; }
details summary { cursor: pointer; color: #555; }
.history { margin: 0 0 1em; }
@media (max-width: 600px) {
  main { padding: .7em .6em; }
  section { padding: .6em .6em; }
  table { font-size: 14px; }
  th, td { padding: .3em .3em; }
  table.stack thead { display: none; }
  table.stack tr { display: block; border-bottom: 1px solid #e3ddd0; padding: .35em 0; }
  table.stack td { display: block; position: relative; border: 0; padding: .1em .2em .1em 7.4em;
    text-align: left; white-space: normal; overflow-wrap: anywhere; }
  table.stack td::before { content: attr(data-label); position: absolute; left: .2em; width: 7em;
    white-space: nowrap; color: #777; font-weight: 600; }
  table.stack .nowrap { white-space: normal; }
  table.board th, table.record th, table.board td, table.record td { padding: .3em .2em; }
  table.board th, table.record th { font-size: 12px; }
}
"""

# Puts each updated section in place (the server drew them, escaped) and counts the time left down.
FRONT_SCRIPT = r"""
"use strict";
(() => {
  const state = document.getElementById("live-state");
  const source = new EventSource(EVENTS_URL);
  let drawnAt = Date.now();
  source.onopen = () => { state.textContent = "following"; };
  source.onerror = () => { state.textContent = "reconnecting"; };
  source.onmessage = e => {
    const update = JSON.parse(e.data);
    for (const [id, html] of Object.entries(update.sections)) {
      const element = document.getElementById(id);
      if (element !== null) element.innerHTML = html;
    }
    drawnAt = Date.now();
    document.body.dataset.update = String(update.n);
  };
  const format = s => {
    s = Math.max(0, Math.floor(s));
    const h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60), r = s % 60;
    const two = n => String(n).padStart(2, "0");
    return h ? `${h}h ${two(m)}m` : m ? `${m}m ${two(r)}s` : `${r}s`;
  };
  setInterval(() => {
    const gone = (Date.now() - drawnAt) / 1000;
    for (const cell of document.querySelectorAll(".left[data-left]")) {
      cell.textContent = format(Number(cell.dataset.left) - gone);
    }
  }, 1000);
})();
"""


def page_html(title: str, body: str, script: str = "") -> str:
    """A whole page: the site's header (the front door, the tournaments), the title, the body."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>{PAGE_CSS}</style></head>
<body data-update="0">
<header><a href="/">matchserver</a><a href="/tournaments">tournaments</a></header>
<main>
<h1>{escape(title)}</h1>
{body}
</main>
{script}</body></html>
"""


def front_html(parts: Sequence[tuple[str, str, str]], events_url: str) -> str:
    """The front door: each part (element id, title, drawn html) a section, following `events_url`."""
    sections = "\n".join(
        f'<section id="{escape(key)}-section"><h2>{escape(title)}</h2><div id="{escape(key)}">{html}</div></section>'
        for key, title, html in parts
    )
    script = f"<script>\nconst EVENTS_URL = {script_json(events_url)};\n{FRONT_SCRIPT}\n</script>\n"
    live = '<p id="live">live: <span id="live-state">connecting</span></p>'
    return page_html("Matches, tournaments and bots", live + "\n" + sections, script)


def sections_html(parts: Sequence[tuple[str, str, str]]) -> str:
    """Titled sections (element id, title, drawn html) of a page that is not live."""
    return "\n".join(
        f'<section id="{escape(key)}-section"><h2>{escape(title)}</h2><div id="{escape(key)}">{html}</div></section>'
        for key, title, html in parts
    )
