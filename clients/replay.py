"""`matchctl replay`: a match's replay page, read from a server as one viewer sees it (the page itself is
built by pictures/page.py, which the server's live page uses too)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from clients.client import MatchClient
from pictures import render_svg
from pictures.page import Frame, caption_of, describe, mark_of, replay_html


def replay_from_server(
    client: MatchClient,
    match_id: str,
    token: str | None,
    who: str,
    progress: Callable[[Sequence[Any], str], Iterable[Any]] = lambda items, _what: items,
) -> str:
    """The page for `match_id` as `token`'s viewer sees it: a picture per version, the audit's words.
    `progress` wraps the loop over versions (matchctl shows a progress bar on a terminal)."""
    history = client.history(match_id, token)
    audit = {entry.version: entry for entry in client.audit(match_id, token)}
    frames = []
    game = ""
    for event in progress(history, "drawing each version"):
        state = client.state(match_id, token, event.version)
        game = state.game
        view = state.view
        entry = audit.get(event.version)
        record = json.loads(event.json) if event.json else {}
        words = caption_of(entry) if entry is not None else describe(event.kind, event.type, record, event.retracted)
        mark = mark_of(view, state.status.phase)
        frames.append(Frame(event.version, words, render_svg(game, view), mark, event.retracted))
    return replay_html(f"{game} match {match_id} as {who}", frames)
