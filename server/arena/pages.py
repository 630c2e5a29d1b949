"""The arena's pages on the live-page server (server/web/site.py), registered by route at wiring:

    GET /tournaments/<id>          a tournament's standings, matches (each linking to its page) and audit
    GET /tournaments/<id>/events   text/event-stream: the page's tables drawn again whenever they change

A tournament's page shows only what its log says in public (pictures/standings.py draws it).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from aiohttp import web

from pictures.standings import sections, tournament_html
from server.arena.log import ARENA_STREAM
from server.arena.service import Arena
from server.arena.tournament import TournamentLog
from server.errors import BadRequest, DataLoss, NotFound
from server.web.events import KEEPALIVE
from server.web.refusals import refuse
from server.web.site import Site


class TournamentPages:
    def __init__(self, arena: Arena, site: Site) -> None:
        self.arena = arena
        self.site = site
        site.get("/tournaments/{tournament_id}", self.page)
        site.get("/tournaments/{tournament_id}/events", self.events)

    async def _tournament(self, text: str) -> TournamentLog:
        """The tournament; 404 for an unknown or malformed id (a match's id included). One the arena holds
        is read from memory: the arena keeps it current (its own writes, other nodes' as it is told of them),
        so visitors' pages and streams add no reads of the store however many there are."""
        try:
            known = self.arena.tournaments.get(str(uuid.UUID(text)))
        except ValueError:
            raise refuse(404, "no such tournament") from None
        if known is not None:
            if not known.header:  # being created: nothing of it is stored yet
                raise refuse(404, "no such tournament")
            return known
        try:
            return await self.arena.tournament(text)
        except (NotFound, BadRequest):
            raise refuse(404, "no such tournament") from None
        except DataLoss:
            raise refuse(503, "this tournament cannot be read at the moment") from None

    def _arena_past(self, seen: int) -> Callable[[], bool]:
        return lambda: self.arena.log.version > seen

    async def page(self, request: web.Request) -> web.Response:
        tournament = await self._tournament(request.match_info["tournament_id"])
        events = f"/tournaments/{tournament.tournament_id}/events"
        page = tournament_html(tournament_data(tournament), events, tournament.version)
        return web.Response(text=page, content_type="text/html")

    async def events(self, request: web.Request) -> web.StreamResponse:
        """The tables, drawn again whenever the tournament's log grows. Its matches start, finish and are
        voided in the same writes as the arena stream's records, so the arena stream moving is the cue (and
        each keepalive looks again, for a tournament another node's write reached after its arena record)."""
        tournament = await self._tournament(request.match_info["tournament_id"])
        tournament_id = tournament.tournament_id
        sent = -1  # every stream starts with the tables as they are: the page may be older than its stream
        async with self.site.events.open(request) as stream:
            while True:
                seen = self.arena.log.version  # read before the tournament: a write after it wakes the wait
                try:
                    tournament = await self._tournament(tournament_id)
                except web.HTTPException:  # unreadable meanwhile: the stream ends, the browser tries again
                    return stream.response
                if tournament.version != sent:
                    sent = tournament.version
                    data = tournament_data(tournament)
                    await stream.send(str(sent), {"v": sent, "state": data["state"], "sections": sections(data)})
                else:
                    await stream.still_here()
                past = self._arena_past(seen)
                await self.arena.platform.wait_for_stream(ARENA_STREAM, past, KEEPALIVE, until=stream.ended)
                if stream.ended.done():
                    return stream.response


def tournament_data(tournament: TournamentLog) -> dict[str, Any]:
    """What the tournament's page shows, as plain data: only what its log says in public (no seeds of
    matches, no configuration)."""
    header = tournament.header
    return {
        "id": tournament.tournament_id,
        "name": str(header.get("name", "")),
        "game": str(header.get("game", "")),
        "format": str(header.get("format", "")),
        "organiser": str(header.get("organiser", "")),
        "state": tournament.state(),
        "finished": tournament.finished_count(),
        "counted": tournament.counted(),
        "standings": tournament.standings_json(),
        "matches": [
            {
                "index": entry.index,
                "round": entry.round,
                "seats": list(entry.seats),
                "match_id": entry.match_id,
                "state": entry.state,
                "ranks": dict(entry.ranks) if entry.ranks is not None else None,
                "notes": list(entry.notes),
            }
            for entry in sorted(tournament.entries.values(), key=lambda entry: entry.index)
        ],
        "audit": list(tournament.audit),
    }
