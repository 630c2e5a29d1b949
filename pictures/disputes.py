"""Disputes on the pages: a seat's list of the match's disputes and its form to file one, what a correction
asks of it again, and the host's review (the ruling's trace with our words for each rule, the inputs, the
resolution decided again) with a what-if beside the actual outcome, and the forms to uphold or correct.

Pure and standard library only; every string is escaped (a dispute's text is a player's words)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any


def _hidden(csrf: str) -> str:
    return f'<input type="hidden" name="csrf" value="{escape(csrf)}">'


def disputes_list_html(disputes: Sequence[Mapping[str, Any]], review_url: str = "") -> str:
    if not disputes:
        return '<p class="note">no disputes</p>'
    rows = []
    for d in reversed(disputes):
        decided = d.get("decision") or {}
        said = f" · {escape(str(decided.get('reason', '')))}" if decided else ""
        link = f' <a href="{escape(review_url)}/{int(d["number"])}">review</a>' if review_url else ""
        rows.append(
            f"<li><strong>{escape(str(d['id']).rsplit('.', 1)[1])}</strong> · {escape(str(d['state']))}{said} · "
            f"v{int(d['at_version'])} by {escape(str(d['by']))}: {escape(str(d['text']))}{link}</li>"
        )
    return '<ol class="disputes">' + "".join(rows) + "</ol>"


def seat_disputes_html(data: Mapping[str, Any]) -> str:
    """The live part: what a correction asks of this seat again, and the match's disputes."""
    asked = "".join(f'<p class="warn">{escape(str(line))}</p>' for line in data.get("asked_again", []))
    return asked + disputes_list_html(data.get("disputes", []))


def dispute_form_html(resolutions: Sequence[Sequence[Any]], url: str, csrf: str) -> str:
    """A seat's form to contest a resolution (the latest ones it may dispute)."""
    if not resolutions:
        return '<p class="note">no resolution to dispute yet</p>'
    options = "".join(
        f'<option value="{int(version)}">version {int(version)}: the end of {escape(str(phase))}</option>'
        for version, phase in resolutions
    )
    return (
        f'<form method="post" action="{escape(url)}" id="dispute-form">{_hidden(csrf)}'
        f'<label for="dispute-at">the ruling</label><select id="dispute-at" name="at_version">{options}</select>'
        '<label for="dispute-text">what was wrong</label>'
        '<textarea id="dispute-text" name="text" rows="2" maxlength="1000"></textarea>'
        '<button class="quiet" id="dispute-send">dispute this ruling</button></form>'
    )


def _lines(lines: Sequence[Any]) -> str:
    return "<br>".join(escape(str(line)) for line in lines) or '<span class="note">nothing</span>'


def _side(title: str, side: Mapping[str, Any]) -> str:
    awaiting = ", ".join(escape(str(s)) for s in side.get("awaiting", [])) or "nobody"
    return (
        f"<td><strong>{escape(title)}</strong><br>{escape(str(side['phase']))} · awaiting {awaiting}"
        f"<pre>{_lines(side.get('lines', []))}</pre></td>"
    )


def tried_html(tried: Mapping[str, Any]) -> str:
    """A what-if next to what happened (nothing of it was written)."""
    differences = "".join(f"<li>{escape(str(d))}</li>" for d in tried.get("differences", []))
    dropped = "".join(
        f"<li>v{int(d['input']['version'])} {escape(str(d['input']['actor']))}: {escape(str(d['why']))}</li>"
        for d in tried.get("dropped", [])
    )
    out = (
        f'<table class="what-if"><tr>{_side("actual", tried["actual"])}{_side("tried", tried["tried"])}</tr></table>'
        f'<p>differences:</p><ul id="differences">{differences or "<li>none</li>"}</ul>'
    )
    if dropped:
        out += f"<p>no longer applies:</p><ul>{dropped}</ul>"
    forward = tried.get("forward")
    if forward:
        ends = "".join(f"<li>{escape(str(d))}</li>" for d in forward.get("differences", [])) or "<li>none</li>"
        out += (
            f"<p>played on to version {int(forward['actual']['version'])}: actual at "
            f"{escape(str(forward['actual']['phase']))}, tried at {escape(str(forward['tried']['phase']))}</p>"
            f"<ul>{ends}</ul>"
        )
    return out + '<p class="note">a what-if writes nothing: the match and its players saw none of it</p>'


def review_html(review: Mapping[str, Any], urls: Mapping[str, str], csrf: str, tried: Mapping[str, Any] | None) -> str:
    """The host's review of one dispute, with the forms to try, uphold and correct."""
    dispute, resolution, again = review["dispute"], review["resolution"], review["redecided"]
    trace = []
    for entry in review["trace"]:
        rules = "".join(
            f"<li><strong>{escape(str(r['id']))}</strong> ({escape(str(r['anchor']))}): {escape(str(r['words']))}</li>"
            for r in entry.get("rules", [])
        )
        trace.append(f"<li>v{int(entry['version'])}<pre>{_lines(entry.get('lines', []))}</pre><ul>{rules}</ul></li>")
    inputs = "".join(
        f"<li>v{int(i['version'])} {escape(str(i['actor']))}: {escape(str(i['text'] or '(the deadline)'))} "
        f'<span class="note">receipt <code>{escape(str(i["receipt"]["chain_head"]))}</code></span></li>'
        for i in review["inputs"]
    )
    changes = "".join(
        f"<tr><td><strong>{escape(str(name))}</strong></td><td>"
        + ("<br>".join(escape(str(line)) for line in lines) or '<span class="note">no change</span>')
        + "</td></tr>"
        for name, lines in (review.get("changes") or {}).items()
    )
    same = "the same" if again["same"] else "differently: " + "; ".join(map(str, again["differences"]))
    open_forms = ""
    if dispute["state"] == "open":
        hidden = _hidden(csrf)
        replace = (
            "<label>replacement inputs, one per line as <code>SEAT: TEXT</code></label>"
            '<textarea name="replace" rows="2"></textarea>'
        )
        open_forms = (
            f'<section><h2>Try a correction</h2><form method="post" action="{escape(urls["try"])}">{hidden}'
            f'{replace}<label>rules version <input type="text" name="rules_version" size="4" '
            'aria-label="rules version"></label>'
            '<label><input type="checkbox" name="forward" value="1"> play the rest on</label>'
            '<button id="dispute-try">try it (nothing is written)</button></form>'
            f"{tried_html(tried) if tried else ''}</section>"
            f'<section><h2>Decide</h2><form method="post" action="{escape(urls["decide"])}" class="act">{hidden}'
            '<input type="hidden" name="decision" value="uphold"><input type="text" name="reason" '
            'placeholder="reason (kept in the log)" aria-label="reason"><button id="dispute-uphold">uphold</button>'
            f'</form><form method="post" action="{escape(urls["decide"])}">{hidden}'
            '<input type="hidden" name="decision" value="correct">'
            '<input type="text" name="reason" placeholder="reason (kept in the log)" aria-label="reason">'
            f'{replace}<label><input type="checkbox" name="reapply" value="1"> re-apply the later inputs that '
            'still apply</label><button id="dispute-correct">correct</button></form></section>'
        )
    return (
        f"<p>dispute {escape(str(dispute['id']))} ({escape(str(dispute['state']))}) by {escape(str(dispute['by']))}: "
        f"{escape(str(dispute['text']))}</p>"
        f"<section><h2>The ruling at version {int(resolution['version'])}</h2>"
        f"<p>{escape(str(resolution['phase']))}; its inputs from version {int(resolution['phase_from'])}</p>"
        f"<ul>{inputs}</ul><ol>{''.join(trace)}</ol>"
        f'<p>each view, just before and just after (what changed):</p><table id="view-changes">{changes}</table>'
        f"<p>decided again under rules {escape(str(again['rules_version']))}: {escape(same)}</p></section>" + open_forms
    )
