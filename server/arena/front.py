"""The arena on the front door (server/web/front.py) and the pages it leads to:

    GET /tournaments               every tournament, newest first, paged (?before=N)
    GET /bots/<name>               a bot's rating over time per game, its matches (?before=N), its record
                                   against each rival
    GET /leaderboard/<game>        a game's ratings (?after=N)

and, on the front door, the latest tournaments and each game's top of the leaderboard; on a bot match's
live page, links to its tournament and its bots. All of it is read from the arena's log in memory (every
arena match is public: the arena creates none private), drawn by pictures/front.py. An unknown bot or
game answers 404."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aiohttp import web

from engine.errors import InvalidConfig
from engine.registry import available
from pictures.front import (
    bot_matches_html,
    leaderboard_html,
    leaderboards_html,
    page_html,
    rating_history_html,
    record_html,
    sections_html,
    tournaments_html,
    with_query,
)
from server.arena.accounts import BOT_NAME
from server.arena.log import ARENA_STREAM, ArenaMatch
from server.arena.ratings import Rating, rating_steps
from server.arena.service import Arena
from server.live import LiveMatch
from server.web.front import PAGE_SIZE, Drawn, FrontDoor, Query, number
from server.web.site import refuse

BOARD_TOP = 5  # bots of each game's leaderboard on the front door
FRONT_TOURNAMENTS = 10  # the latest tournaments on the front door
BOARD_PAGE = 50  # bots a leaderboard page shows


def rating_row(rating: Rating) -> dict[str, Any]:
    return {
        "bot": rating.bot,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "ordinal": rating.ordinal,
        "matches": rating.matches,
    }


def record_against(bot: str, matches: Sequence[ArenaMatch]) -> list[dict[str, Any]]:
    """Wins, losses and draws against each rival per game: in each finished match (not voided), the two
    bots' ranks compared (the better rank wins; equal ranks are a draw)."""
    table: dict[tuple[str, str], dict[str, Any]] = {}
    for match in matches:
        ranks = match.ranks
        if match.voided or not ranks or bot not in ranks:
            continue
        for rival, rank in ranks.items():
            if rival == bot:
                continue
            row = table.setdefault(
                (rival, match.game), {"rival": rival, "game": match.game, "wins": 0, "losses": 0, "draws": 0}
            )
            mine = ranks[bot]
            row["wins" if mine < rank else "losses" if mine > rank else "draws"] += 1
    return [table[key] for key in sorted(table)]


class ArenaFront:
    """The arena's sections of the front door, its listing pages, and its links on a match's page."""

    def __init__(self, arena: Arena, front: FrontDoor) -> None:
        self.arena = arena
        self.cue = ARENA_STREAM
        front.add(self)
        front.add_match_links(self.links)
        front.site.get("/tournaments", self.tournaments_page)
        front.site.get("/bots/{name}", self.bot_page)
        front.site.get("/leaderboard/{game}", self.leaderboard_page)

    # --- on the front door --------------------------------------------------------------------------

    def position(self) -> int:
        return self.arena.log.version

    async def draw(self, query: Query) -> Drawn:
        rows, more = await self._tournaments(None, FRONT_TOURNAMENTS)
        listing = tournaments_html(rows, "/tournaments" if more else None)
        boards = [(game, [rating_row(r) for r in self._board(game)[:BOARD_TOP]]) for game in self._games()]
        return [("tournaments", "Tournaments", listing), ("leaderboards", "Leaderboards", leaderboards_html(boards))]

    def _games(self) -> list[str]:
        return list(dict.fromkeys([*available(), *self.arena.log.games()]))

    def _board(self, game: str) -> list[Rating]:
        try:
            return self.arena.leaderboard(game)
        except InvalidConfig:  # a game no longer hosted here
            return []

    async def _tournaments(self, before: int | None, size: int) -> tuple[list[dict[str, Any]], bool]:
        """Tournaments newest first, before an index of the arena's list (None: from the newest)."""
        ids = self.arena.log.tournaments
        end = len(ids) if before is None else min(before, len(ids))
        rows = []
        for index in range(end - 1, max(-1, end - 1 - size), -1):
            tournament = await self.arena.tournament(ids[index])
            header = tournament.header
            rows.append(
                {
                    "index": index,
                    "id": tournament.tournament_id,
                    "name": str(header.get("name", "")),
                    "game": str(header.get("game", "")),
                    "format": str(header.get("format", "")),
                    "state": tournament.state(),
                    "finished": tournament.finished_count(),
                    "counted": tournament.counted(),
                }
            )
        return rows, end - size > 0

    # --- a match's page -----------------------------------------------------------------------------

    def links(self, live: LiveMatch) -> list[tuple[str, str]]:
        """A bot match links to its tournament and to each of its bots."""
        out = []
        terms: Mapping[str, Any] = live.header.get("arena") or {}
        tournament_id = terms.get("tournament")
        if tournament_id:
            known = self.arena.tournaments.get(str(tournament_id))
            name = str(known.header.get("name", "")) if known is not None else ""
            out.append((f"tournament {name or tournament_id}", f"/tournaments/{tournament_id}"))
        out += [(f"bot {bot}", f"/bots/{bot}") for bot in live.seat_holders.values()]
        return out

    # --- the pages ----------------------------------------------------------------------------------

    async def tournaments_page(self, request: web.Request) -> web.Response:
        query = dict(request.query)
        before = number(query, "before")
        await self.arena.catch_up()
        rows, more = await self._tournaments(before, PAGE_SIZE)
        older = with_query("/tournaments", query, "before", rows[-1]["index"]) if more and rows else None
        body = sections_html([("tournaments", "Running and past", tournaments_html(rows, older))])
        return web.Response(text=page_html("Tournaments", body), content_type="text/html")

    async def leaderboard_page(self, request: web.Request) -> web.Response:
        game = request.match_info["game"]
        query = dict(request.query)
        after = number(query, "after", 0) or 0
        try:
            board = self.arena.leaderboard(game)
        except InvalidConfig:
            raise refuse(404, "no such game") from None
        shown = board[after : after + BOARD_PAGE]
        more = (
            with_query(f"/leaderboard/{game}", query, "after", after + BOARD_PAGE)
            if len(board) > after + BOARD_PAGE
            else None
        )
        body = sections_html(
            [
                (
                    "board",
                    "Ratings (ordinal = mu - 3 sigma)",
                    leaderboard_html([rating_row(r) for r in shown], after + 1, more),
                )
            ]
        )
        return web.Response(text=page_html(f"{game} leaderboard", body), content_type="text/html")

    async def bot_page(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        # (the arena's order of the match: the paging position, the match), every match the bot played
        played = [(i, m) for i, m in enumerate(self.arena.log.matches.values()) if name in m.seats.values()]
        registered = BOT_NAME.fullmatch(name) and name in self.arena.platform.access.identities.bots
        if not played and not registered:
            raise refuse(404, "no such bot")
        query = dict(request.query)
        before = number(query, "before")
        newest = [pair for pair in reversed(played) if before is None or pair[0] < before]
        shown = newest[:PAGE_SIZE]
        older = with_query(f"/bots/{name}", query, "before", shown[-1][0]) if len(newest) > PAGE_SIZE else None
        matches = [match for _, match in played]
        body = sections_html(
            [
                ("ratings", "Rating over time", rating_history_html(self._history(name, matches))),
                ("record", "Record against each rival", record_html(record_against(name, matches))),
                ("matches", "Matches", bot_matches_html([self._match_row(name, m) for _, m in shown], older)),
            ]
        )
        return web.Response(text=page_html(f"bot {name}", body), content_type="text/html")

    def _history(self, bot: str, played: Sequence[ArenaMatch]) -> list[tuple[str, list[dict[str, Any]]]]:
        games = []
        for game in dict.fromkeys(match.game for match in played):
            rated = self.arena.log.rated(game)
            steps = []
            for match, step in zip(rated, rating_steps(dict(m.ranks or {}) for m in rated), strict=True):
                if bot in step:
                    steps.append({"match_id": match.match_id, **rating_row(step[bot])})
            if steps:
                games.append((game, steps))
        return games

    def _match_row(self, bot: str, match: ArenaMatch) -> dict[str, Any]:
        state = "voided" if match.voided else "finished" if match.ranks is not None else "playing"
        known = self.arena.tournaments.get(match.tournament) if match.tournament else None
        return {
            "match_id": match.match_id,
            "game": match.game,
            "tournament_id": match.tournament or "",
            "tournament_name": str(known.header.get("name", "")) if known is not None else "",
            "rivals": [other for other in match.seats.values() if other != bot],
            "state": state,
            "rank": (match.ranks or {}).get(bot),
        }
