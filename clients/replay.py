"""A self-contained HTML replay viewer: every version's picture (as the chosen viewer saw it) with the
event that led to it, a slider and step buttons. No external files, scripts or fonts."""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape


@dataclass(frozen=True)
class Frame:
    version: int
    caption: str  # what happened at this version, in a line
    svg: str


def replay_html(title: str, frames: list[Frame]) -> str:
    """One HTML page; identical pictures are stored once (most events change nothing visible)."""
    pictures: list[str] = []
    index: dict[str, int] = {}
    steps = []
    for frame in frames:
        if frame.svg not in index:
            index[frame.svg] = len(pictures)
            pictures.append(frame.svg)
        steps.append({"v": frame.version, "caption": frame.caption, "picture": index[frame.svg]})
    blocks = "\n".join(
        f'<div class="picture" id="picture-{number}" hidden>{svg}</div>' for number, svg in enumerate(pictures)
    )
    data = json.dumps(steps).replace("</", "<\\/")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<style>
body {{ font-family: sans-serif; margin: 1em; }}
#controls {{ display: flex; gap: .5em; align-items: center; margin-bottom: .5em; }}
#slider {{ flex: 1; }}
#caption {{ font-family: monospace; white-space: pre-wrap; min-height: 2.5em; }}
.picture svg {{ max-width: 100%; height: auto; }}
</style></head>
<body>
<h1>{escape(title)}</h1>
<div id="controls">
<button id="first" title="first">&#x23EE;</button><button id="prev" title="previous (left arrow)">&#x25C0;</button>
<input id="slider" type="range" min="0" max="{max(len(steps) - 1, 0)}" value="{max(len(steps) - 1, 0)}">
<button id="next" title="next (right arrow)">&#x25B6;</button><button id="last" title="last">&#x23ED;</button>
<span id="where"></span>
</div>
<div id="caption"></div>
{blocks}
<script>
const steps = {data};
const slider = document.getElementById("slider");
let shown = null;
function show(i) {{
  i = Math.max(0, Math.min(steps.length - 1, i));
  slider.value = i;
  const step = steps[i];
  if (shown !== null) document.getElementById("picture-" + shown).hidden = true;
  shown = step.picture;
  document.getElementById("picture-" + shown).hidden = false;
  document.getElementById("where").textContent = "version " + step.v + " (" + (i + 1) + "/" + steps.length + ")";
  document.getElementById("caption").textContent = step.caption;
}}
slider.addEventListener("input", () => show(Number(slider.value)));
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(Number(slider.value) - 1);
document.getElementById("next").onclick = () => show(Number(slider.value) + 1);
document.getElementById("last").onclick = () => show(steps.length - 1);
document.addEventListener("keydown", e => {{
  if (e.key === "ArrowLeft") show(Number(slider.value) - 1);
  if (e.key === "ArrowRight") show(Number(slider.value) + 1);
}});
if (steps.length) show(steps.length - 1);
</script>
</body></html>
"""
