"""A host's console for one match: its seats and invitations, the host's actions (each an audited record,
exactly as over gRPC), the audit trail of every resolution and the match's history.

Pure and standard library only (server/web/console.py gives it plain data); every string is escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from pictures.disputes import disputes_list_html
from pictures.seat import SITE_CSS

ACTIONS = (  # (action, its button, whether it takes seconds)
    ("pause", "pause", False),
    ("resume", "resume", False),
    ("extend", "extend the deadline", True),
    ("force", "force the phase to end", False),
    ("cancel", "cancel the match", False),
)


def _hidden(csrf: str) -> str:
    return f'<input type="hidden" name="csrf" value="{escape(csrf)}">'


def seats_html(seats: Sequence[Mapping[str, Any]], invite_url: str, csrf: str) -> str:
    rows = []
    for seat in seats:
        state = "claimed" if seat["claimed"] else "not claimed yet"
        if seat["invitation_open"]:
            state += " · its invitation is still open"
        label = "reissue an invitation" if seat["claimed"] else "new invitation"
        rows.append(
            f"<tr><td><strong>{escape(str(seat['seat']))}</strong></td><td>{escape(state)}</td><td>"
            f'<form method="post" action="{escape(invite_url)}">{_hidden(csrf)}'
            f'<input type="hidden" name="seat" value="{escape(str(seat["seat"]))}">'
            f'<button class="quiet">{label}</button></form></td></tr>'
        )
    return "<table><tr><th>seat</th><th>state</th><th></th></tr>" + "".join(rows) + "</table>"


def actions_html(act_url: str, csrf: str, version: int) -> str:
    forms = []
    for action, label, timed in ACTIONS:
        seconds = '<input type="number" name="seconds" min="1" value="60" aria-label="seconds">' if timed else ""
        forms.append(
            f'<form method="post" action="{escape(act_url)}" class="act">{_hidden(csrf)}'
            f'<input type="hidden" name="action" value="{action}">{seconds}'
            f'<input type="text" name="reason" placeholder="reason (kept in the log)" aria-label="reason">'
            f'<button id="act-{action}">{escape(label)}</button></form>'
        )
    forms.append(
        f'<form method="post" action="{escape(act_url)}" class="act">{_hidden(csrf)}'
        '<input type="hidden" name="action" value="rollback">'
        f'<input type="number" name="to" min="1" max="{int(version)}" value="{max(1, int(version) - 1)}" '
        'aria-label="version to roll back to">'
        '<input type="text" name="reason" placeholder="reason (kept in the log)" aria-label="reason">'
        '<button id="act-rollback">roll back to this version</button></form>'
    )
    return "".join(forms)


def audit_html(entries: Sequence[Mapping[str, Any]]) -> str:
    if not entries:
        return '<p class="note">nothing resolved yet</p>'
    items = []
    for entry in entries:
        lines = "".join(f"<li>{escape(str(line))}</li>" for line in entry.get("lines", []))
        actor = escape(str(entry.get("actor") or "server"))
        said = escape(str(entry.get("input") or ""))
        struck = " (retracted)" if entry.get("retracted") else ""
        items.append(
            f"<li>v{int(entry['version'])} · {actor}{': ' + said if said else ''}{struck}<ul>{lines}</ul></li>"
        )
    return "<ol>" + "".join(items) + "</ol>"


RETRACTED = ' class="retracted"'


def history_html(rows: Sequence[Mapping[str, Any]]) -> str:
    items = "".join(
        f"<tr{RETRACTED if row['retracted'] else ''}><td>{int(row['version'])}</td>"
        f"<td>{escape(str(row['kind']))}</td><td>{escape(str(row['words']))}</td></tr>"
        for row in rows
    )
    return "<table><tr><th>v</th><th>record</th><th>what</th></tr>" + items + "</table>"


def console_html(data: Mapping[str, Any], urls: Mapping[str, str], csrf: str, said: str = "") -> str:
    title = f"Host console: {data['game']} match {data['match_id']}"
    state = "paused" if data["paused"] else ("over" if data["finished"] else "running")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title><style>{SITE_CSS}
main {{ max-width: 70em; }}
form.act {{ display: flex; flex-wrap: wrap; gap: .4em; align-items: center; margin: 0 0 .5em; }}
form.act input[type=text] {{ flex: 1 1 12em; width: auto; }} form.act input[type=number] {{ width: 7em; }}
form.act button, td button {{ margin: 0; }} tr.retracted td {{ color: #777; }}
@media (max-width: 760px) {{ form.act {{ padding-bottom: .6em; border-bottom: 1px solid #eee; }}
  form.act input[type=text] {{ flex-basis: 100%; }} }}</style></head>
<body data-version="{int(data["version"])}"><main>
<h1>Host console</h1>
<p class="about">{escape(str(data["game"]))} match
<a href="{escape(urls["spectate"])}">{escape(str(data["match_id"]))}</a>
· version {int(data["version"])} · <strong id="match-state">{state}</strong> · {escape(str(data["phase"]))}</p>
<p id="answer" aria-live="polite">{said}</p>
<section><h2>Seats</h2>{seats_html(data["seats"], urls["invite"], csrf)}</section>
<section><h2>Actions</h2>{actions_html(urls["act"], csrf, int(data["version"]))}</section>
<section><h2>Disputes</h2>
<div id="disputes">{disputes_list_html(data.get("disputes", []), urls["disputes"])}</div></section>
<section><h2>Audit</h2><div id="audit">{audit_html(data["audit"])}</div></section>
<section><h2>History</h2><div id="history">{history_html(data["history"])}</div></section>
</main></body></html>
"""
