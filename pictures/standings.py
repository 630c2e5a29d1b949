"""A tournament's live page: its standings, its matches (each started one linking to its own live page)
and its audit, drawn from plain data (server/arena/pages.py builds it from the tournament's log).

Pure and standard library only, so it is tested without a server. Every string is escaped: bot names,
a tournament's name and a void's reason are user input. The page shows only what the tournament's log
says in public (no match seed, nothing sealed).

The tables are drawn here only: an update from the event stream carries the same sections, drawn by
`sections`, and the page's script puts them in place."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from html import escape
from typing import Any

from pictures.page import script_json


def _ordinal(rank: int) -> str:
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return f"{rank}{suffix}"


def _points(points: float) -> str:
    return f"{points:g}"


def title_of(data: Mapping[str, Any]) -> str:
    return str(data.get("name") or f"Tournament {data['id']}")


def progress_text(data: Mapping[str, Any]) -> str:
    """'7 of 10 matches finished' (voided matches do not count), and whether it is over."""
    words = f"{data['finished']} of {data['counted']} matches finished"
    return words + (" · the tournament is over" if data["state"] == "finished" else "")


def progress_html(data: Mapping[str, Any]) -> str:
    counted = max(int(data["counted"]), 1)
    share = min(100.0, 100.0 * int(data["finished"]) / counted)
    return (
        f'<span class="count">{escape(progress_text(data))}</span>'
        f'<span class="bar" aria-hidden="true"><span style="width:{share:.1f}%"></span></span>'
    )


def standings_html(rows: Sequence[Mapping[str, Any]]) -> str:
    """Rank, bot, points, played, wins, byes; a rank held by more than one bot reads '2=' on each."""
    if not rows:
        return '<p class="empty">no bots</p>'
    ranks = [int(row["rank"]) for row in rows]
    lines = []
    for row in rows:
        rank = int(row["rank"])
        shared = "=" if ranks.count(rank) > 1 else ""
        leader = ' class="leader"' if rank == 1 and float(row["points"]) > 0 else ""  # not before any result
        lines.append(
            f'<tr{leader}><td class="num">{rank}{shared}</td><td class="bot">{escape(str(row["bot"]))}</td>'
            f'<td class="num points">{_points(float(row["points"]))}</td><td class="num">{int(row["played"])}</td>'
            f'<td class="num">{int(row["wins"])}</td><td class="num">{int(row["byes"])}</td></tr>'
        )
    body = "".join(lines)
    return (
        '<table><thead><tr><th class="num">rank</th><th>bot</th><th class="num">points</th>'
        '<th class="num">played</th><th class="num">wins</th><th class="num">byes</th></tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


def ranks_html(ranks: Mapping[str, int] | None) -> str:
    """'ann 1st, bob 2nd' (best first), each bot's place kept on one line; 'no result' for a match that
    ended without one."""
    if ranks is None:
        return ""
    if not ranks:
        return "no result"
    ordered = sorted(ranks.items(), key=lambda item: (int(item[1]), item[0]))
    return ", ".join(f'<span class="nowrap">{escape(bot)} {_ordinal(int(rank))}</span>' for bot, rank in ordered)


def seats_html(seats: Sequence[str]) -> str:
    """The seats in order, 'ann v bob', a name never split over two lines."""
    return " v ".join(f'<span class="nowrap">{escape(str(bot))}</span>' for bot in seats)


def match_link(match_id: str, label: str) -> str:
    """A link to the match's own live page (its replay once it is over)."""
    return f'<a href="/matches/{escape(match_id)}" title="watch match {escape(match_id)}">{escape(label)}</a>'


def matches_html(rows: Sequence[Mapping[str, Any]]) -> str:
    """Index, round, seats in order, state, ranks (once finished), notes; every started match links."""
    if not rows:
        return '<p class="empty">no matches drawn</p>'
    lines = []
    for row in rows:
        state = str(row["state"])
        match_id = str(row.get("match_id") or "")
        index = f"#{int(row['index'])}"
        shown_ranks = ranks_html(row.get("ranks")) if state in ("finished", "voided") else ""
        notes = "".join(f"<li>{escape(str(note))}</li>" for note in row.get("notes") or [])
        lines.append(
            f'<tr class="{escape(state)}">'
            f'<td class="num">{match_link(match_id, index) if match_id else escape(index)}</td>'
            f'<td class="num">{int(row["round"])}</td>'
            f"<td>{seats_html(row['seats'])}</td>"
            f'<td><span class="state {escape(state)}">{escape(state)}</span></td>'
            f'<td class="ranks">{shown_ranks}</td>'
            f"<td>{f'<ul>{notes}</ul>' if notes else ''}</td></tr>"
        )
    return (
        '<table><thead><tr><th class="num">match</th><th class="num">round</th><th>seats</th><th>state</th>'
        f"<th>ranks</th><th>notes</th></tr></thead><tbody>{''.join(lines)}</tbody></table>"
    )


MATCH_ID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")


def audit_html(lines: Sequence[str], match_ids: Collection[str] = ()) -> str:
    """The audit's lines, each id of one of `match_ids` (the tournament's own matches) linking to its page."""
    if not lines:
        return '<p class="empty">nothing yet</p>'
    known = set(match_ids)

    def linked(line: str) -> str:
        text = escape(str(line))  # an id is the same escaped: links go in after escaping, around known ids only
        return MATCH_ID.sub(lambda m: match_link(m.group(0), m.group(0)) if m.group(0) in known else m.group(0), text)

    return "<ol>" + "".join(f"<li>{linked(line)}</li>" for line in lines) + "</ol>"


def sections(data: Mapping[str, Any]) -> dict[str, str]:
    """The parts of the page that change, drawn, by element id: what an update from the event stream carries."""
    return {
        "progress": progress_html(data),
        "standings": standings_html(data["standings"]),
        "matches": matches_html(data["matches"]),
        "audit": audit_html(data["audit"], [str(row["match_id"]) for row in data["matches"] if row.get("match_id")]),
    }


PAGE_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.2em 1.6em; color: #222; background: #fbfaf7; }
h1 { font-size: 1.5em; margin: 0 0 .15em; }
h2 { font-size: 1.05em; margin: 0 0 .5em; color: #5a4632; text-transform: uppercase; letter-spacing: .06em; }
#about { color: #555; margin: 0 0 .6em; }
#live { color: #1d7a2e; font-size: .9em; margin: 0 0 .8em; }
#progress { display: flex; flex-wrap: wrap; align-items: center; gap: .4em .8em; margin: 0 0 1.2em;
  font-weight: 600; }
#progress .count { white-space: nowrap; }
#progress .bar { flex: 0 1 18em; height: .6em; background: #e6e1d6; border-radius: .3em; overflow: hidden; }
#progress .bar span { display: block; height: 100%; background: #8a6a4a; }
section { background: #fff; border: 1px solid #e3ddd0; border-radius: 6px; padding: .8em 1em; margin: 0 0 1.4em;
  overflow-x: auto; }
#standings-section { width: fit-content; min-width: min(32em, 100%); max-width: 100%; box-sizing: border-box; }
#standings table { width: auto; min-width: 100%; }
#standings .num { width: auto; padding-left: 1.2em; }  /* a width in % would stretch the table */
#standings td.bot { padding-right: 1.5em; }
table { border-collapse: collapse; width: 100%; font-size: 15px; }
th { text-align: left; font-weight: 600; color: #666; border-bottom: 2px solid #e3ddd0; padding: .3em .5em; }
td { border-bottom: 1px solid #eee; padding: .35em .5em; vertical-align: top; }
.num { text-align: right; font-variant-numeric: tabular-nums; width: 1%; white-space: nowrap; }
td.bot { font-weight: 600; white-space: nowrap; }
.nowrap { white-space: nowrap; }
td.points { font-weight: 700; }
tr.leader td { background: #fbf3e4; }
td ul { margin: 0; padding-left: 1.1em; color: #555; font-size: .92em; }
a { color: #1f5fa8; font-weight: 600; }
.state { display: inline-block; padding: .05em .5em; border-radius: 1em; font-size: .85em; background: #eee; }
.state.playing { background: #fff0c8; color: #7a5200; }
.state.finished { background: #dcefdc; color: #1d5a26; }
.state.voided { background: #f3dede; color: #8a1c1c; }
tr.voided td.ranks { text-decoration: line-through; color: #888; }
tr.scheduled td { color: #777; }
#audit ol { margin: 0; padding-left: 2em; font-size: 14px; line-height: 1.5; color: #333; }
.empty { color: #888; margin: 0; }
"""

# Puts each updated section in place: the server drew them (escaped), so the page and its updates agree.
PAGE_SCRIPT = r"""
"use strict";
(() => {
  const state = document.getElementById("live-state");
  const source = new EventSource(EVENTS_URL);
  source.onopen = () => { state.textContent = "following"; };
  source.onerror = () => { state.textContent = "reconnecting"; };
  source.onmessage = e => {
    const update = JSON.parse(e.data);
    if (update.state === "finished") { source.close(); state.textContent = "finished"; }
    for (const [id, html] of Object.entries(update.sections)) {
      const element = document.getElementById(id);
      if (element !== null) element.innerHTML = html;
    }
    document.body.dataset.version = String(update.v);
  };
})();
"""


def tournament_html(data: Mapping[str, Any], events_url: str, version: int = 0) -> str:
    """The whole page: the tournament as it stands, following `events_url` for what changes."""
    title = title_of(data)
    drawn = sections(data)
    over = data["state"] == "finished"  # nothing more will come: the page says so and follows nothing
    live = "the tournament is over" if over else 'live: <span id="live-state">connecting</span>'
    script = "" if over else f"<script>\nconst EVENTS_URL = {script_json(events_url)};\n{PAGE_SCRIPT}\n</script>\n"
    about = " · ".join(
        escape(str(part))
        for part in (data["game"], data["format"], f"organised by {data['organiser']}" if data["organiser"] else "")
        if part
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{escape(title)}</title>
<style>{PAGE_CSS}</style></head>
<body data-version="{int(version)}">
<h1>{escape(title)}</h1>
<p id="about">{about}</p>
<p id="live">{live}</p>
<div id="progress">{drawn["progress"]}</div>
<section id="standings-section"><h2>Standings</h2><div id="standings">{drawn["standings"]}</div></section>
<section><h2>Matches</h2><div id="matches">{drawn["matches"]}</div></section>
<section id="audit-section"><h2>Audit</h2><div id="audit">{drawn["audit"]}</div></section>
{script}</body></html>
"""
