"""A self-contained HTML replay viewer: every version's picture (as the chosen viewer saw it) with the
audit trace's words for what happened, play/pause, speed, a jump list by round and phase, and a timeline
where retracted versions hang off the main line as a branch. No external files, scripts or fonts.

The same page is the live page (`server/web/live.py`): given `live_url`, it adds the steps an event stream
sends as the match goes on."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from pictures.pack import PicturePacker
from pictures.page_assets import PAGE_CSS, PAGE_SCRIPT, controls_html


@dataclass(frozen=True)
class Frame:
    version: int
    caption: str  # what happened at this version, in plain words (the audit trace where there is one)
    svg: str
    mark: str = ""  # where in the match: "round 2 · bidding" (the jump list has an entry where it changes)
    retracted: bool = False  # undone by a later rollback: drawn on a branch


def step_of(frame: Frame, packer: PicturePacker) -> dict[str, Any]:
    step: dict[str, Any] = {"v": frame.version, "c": frame.caption, "p": packer.add(frame.svg), "m": frame.mark}
    if frame.retracted:
        step["r"] = 1
    return step


def page_data(frames: Iterable[Frame], packer: PicturePacker | None = None) -> dict[str, Any]:
    packer = packer or PicturePacker()
    steps = [step_of(frame, packer) for frame in frames]
    return {"fragments": packer.fragments, "pictures": packer.pictures, "steps": steps}


def script_json(value: Any) -> str:
    """JSON that is safe inside a <script> element (no "</script>", no "<!--")."""
    return json.dumps(value, separators=(",", ":")).replace("<", "\\u003c")


def links_html(links: Sequence[tuple[str, str]]) -> str:
    """A line of links (label, href) to the pages a match belongs with (its tournament, the front door)."""
    if not links:
        return ""
    shown = " · ".join(f'<a href="{escape(href)}">{escape(label)}</a>' for label, href in links)
    return f'\n<p id="links">{shown}</p>'


def replay_html(
    title: str,
    frames: Sequence[Frame],
    live_url: str | None = None,
    data: Any = None,
    links: Sequence[tuple[str, str]] = (),
) -> str:
    """One HTML page; each distinct tag of the pictures is stored once (see pictures/pack.py). `links`:
    (label, href) pairs shown under the title."""
    payload = page_data(frames) if data is None else data
    live = '<p id="live">live: <span id="live-state">connecting</span></p>' if live_url else ""
    live += links_html(links)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{escape(title)}</title>
<style>{PAGE_CSS}</style></head>
<body>
<h1>{escape(title)}</h1>{live}
{controls_html()}
<div id="caption" aria-live="polite"></div>
<div id="picture"></div>
<script>
const DATA = {script_json(payload)};
const LIVE_URL = {script_json(live_url)};
{PAGE_SCRIPT}
</script>
</body></html>
"""


def describe(kind: str, event_type: str, record: dict[str, Any], retracted: bool) -> str:
    """Plain words for a version the audit trail does not explain (a seat taken, a match started)."""
    if kind == "joined":
        words = f"{record.get('player', 'a player')} took their seat"
    elif kind == "dispute":
        words = f"{record.get('by')} disputes the ruling at version {record.get('at_version')}: {record.get('text')}"
    elif kind == "dispute_decided":
        words = f"{record.get('by')} {record.get('decision')} dispute {record.get('number')}: {record.get('reason')}"
    elif kind == "game":
        event = record.get("event") or {}
        words = event_type.replace("_", " ")
        if event.get("player"):
            words = f"{event['player']}: {words}"
        if event.get("sealed"):
            words += " (sealed until the rules reveal it)"
    else:
        words = f"{kind} {event_type}".strip()
    return words + (" (retracted by a rollback)" if retracted else "")


def caption_of(entry: Any) -> str:
    """An audit entry (the AuditEntry message) in a few lines: who did what, then the ruling trace."""
    return caption(entry.actor, entry.input, list(entry.lines), entry.retracted)


def caption(actor: str, source: str, lines: list[str], retracted: bool) -> str:
    """Who did what, then the ruling trace in plain words (rule numbers included)."""
    # Without the source, a sealed command's words are not for this viewer.
    head = f"{actor}: {source}" if actor and source else source or (f"{actor} acted" if actor else "")
    out = ([head] if head else []) + lines
    if retracted:
        out.append("(retracted by a rollback)")
    return "\n".join(out)


def mark_of(view: dict[str, Any], phase: str) -> str:
    round_number = view.get("round")
    words = phase.replace("_", " ")
    return f"round {round_number} · {words}" if isinstance(round_number, int) else words


def data_of(page: str) -> dict[str, Any]:
    """The steps and packed pictures a replay page holds (for tests and tools that read a page)."""
    start = page.index("const DATA = ") + len("const DATA = ")
    data: dict[str, Any] = json.loads(page[start : page.index(";\nconst LIVE_URL", start)])
    return data
