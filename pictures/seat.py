"""A seat's page: the player's own view, what the phase asks, the clock, who is awaited, the player's own
submissions with their receipts, and a command box that says what it understood as the player types.

Pure and standard library only (server/web/seat.py gives it plain data). Every string is escaped: seat
names, commands and the game's words are user input or come from it. The sections are drawn here only:
an update from the event stream carries the same sections and the page's script puts them in place, so
the page reads the same with and without JavaScript."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from pictures.disputes import dispute_form_html, seat_disputes_html
from pictures.page import script_json

SITE_CSS = """
body { font-family: system-ui, sans-serif; margin: 0; color: #222; background: #fbfaf7; }
main { max-width: 1500px; margin: 0 auto; padding: .8em 1em 2em; }
main.narrow { max-width: 46em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: .85em; margin: .3em 0; }
table.what-if { table-layout: fixed; } table.what-if td { width: 50%; }
@media (max-width: 760px) { table.what-if td { display: block; width: auto; } }
h1 { font-size: 1.35em; margin: .2em 0 .1em; }
h2 { font-size: 1em; margin: 0 0 .5em; color: #5a4632; text-transform: uppercase; letter-spacing: .06em; }
section { background: #fff; border: 1px solid #e3ddd0; border-radius: 6px; padding: .7em .9em; margin: 0 0 1em;
  overflow-x: auto; }
.about { color: #555; margin: 0 0 .8em; overflow-wrap: anywhere; }
.grid { display: grid; grid-template-columns: minmax(0, 1fr) minmax(18em, 26em); gap: 1em; }
#picture { overflow-x: auto; }
#picture svg { display: block; width: 100%; height: auto; }
.pan { display: none; }
@media (max-width: 760px) {
  .grid { grid-template-columns: minmax(0, 1fr); }
  #picture svg { width: max(100%, 720px); }  /* readable: the section scrolls sideways */
  .pan { display: block; }
}
.hash { font-size: .85em; color: #555; }
ul.results { list-style: none; padding-left: 0; }
.clock { font-size: 1.6em; font-weight: 700; font-variant-numeric: tabular-nums; }
.note { color: #555; font-size: .92em; }
.warn { background: #fff0c8; color: #7a5200; padding: .4em .6em; border-radius: 4px; }
.bad { color: #8a1c1c; }
.good { color: #1d5a26; }
textarea, input[type=text], input[type=number], input[type=password] { width: 100%; box-sizing: border-box;
  font: inherit; padding: .45em; border: 1px solid #c9c0ad; border-radius: 4px; }
button { font: inherit; padding: .45em 1.1em; border-radius: 4px; border: 1px solid #8a6a4a; background: #8a6a4a;
  color: #fff; cursor: pointer; margin: .4em .4em 0 0; }
button.quiet { background: #fff; color: #5a4632; }
button:disabled { opacity: .5; cursor: default; }
ul, ol { margin: .2em 0; padding-left: 1.3em; }
code { font-size: .92em; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; border-bottom: 1px solid #eee; padding: .3em .4em; vertical-align: top; }
a { color: #1f5fa8; }
"""


def clock_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def names(players: Any) -> str:
    return ", ".join(escape(str(p)) for p in players) or "nobody"


def status_html(data: Mapping[str, Any]) -> str:
    """The phase, the clock, who is awaited (or who has not joined: the clock waits for them)."""
    parts = [f"<p><strong>{escape(str(data['phase']))}</strong></p>"]
    if data["cancelled"]:
        parts.append('<p class="warn">the host cancelled this match</p>')
    elif data["finished"]:
        parts.append('<p class="good">the match is over</p>')
    elif data["waiting"]:
        said = "" if "waiting for players" in str(data["phase"]) else "waiting for players: "  # said once
        parts.append(
            f'<p class="warn">{said}still to join: {names(data["unseated"])} '
            "(no clock runs until every seat is filled)</p>"
        )
    elif data["paused"]:
        parts.append('<p class="warn">paused by the host: the clock is stopped</p>')
    if data.get("deadline_in") is not None:
        parts.append(
            f'<p>time left: <span class="clock" id="countdown" data-seconds="{float(data["deadline_in"]):.1f}">'
            f"{clock_text(data['deadline_in'])}</span></p>"
        )
    if data.get("reserve") is not None:
        parts.append(f'<p class="note">reserve clock: {clock_text(data["reserve"])}</p>')
    if not data["finished"] and not data["waiting"]:
        parts.append(f'<p class="note">still awaited: {names(data["awaiting"])}</p>')
    if data.get("results"):
        parts.append(results_html(data["results"], str(data["seat"])))
    return "".join(parts)


def results_html(rows: Any, seat: str) -> str:
    """The places of a finished match, best first, the seat's own marked."""
    items = []
    for row in rows:
        you = " (you)" if row["player"] == seat else ""
        score = f", score {escape(str(row['score']))}" if row.get("score") is not None else ""
        items.append(f"<li>{int(row['rank'])}. {escape(str(row['player']))}{you}{score}</li>")
    return f'<p class="note">result:</p><ul class="results">{"".join(items)}</ul>'


def turn_html(data: Mapping[str, Any]) -> str:
    """What the phase asks of this seat now: the sentences it accepts, and one example."""
    if not data["can_act"]:
        if data["seat"] in data["awaiting"]:
            return "<p>you have submitted in this phase; you may still change it where the game allows</p>"
        return "<p>nothing is asked of you right now</p>"
    forms = "".join(f"<li><code>{escape(form)}</code></li>" for form in data["forms"])
    example = data.get("example")
    said = f'<p class="note">for example: <code>{escape(str(example))}</code></p>' if example else ""
    return f"<p>your turn: send one of</p><ul>{forms}</ul>{said}"


def _grouped(digest: str) -> str:
    """A receipt's hash, escaped, that wraps between groups of 16 characters rather than anywhere."""
    return "<wbr>".join(escape(digest[i : i + 16]) for i in range(0, len(digest), 16))


def submissions_html(rows: Any) -> str:
    if not rows:
        return '<p class="note">none yet</p>'
    items = []
    for row in rows:
        struck = " (taken back by a rollback)" if row["retracted"] else ""
        items.append(
            f"<li>v{int(row['version'])}: <code>{escape(str(row['text']))}</code>{struck}"
            f'<br><span class="note">receipt: version {int(row["receipt_version"])}, '
            f'<code class="hash">{_grouped(str(row["receipt_hash"]))}</code></span></li>'
        )
    return "<ol>" + "".join(reversed(items)) + "</ol>"


def seat_sections(data: Mapping[str, Any]) -> dict[str, str]:
    return {
        "status": status_html(data),
        "turn": turn_html(data),
        "submissions": submissions_html(data["submissions"]),
        "disputes": seat_disputes_html(data),
        "picture": str(data["svg"]),  # drawn by pictures/ from the view: its text is escaped there
    }


SEAT_SCRIPT = r"""
"use strict";
(() => {
  const $ = id => document.getElementById(id);
  const form = $("command"), text = $("text"), send = $("send"), said = $("understood"), answer = $("answer");
  let canAct = CAN_ACT, requestId = form ? $("request-id").value : "", tick = null, checking = null;
  const clock = s => { s = Math.max(0, Math.floor(s)); const h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60),
    x = s % 60; return (h ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" + String(x).padStart(2, "0"); };
  const countdown = () => {
    const shown = $("countdown");
    if (tick) clearInterval(tick);
    if (!shown) return;
    const until = Date.now() + 1000 * Number(shown.dataset.seconds);
    tick = setInterval(() => { shown.textContent = clock((until - Date.now()) / 1000); }, 1000);
  };
  const post = async (url, body) => {
    const response = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json",
      "Accept": "application/json", "X-CSRF-Token": CSRF }, body: JSON.stringify(body), credentials: "same-origin" });
    return response.json();
  };
  const enable = () => {
    if (send) send.disabled = !canAct;
    const e = $("end-early"); if (e) e.hidden = !ENDS[0];
  };
  if (form) text.addEventListener("input", () => {
    clearTimeout(checking);
    checking = setTimeout(async () => {
      if (!text.value.trim()) { said.textContent = ""; return; }
      const got = await post(CHECK_URL, { text: text.value });
      said.textContent = (got.ok ? "understood: " : "not understood: ") + got.words;
      said.className = got.ok ? "good" : "bad";
    }, 250);
  });
  const submit = async (words) => {
    send.disabled = true;
    try {
      const got = await post(SUBMIT_URL, { text: words, request_id: requestId });
      answer.textContent = got.message;
      answer.className = got.ok ? "good" : "bad";
      if (got.ok) { requestId = crypto.randomUUID(); text.value = ""; said.textContent = ""; }
    } catch (e) { answer.textContent = "not sent: " + e; answer.className = "bad"; }
    enable();
  };
  if (form) form.addEventListener("submit", e => { e.preventDefault(); if (!send.disabled) submit(text.value); });
  const early = $("end-early");
  if (early) early.addEventListener("submit", e => { e.preventDefault(); submit("end early"); });
  const source = new EventSource(EVENTS_URL);
  source.onopen = () => { $("live-state").textContent = "following"; };
  source.onerror = () => { $("live-state").textContent = "reconnecting"; };
  source.onmessage = e => {
    const update = JSON.parse(e.data);
    for (const [id, html] of Object.entries(update.sections)) { const el = $(id); if (el) el.innerHTML = html; }
    canAct = update.can_act; ENDS[0] = update.ends_early;
    document.body.dataset.version = String(update.version);
    document.body.dataset.canAct = String(canAct);
    enable(); countdown();
  };
  enable(); countdown();
})();
"""


def seat_html(
    data: Mapping[str, Any], urls: Mapping[str, str], csrf: str, request_id: str, said: str = "", typed: str = ""
) -> str:
    """The whole seat page. `said`: the answer to a form posted without JavaScript (shown once), and
    `typed` the text it refused, kept in the box to mend."""
    drawn = seat_sections(data)
    title = f"{data['seat']} in {data['game']} match {data['match_id']}"
    hidden = (
        f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
        f'<input type="hidden" name="request_id" id="request-id" value="{escape(request_id)}">'
    )
    early_hidden = hidden.replace(' id="request-id"', "")
    shown = "" if data["ends_early"] else " hidden"
    early = (
        f'<form id="end-early" method="post" action="{escape(urls["submit"])}"{shown}>'
        f'{early_hidden}<input type="hidden" name="text" value="end early">'
        '<button class="quiet">end early</button></form>'
    )
    over = data["finished"] or data["cancelled"]  # no more moves: no command box (the answer of a last post stays)
    move = (
        f'<section><h2>Your move</h2><p class="note">the match is over</p><p id="answer">{escape(said)}</p></section>'
        if over
        else f"""<section><h2>Your move</h2><div id="turn">{drawn["turn"]}</div>
<form id="command" method="post" action="{escape(urls["submit"])}">{hidden}
<label for="text">command</label>
<textarea id="text" name="text" rows="3" autocomplete="off" spellcheck="false">{escape(typed)}</textarea>
<p id="understood" class="note" aria-live="polite"></p>
<button id="send"{"" if data["can_act"] else " disabled"}>submit</button></form>
{early}
<p id="answer" aria-live="polite">{escape(said)}</p></section>"""
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title><style>{SITE_CSS}</style></head>
<body data-version="{int(data["version"])}" data-can-act="{str(bool(data["can_act"])).lower()}">
<main>
<h1>{escape(str(data["seat"]))} · {escape(str(data["game"]))}</h1>
<p class="about">match <a href="{escape(urls["spectate"])}">{escape(str(data["match_id"]))}</a> ·
players {names(data["players"])} · live: <span id="live-state">connecting</span></p>
<div class="grid">
<div><section><h2>Your view</h2><p class="note pan">the picture scrolls sideways</p>
<div id="picture">{drawn["picture"]}</div></section></div>
<div>
<section><h2>Now</h2><div id="status">{drawn["status"]}</div></section>
{move}
<section><h2>Your submissions</h2><div id="submissions">{drawn["submissions"]}</div></section>
<section><h2>Disputes</h2><div id="disputes">{drawn["disputes"]}</div>
{dispute_form_html(data.get("resolutions", []), urls["dispute"], csrf)}</section>
</div></div>
</main>
<script>
const EVENTS_URL = {script_json(urls["events"])}, CHECK_URL = {script_json(urls["check"])},
  SUBMIT_URL = {script_json(urls["submit"])}, CSRF = {script_json(csrf)},
  CAN_ACT = {script_json(bool(data["can_act"]))}, ENDS = [{script_json(bool(data["ends_early"]))}];
{SEAT_SCRIPT}
</script>
</body></html>
"""


def plain_page(title: str, body: str, wide: bool = False) -> str:
    """A small page of the site (a sign-in form, an invitation; `wide`: a dispute's review): `body` is HTML
    the caller escaped."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title><style>{SITE_CSS}</style></head>
<body><main{"" if wide else ' class="narrow"'}><h1>{escape(title)}</h1>{body}</main></body></html>
"""
