"""A match's live page for spectators, and its event stream:

    GET /matches/<id>              the page: every version so far, pictures packed (pictures/pack.py)
    GET /matches/<id>/events       text/event-stream: what is new, each message a packed slice of pictures

Only the spectator's view is ever drawn (game.view and the audit trail for Viewer.spectator()); a private
match, an unknown one and anything else answer 404, so the page tells nobody that a private match exists.
The page and its pictures come from pictures/ (pure functions of a view), which `matchctl replay` uses
too, so the live page looks the same as a replay."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from cachetools import LRUCache

from engine.contract import Viewer
from pictures import RENDERERS, render_svg
from pictures.pack import PicturePacker
from pictures.page import Frame, caption, describe, mark_of, replay_html, step_of
from server import audit
from server.errors import DataLoss, NotFound, PermissionDenied
from server.live import LiveMatch
from server.matches import Matches
from server.visibility import visible_records
from server.web.events import KEEPALIVE
from server.web.refusals import refuse
from server.web.site import Site

SPECTATOR = Viewer.spectator()
DRAW_CHUNK = 100  # versions a live page draws at a time before it lets the loop serve others
# Links a match's page shows, (label, href), from whichever room knows them (the arena: its tournament);
# they are added at wiring (server/web/front.py FrontDoor.add_match_links).
MatchLinks = Callable[[LiveMatch], Sequence[tuple[str, str]]]
MATCH_LINKS = web.AppKey("match_links", list[MatchLinks])


@dataclass
class LiveReplay:
    """One match's page data so far, shared by every page and event stream of the match. Append-only, so
    a client is described by three counts (fragments, pictures, steps) and is sent what lies past them."""

    game: str = ""
    version: int = 0  # the versions drawn
    steps: list[dict[str, Any]] = field(default_factory=list)
    retracted: list[int] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    packer: PicturePacker = field(default_factory=PicturePacker)

    def counts(self) -> tuple[int, int, int]:
        return len(self.packer.fragments), len(self.packer.pictures), len(self.steps)

    def since(self, counts: tuple[int, int, int]) -> dict[str, Any]:
        fragments, pictures, steps = counts
        return {
            "f": fragments,
            "fragments": self.packer.fragments[fragments:],
            "pictures": self.packer.pictures[pictures:],
            "steps": self.steps[steps:],
            "retracted": self.retracted,
        }

    async def catch_up(self, live: LiveMatch) -> None:
        """Draw the versions past those drawn, DRAW_CHUNK at a time: views and captions in the loop (the
        match is not shared with threads), the pictures in a thread (pure functions of the views). Between
        chunks the loop serves everyone else, so a first view of a long match never holds it for long."""
        async with self.lock:
            self.retracted = sorted(live.batches.retracted())
            while self.version < live.version:
                await self._draw(live, self.version + 1, min(live.version, self.version + DRAW_CHUNK))

    async def _draw(self, live: LiveMatch, first: int, last: int) -> None:
        self.game = live.game.name
        explained = {e["version"]: e for e in audit.trail(live, SPECTATOR, last, start=first)}
        rows = []
        for version, record in visible_records(live, first, last, SPECTATOR):
            state = live.state_at(version)
            entry = explained.get(version)
            words = (
                caption(entry["actor"], entry["input"], entry["lines"], False)
                if entry is not None
                else describe(record["kind"], (record.get("event") or {}).get("type", ""), record, False)
            )
            view = live.game.view(state, SPECTATOR)
            rows.append((version, words, view, mark_of(view, live.game.status(state).phase)))
        svgs = await asyncio.to_thread(lambda: [render_svg(self.game, row[2]) for row in rows])
        for (version, words, _, mark), svg in zip(rows, svgs, strict=True):
            self.steps.append(step_of(Frame(version, words, svg, mark), self.packer))
        self.version = last


async def watchable(matches: Matches, text: str) -> LiveMatch:
    """The match, if a spectator may watch it; else 404 whatever the reason (no match, private)."""
    try:
        match_id = uuid.UUID(text)
    except ValueError:
        raise refuse(404, "no such match") from None
    try:
        live = await matches.load(match_id)
        await matches.callers.viewer_for(live, None)
    except (NotFound, PermissionDenied):
        raise refuse(404, "no such match") from None
    except DataLoss:
        raise refuse(503, "this match cannot be read at the moment") from None
    return live


class MatchPages:
    """The spectator's live page of each watchable match."""

    def __init__(self, matches: Matches, site: Site) -> None:
        self.matches = matches
        self.site = site
        self.replays: LRUCache[uuid.UUID, LiveReplay] = LRUCache(maxsize=64)
        site.app.setdefault(MATCH_LINKS, [])
        site.get("/matches/{match_id}", self.page)
        site.get("/matches/{match_id}/events", self.events)

    async def _replay(self, text: str) -> tuple[LiveMatch, LiveReplay]:
        live = await watchable(self.matches, text)
        if live.game.name not in RENDERERS:  # a game registered without pictures (a test's fixture game)
            raise refuse(404, f"there are no pictures of {live.game.name} matches to show")
        replay = self.replays.get(live.id)
        if replay is None:
            replay = self.replays[live.id] = LiveReplay()
        await replay.catch_up(live)
        return live, replay

    async def page(self, request: web.Request) -> web.Response:
        live, replay = await self._replay(request.match_info["match_id"])
        title = f"{replay.game} match {live.id} (live, as a spectator)"
        links = [link for links_of in self.site.app.get(MATCH_LINKS, []) for link in links_of(live)]
        links.append(("all matches", "/"))
        page = replay_html(title, [], live_url=f"/matches/{live.id}/events", data=replay.since((0, 0, 0)), links=links)
        return web.Response(text=page, content_type="text/html")

    async def events(self, request: web.Request) -> web.StreamResponse:
        live, replay = await self._replay(request.match_info["match_id"])
        sent = positions(request)
        async with self.site.events.open(request) as stream:
            while True:
                if replay.counts() != sent:
                    data = replay.since(sent)
                    sent = replay.counts()
                    await stream.send(f"{sent[0]},{sent[1]},{sent[2]}", data)
                else:
                    await stream.still_here()
                await self.matches.queries.wait_for_change(live.id, replay.version, KEEPALIVE, until=stream.ended)
                if stream.ended.done():
                    return stream.response
                try:
                    live, replay = await self._replay(str(live.id))
                except web.HTTPException:  # quarantined meanwhile: the stream ends, the browser tries again
                    return stream.response


def positions(request: web.Request) -> tuple[int, int, int]:
    """What the client has: the last event's id on a reconnect, else ?from=F,P,S (0,0,0: nothing)."""
    given = request.headers.get("Last-Event-ID") or request.query.get("from") or "0,0,0"
    try:
        fragments, pictures, steps = (int(n) for n in given.split(","))
    except ValueError:
        raise refuse(400, "from must be three counts: F,P,S") from None
    if min(fragments, pictures, steps) < 0:
        raise refuse(400, "from must be three counts of 0 or more")
    return fragments, pictures, steps
