"""The arena's pages on the live-page server (server/http.py), registered by route at wiring:

    GET /tournaments/<id>          a tournament's standings, matches (each linking to its page) and audit
    GET /tournaments/<id>/events   text/event-stream: the page's tables drawn again whenever they change

A tournament's page shows only what its log says in public (pictures/standings.py draws it).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from typing import Any

from pictures.standings import sections, tournament_html
from server.arena.log import ARENA_STREAM
from server.arena.service import Arena
from server.arena.tournament import TournamentLog
from server.errors import BadRequest, DataLoss, NotFound
from server.http import KEEPALIVE, HttpError, LivePages, send


class TournamentPages:
    def __init__(self, arena: Arena, pages: LivePages) -> None:
        self.arena = arena
        self.pages = pages
        pages.routes["tournaments"] = self.serve

    async def serve(
        self, tournament_id: str, events: bool, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        tournament = await self._tournament(tournament_id)
        if events:
            await self._tournament_events(tournament, reader, writer)
        else:
            await self._tournament_page(tournament, writer)

    async def _tournament(self, text: str) -> TournamentLog:
        """The tournament; 404 for an unknown or malformed id (a match's id included). One the arena holds
        is read from memory: the arena keeps it current (its own writes, other nodes' as it is told of them),
        so visitors' pages and streams add no reads of the store however many there are."""
        try:
            known = self.arena.tournaments.get(str(uuid.UUID(text)))
        except ValueError:
            raise HttpError("404 Not Found", "no such tournament\n") from None
        if known is not None:
            if not known.header:  # being created: nothing of it is stored yet
                raise HttpError("404 Not Found", "no such tournament\n")
            return known
        try:
            return await self.arena.tournament(text)
        except (NotFound, BadRequest):
            raise HttpError("404 Not Found", "no such tournament\n") from None
        except DataLoss:
            raise HttpError("503 Service Unavailable", "this tournament cannot be read at the moment\n") from None

    def _arena_past(self, seen: int) -> Callable[[], bool]:
        return lambda: self.arena.log.version > seen

    async def _tournament_page(self, tournament: TournamentLog, writer: asyncio.StreamWriter) -> None:
        events = f"/tournaments/{tournament.tournament_id}/events"
        page = tournament_html(tournament_data(tournament), events, tournament.version)
        await send(writer, "200 OK", page, "text/html; charset=utf-8")

    async def _tournament_events(
        self, tournament: TournamentLog, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """The tables, drawn again whenever the tournament's log grows. Its matches start, finish and are
        voided in the same writes as the arena stream's records, so the arena stream moving is the cue (and
        each keepalive looks again, for a tournament another node's write reached after its arena record)."""
        tournament_id = tournament.tournament_id
        sent = -1  # every stream starts with the tables as they are: the page may be older than its stream
        async with self.pages.event_stream(reader, writer) as ended:
            while True:
                seen = self.arena.log.version  # read before the tournament: a write after it wakes the wait
                try:
                    tournament = await self._tournament(tournament_id)
                except HttpError:  # unreadable meanwhile: the stream ends, the browser tries again later
                    return
                if tournament.version != sent:
                    sent = tournament.version
                    message = json.dumps(
                        {"v": sent, "sections": sections(tournament_data(tournament))}, separators=(",", ":")
                    )
                    writer.write(f"id: {sent}\ndata: {message}\n\n".encode())
                else:
                    writer.write(b": still here\n\n")
                await writer.drain()
                await self.arena.platform.wait_for_stream(ARENA_STREAM, self._arena_past(seen), KEEPALIVE, until=ended)
                if ended.done():
                    return


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
