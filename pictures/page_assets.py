"""The replay page's style, controls and script (pictures/page.py puts them in the page).

Controls are inline SVG, so they look the same with any font; every key the page handles is taken from
the browser (preventDefault), so a focused slider or button never moves a second step."""

from __future__ import annotations

_ICONS = {
    "first": '<path d="M4 3h2v14H4z M17 3 7 10l10 7z"/>',
    "prev": '<path d="M15 3 5 10l10 7z"/>',
    "play": '<path class="when-paused" d="M6 3l11 7-11 7z"/>'
    '<path class="when-playing" d="M5 3h4v14H5z M11 3h4v14h-4z"/>',
    "next": '<path d="M5 3l10 7-10 7z"/>',
    "last": '<path d="M14 3h2v14h-2z M3 3l10 7-10 7z"/>',
}
_TITLES = {
    "first": "first version (Home)",
    "prev": "previous version (left arrow)",
    "play": "play / pause (space)",
    "next": "next version (right arrow)",
    "last": "last version (End)",
}


def controls_html() -> str:
    buttons = "".join(
        f'<button id="{name}" type="button" title="{_TITLES[name]}" aria-label="{_TITLES[name]}">'
        f'<svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true">{path}</svg></button>'
        for name, path in _ICONS.items()
    )
    return f"""<div id="controls">{buttons}
<input id="slider" type="range" min="0" max="0" value="0" aria-label="version">
<label>speed <select id="speed"><option value="0.5">0.5×</option><option value="1" selected>1×</option>
<option value="2">2×</option><option value="4">4×</option><option value="8">8×</option></select></label>
<label>jump to <select id="jump"></select></label>
<span id="where"></span>
</div>
<svg id="timeline" height="34" aria-label="timeline: retracted versions hang below as a branch"></svg>"""


PAGE_CSS = """
body { font-family: sans-serif; margin: 1em; color: #222; }
h1 { font-size: 1.3em; margin: 0 0 .4em; }
#controls { display: flex; flex-wrap: wrap; gap: .4em; align-items: center; margin-bottom: .3em; }
#controls button { width: 34px; height: 30px; padding: 0; display: inline-flex; align-items: center;
  justify-content: center; cursor: pointer; }
#controls button svg { fill: #333; }
#play .when-playing, #play.playing .when-paused { display: none; }
#play.playing .when-playing { display: inline; }
#slider { flex: 1; min-width: 12em; }
#timeline { width: 100%; display: block; cursor: pointer; }
#caption { white-space: pre-wrap; min-height: 3.6em; margin: .3em 0 .6em; padding: .4em .6em;
  background: #f4f2ec; border-left: 4px solid #8a6a4a; font-size: 15px; line-height: 1.4;
  max-height: 11.2em; overflow-y: auto; }
#caption.retracted { border-left-color: #c0182b; color: #6b6b6b; background: #f7eded; }
#picture svg { max-width: 100%; height: auto; }
#live { color: #1d7a2e; margin: 0 0 .4em; }
"""

# The picture of a step: its tags put back together from the packed pictures (pictures/pack.py).
PAGE_SCRIPT = r"""
"use strict";
const fragments = [], pictures = [], steps = [];
let previousTags = [];
function addData(d) {
  if (d.f !== undefined && d.f !== fragments.length) return false;  // out of order: ask again
  fragments.push(...d.fragments);
  for (const packed of d.pictures) {
    const [head, tail, ...middle] = packed;
    const tags = [];
    for (const n of middle) {
      if (n >= 0) { tags.push(n); continue; }
      const start = tags[tags.length - 1];
      for (let k = 1; k <= -n; k++) tags.push(start + k);
    }
    const kept = tail ? previousTags.slice(previousTags.length - tail) : [];
    const current = previousTags.slice(0, head).concat(tags, kept);
    pictures.push(current);
    previousTags = current;
  }
  steps.push(...d.steps);
  if (d.retracted) for (const s of steps) s.r = d.retracted.includes(s.v) ? 1 : 0;
  return true;
}
const slider = document.getElementById("slider");
const picture = document.getElementById("picture");
const caption = document.getElementById("caption");
const where = document.getElementById("where");
const jump = document.getElementById("jump");
const timeline = document.getElementById("timeline");
const playButton = document.getElementById("play");
const speed = document.getElementById("speed");
let current = -1, shownPicture = -1, timer = null;
function show(i) {
  if (!steps.length) return;
  i = Math.max(0, Math.min(steps.length - 1, i));
  current = i;
  slider.value = i;
  const step = steps[i];
  if (step.p !== shownPicture) {
    picture.innerHTML = pictures[step.p].map(n => fragments[n]).join("");
    shownPicture = step.p;
  }
  where.textContent = "version " + step.v + " (" + (i + 1) + "/" + steps.length + ")";
  caption.textContent = step.c;
  caption.classList.toggle("retracted", !!step.r);
  document.body.dataset.step = String(i);
  document.body.dataset.version = String(step.v);
  let mark = -1;
  for (let k = 0; k < jump.options.length; k++) if (Number(jump.options[k].value) <= i) mark = k;
  jump.selectedIndex = mark;
  drawCursor();
}
function rebuild() {
  slider.max = Math.max(steps.length - 1, 0);
  jump.textContent = "";
  let last = null;
  steps.forEach((s, i) => {
    if (s.m && s.m !== last) { jump.add(new Option(s.m + " (v" + s.v + ")", String(i))); last = s.m; }
  });
  drawTimeline();
}
const NS = "http://www.w3.org/2000/svg";
function drawTimeline() {
  timeline.textContent = "";
  const width = timeline.clientWidth || 800, n = Math.max(steps.length - 1, 1);
  const x = i => 6 + (width - 12) * i / n;
  const line = (x1, y1, x2, y2, colour, w, kind) => {
    const l = document.createElementNS(NS, "line");
    for (const [k, v] of Object.entries({x1, y1, x2, y2, stroke: colour, "stroke-width": w})) l.setAttribute(k, v);
    l.classList.add(kind);
    timeline.appendChild(l);
    return l;
  };
  line(x(0), 10, x(n), 10, "#999", 2, "spine");
  steps.forEach((s, i) => {
    if (s.r) {  // a retracted version: on the branch below, joined to the main line where it left it
      line(x(i), 26, x(i), 22, "#c0182b", 2, "branch");
      if (!i || !steps[i - 1].r) line(x(Math.max(i - 1, 0)), 10, x(i), 24, "#c0182b", 1.5, "branch-link");
      if (i + 1 < steps.length && steps[i + 1].r) line(x(i), 24, x(i + 1), 24, "#c0182b", 1.5, "branch-link");
    } else {
      line(x(i), 6, x(i), 14, "#555", 1, "tick");
    }
  });
  const cursor = line(0, 2, 0, 32, "#1f5f9a", 3, "cursor");
  cursor.id = "cursor";
  drawCursor();
}
function drawCursor() {
  const c = document.getElementById("cursor");
  if (!c || current < 0) return;
  const width = timeline.clientWidth || 800, n = Math.max(steps.length - 1, 1);
  const at = 6 + (width - 12) * current / n;
  c.setAttribute("x1", at); c.setAttribute("x2", at);
}
timeline.addEventListener("click", e => {
  const box = timeline.getBoundingClientRect();
  show(Math.round((e.clientX - box.left - 6) / Math.max(box.width - 12, 1) * Math.max(steps.length - 1, 1)));
});
function setPlaying(on) {
  if (timer !== null) { clearTimeout(timer); timer = null; }
  playButton.classList.toggle("playing", on);
  document.body.dataset.playing = on ? "1" : "0";
  if (on) {
    if (current >= steps.length - 1 && !LIVE_URL) show(0);
    tick();
  }
}
function tick() {
  timer = setTimeout(() => {
    if (current < steps.length - 1) { show(current + 1); tick(); }
    else if (LIVE_URL) tick();  // live: wait for the next version
    else setPlaying(false);
  }, 1000 / Number(speed.value));
}
slider.addEventListener("input", () => show(Number(slider.value)));
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(current - 1);
document.getElementById("next").onclick = () => show(current + 1);
document.getElementById("last").onclick = () => show(steps.length - 1);
playButton.onclick = () => setPlaying(timer === null);
jump.addEventListener("change", () => show(Number(jump.value)));
document.addEventListener("keydown", e => {
  if (e.target instanceof HTMLSelectElement || e.altKey || e.ctrlKey || e.metaKey) return;
  const moves = {ArrowLeft: -1, ArrowRight: 1, ArrowUp: 0, ArrowDown: 0, PageUp: 0, PageDown: 0};
  if (e.key in moves) { e.preventDefault(); if (moves[e.key]) show(current + moves[e.key]); }
  else if (e.key === "Home") { e.preventDefault(); show(0); }
  else if (e.key === "End") { e.preventDefault(); show(steps.length - 1); }
  else if (e.key === " ") { e.preventDefault(); setPlaying(timer === null); }
});
window.addEventListener("resize", drawTimeline);
addData(DATA);
rebuild();
show(steps.length - 1);
if (LIVE_URL) {
  const state = document.getElementById("live-state");
  const source = new EventSource(LIVE_URL + "?from=" + fragments.length + "," + pictures.length + "," + steps.length);
  source.onopen = () => { state.textContent = "following"; };
  source.onerror = () => { state.textContent = "reconnecting"; };
  source.onmessage = e => {
    const followLast = current === steps.length - 1;
    if (!addData(JSON.parse(e.data))) return;
    rebuild();
    show(followLast && timer === null ? steps.length - 1 : current);
  };
}
"""
