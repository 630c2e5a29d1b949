"""Every conversion between ArenaService's protobuf messages (protos/matchserver/v1/arena.proto) and the
arena's values: the arena service builds no message itself."""

from __future__ import annotations

import json
import typing
from collections.abc import Sequence
from typing import Any

from engine.registry import get_game
from matchserver.v1 import arena_pb2 as pb
from server.arena.log import Challenge, Notice
from server.arena.ratings import Rating
from server.arena.tournament import TournamentLog
from server.identities import BotAccount
from server.paging import PageRequest


def bot_message(bot: BotAccount) -> pb.Bot:
    return pb.Bot(
        name=bot.name,
        created_at=bot.created_at,
        revoked=bot.revoked,
        auto_accept=bot.auto_accept,
        owner=bot.owner,
        key_generation=bot.generation,
    )


def challenge_message(challenge: Challenge) -> pb.Challenge:
    return pb.Challenge(
        challenge_id=challenge.challenge_id,
        game=challenge.game,
        bots=challenge.bots,
        accepted=challenge.accepted,
        state=challenge.state,
        match_id=challenge.match_id,
        expires_at=challenge.expires_at,
        by=challenge.by,
    )


def notice_message(notice: Notice) -> pb.BotEventsResponse:
    record = notice.record
    result = ""
    if notice.kind == "finished":
        result = json.dumps({"ranks": record["ranks"]}, sort_keys=True)
    elif notice.kind == "challenged":  # the terms, less what the game keeps from players (e.g. Cookoff's judges)
        hidden = get_game(str(record["game"])).secret_config_keys
        config = {key: value for key, value in record["config"].items() if key not in hidden}
        result = json.dumps({"bots": record["bots"], "config": config, "by": record["by"]}, sort_keys=True)
    elif notice.kind == "tournament_finished":
        result = json.dumps({"standings": record["standings"]}, sort_keys=True)
    return pb.BotEventsResponse(
        position=notice.position,
        kind=notice.kind,
        match_id=str(record.get("match") or ""),
        seat=notice.seat,
        game=str(record.get("game") or ""),
        challenge_id=str(record.get("challenge") or ""),
        tournament_id=str(record.get("tournament") or ""),
        text=notice.text,
        result_json=result,
    )


def tournament_message(tournament: TournamentLog, whole: bool = True) -> pb.Tournament:
    header = tournament.header
    message = pb.Tournament(
        tournament_id=tournament.tournament_id,
        name=str(header.get("name", "")),
        game=str(header.get("game", "")),
        format=str(header.get("format", "")),
        bots=tournament.bots,
        state=tournament.state(),
        matches_total=tournament.counted(),
        matches_finished=tournament.finished_count(),
        standings=[
            pb.Standing(rank=s.rank, bot=s.bot, points=s.points, played=s.played, wins=s.wins, byes=s.byes)
            for s in tournament.standings()
        ],
        organiser=str(header.get("organiser", "")),
        version=tournament.version,
    )
    if whole:
        for entry in sorted(tournament.entries.values(), key=lambda e: e.index):
            message.matches.append(
                pb.TournamentMatch(
                    index=entry.index,
                    round=entry.round,
                    seats=entry.seats,
                    match_id=entry.match_id,
                    state=entry.state,
                    ranks_json=json.dumps(entry.ranks, sort_keys=True) if entry.ranks is not None else "",
                    note="; ".join(entry.notes),
                    finished_version=entry.finished_version,
                )
            )
        message.audit.extend(tournament.audit)
    return message


BotResponse = typing.TypeVar("BotResponse", pb.CreateBotResponse, pb.RotateBotKeyResponse, pb.RevokeBotResponse)


def bot_response(kind: type[BotResponse], bot: BotAccount, bot_key: str | None = None) -> BotResponse:
    if bot_key is None:
        return kind(bot=bot_message(bot))
    return kind(bot=bot_message(bot), bot_key=bot_key)  # type: ignore[call-arg]


def bots_page(bots: Sequence[BotAccount], page: PageRequest) -> pb.ListBotsResponse:
    """One page of bots, as many as fit (the page token: the index of the next)."""
    first = page.start(default=0)
    chosen = [bot_message(bot) for bot in bots[first : first + page.size]]
    taken = page.fit(chosen, lambda bot: bot.ByteSize())
    more = first + taken < len(bots)
    return pb.ListBotsResponse(bots=chosen[:taken], next_page_token=page.next_token(first + taken, more=more))


ChallengeResponse = typing.TypeVar("ChallengeResponse", pb.CreateChallengeResponse, pb.AnswerChallengeResponse)


def challenge_response(kind: type[ChallengeResponse], challenge: Challenge) -> ChallengeResponse:
    return kind(challenge=challenge_message(challenge))


TournamentResponse = typing.TypeVar(
    "TournamentResponse", pb.CreateTournamentResponse, pb.GetTournamentResponse, pb.VoidTournamentMatchResponse
)


def tournament_response(kind: type[TournamentResponse], tournament: TournamentLog) -> TournamentResponse:
    return kind(tournament=tournament_message(tournament))


def tournaments_page(tournaments: Sequence[TournamentLog], next_token: str) -> pb.ListTournamentsResponse:
    listed = [tournament_message(tournament, whole=False) for tournament in tournaments]
    return pb.ListTournamentsResponse(tournaments=listed, next_page_token=next_token)


def verify_tournament_response(ok: bool, problem: str, records: int, matches: int) -> pb.VerifyTournamentResponse:
    return pb.VerifyTournamentResponse(ok=ok, problem=problem, checked_records=records, checked_matches=matches)


def stream_checks(reports: Sequence[dict[str, Any]]) -> pb.VerifyServerStreamsResponse:
    return pb.VerifyServerStreamsResponse(streams=[pb.StreamCheck(**report) for report in reports])


def leaderboard_response(game: str, rows: Sequence[Rating]) -> pb.LeaderboardResponse:
    return pb.LeaderboardResponse(
        game=game,
        ratings=[
            pb.Rating(rank=rank, bot=r.bot, mu=r.mu, sigma=r.sigma, ordinal=r.ordinal, matches=r.matches)
            for rank, r in enumerate(rows, start=1)
        ],
    )
