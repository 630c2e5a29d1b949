"""The front door, for anyone:

    GET /          live public matches, recently finished ones, and the sections other rooms add
    GET /events    text/event-stream: the sections drawn again when what they show may have changed

A private match never appears (the catalog's public listing leaves it out, server/catalog.py). The page
reads without scripts; its script only puts an update's sections in place. Each section is paged by a
query parameter of its own (`live_after`, `finished_before`, ...), and the stream follows the page's.

Other rooms add sections (the arena: its tournaments and leaderboards) with `add`, and links on a match's
live page with `add_match_links`: the door knows no room by name. A section says which stream's change
may change it (its `cue`, woken through the server's Changes) and its `position` there; a match write
anywhere in this process is the matches' cue. What other nodes write reaches the page at the next
keepalive, when every section is drawn again and sent if it differs."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any, Protocol
from urllib.parse import urlencode

from aiohttp import web
from cachetools import LRUCache

from pictures.front import finished_matches_html, front_html, live_matches_html, with_query
from server.bus import Appended
from server.matches import Matches
from server.web.events import KEEPALIVE
from server.web.live import MATCH_LINKS, MatchLinks
from server.web.site import Site, refuse

PAGE_SIZE = 20  # rows of a paged list
FRESH = 1.0  # seconds a drawing is shared by every page and stream that asks for the same query
REDRAW_GAP = 0.25  # seconds a stream lets pass after an update: a burst of writes is drawn once
MATCHES_CUE = uuid.uuid5(uuid.NAMESPACE_URL, "matchserver:front-door:matches")

Query = Mapping[str, str]
Drawn = list[tuple[str, str, str]]  # (element id, title, html), in page order


class FrontSection(Protocol):
    """Parts of the front door a room draws."""

    @property
    def cue(self) -> uuid.UUID: ...  # the stream whose change (Changes.notify) may change them

    def position(self) -> int: ...  # moves whenever what they draw may have changed

    async def draw(self, query: Query) -> Drawn: ...


def number(query: Query, key: str, default: int | None = None) -> int | None:
    """A paging parameter: a whole number of 0 or more, else 400."""
    text = query.get(key)
    if text is None:
        return default
    if not text.isdigit() or len(text) > 18:
        raise refuse(400, f"{key} must be a whole number of 0 or more")
    return int(text)


class MatchSections:
    """The live public matches (oldest first) and the recently finished ones (newest first)."""

    def __init__(self, matches: Matches) -> None:
        self.matches = matches
        self.moved = 0
        self.cue = MATCHES_CUE
        matches.bus.subscribe(Appended, self._on_appended)

    def _on_appended(self, appended: Appended) -> None:
        if appended.live.header.get("private"):
            return  # nothing the door shows changed
        self.moved += 1
        self.matches.changes.notify(MATCHES_CUE)

    def position(self) -> int:
        return self.moved

    async def draw(self, query: Query) -> Drawn:
        queries = self.matches.queries
        after = number(query, "live_after", 0) or 0
        live, more_live = await queries.public_matches(False, PAGE_SIZE, after_seq=after)
        before = number(query, "finished_before")
        done, more_done = await queries.public_matches(True, PAGE_SIZE, before_seq=before or 2**62)
        live_more = with_query("/", query, "live_after", live[-1].seq) if more_live and live else None
        done_more = with_query("/", query, "finished_before", done[-1].seq) if more_done and done else None
        return [
            ("playing", "Playing now", live_matches_html([asdict(m) for m in live], live_more)),
            ("finished", "Recently finished", finished_matches_html([asdict(m) for m in done], done_more)),
        ]


class FrontDoor:
    def __init__(self, matches: Matches, site: Site) -> None:
        self.matches = matches
        self.site = site
        self.sections: list[FrontSection] = [MatchSections(matches)]
        self._drawn: LRUCache[tuple[tuple[str, str], ...], tuple[tuple[int, ...], float, Drawn]] = LRUCache(32)
        self._lock = asyncio.Lock()
        site.get("/", self.page)
        site.get("/events", self.events)

    def add(self, section: FrontSection) -> None:
        self.sections.append(section)

    def add_match_links(self, links: MatchLinks) -> None:
        """Links a match's live page shows (the arena: the match's tournament)."""
        self.site.app.setdefault(MATCH_LINKS, []).append(links)

    def _marks(self) -> tuple[int, ...]:
        return tuple(section.position() for section in self.sections)

    async def draw(self, query: Query) -> Drawn:
        """Every section for this query: shared by every page and stream that asks while it is fresh."""
        key = tuple(sorted(query.items()))
        async with self._lock:
            marks = self._marks()
            held = self._drawn.get(key)
            if held is not None and held[0] == marks and time.monotonic() - held[1] < FRESH:
                return held[2]
            drawn = [part for section in self.sections for part in await section.draw(query)]
            self._drawn[key] = (marks, time.monotonic(), drawn)
            return drawn

    async def page(self, request: web.Request) -> web.Response:
        query = dict(request.query)
        drawn = await self.draw(query)
        events = f"/events?{urlencode(sorted(query.items()))}" if query else "/events"
        return web.Response(text=front_html(drawn, events), content_type="text/html")

    async def events(self, request: web.Request) -> web.StreamResponse:
        query = dict(request.query)
        await self.draw(query)  # a bad parameter is refused before the stream opens
        sent: Drawn | None = None
        counter = itertools.count(1)
        async with self.site.events.open(request) as stream:
            while True:
                marks = self._marks()
                drawn = await self.draw(query)
                if drawn != sent:
                    sent = drawn
                    n = next(counter)
                    await stream.send(str(n), {"n": n, "sections": {key: html for key, _, html in drawn}})
                else:
                    await stream.still_here()
                await self._wait(marks, stream.ended)
                if stream.ended.done():
                    return stream.response
                await asyncio.wait([stream.ended], timeout=REDRAW_GAP)

    async def _wait(self, marks: tuple[int, ...], until: asyncio.Future[Any]) -> None:
        """Until a section's cue moves past `marks`, the server stops, or a keepalive passes."""
        with contextlib.ExitStack() as stack:
            changed: Sequence[asyncio.Future[None]] = [
                stack.enter_context(self.matches.changes.next_change(cue)) for cue in {s.cue for s in self.sections}
            ]
            if self._marks() != marks:
                return
            await asyncio.wait([*changed, until], timeout=KEEPALIVE, return_when=asyncio.FIRST_COMPLETED)
