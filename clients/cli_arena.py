"""`matchctl`'s arena commands: bot accounts, challenges, tournaments, the leaderboard, a tournament's
verification (protos/matchserver/v1/arena.proto; docs/BOTS.md, "The arena").

Bots and tournaments are managed with the credential matchctl already has for the server (a saved host
key, else the admin token); a bot key is given with --token where a bot acts. Bot keys are printed once
and never saved: they belong to the bot's author.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from clients import cli_show
from clients.cli_names import UsageError, check_game, read_config
from clients.client import MatchClient
from clients.credentials import Credentials
from matchserver.v1 import arena_pb2 as arena_pb

# The format a tournament of each game gets unless --format says otherwise (arena.proto).
DEFAULT_FORMAT = {"cookoff": "round-robin"}
OTHER_GAMES_FORMAT = "rotation"
FORMATS = ("round-robin", "rotation")


def as_json(message: Message) -> dict[str, Any]:
    """A response as JSON for programs: the proto's own field names, every field present."""
    value: dict[str, Any] = json_format.MessageToDict(
        message,
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
        unquote_int64_if_possible=True,
    )
    return value


def print_json(message: Message) -> None:
    print(json.dumps(as_json(message), indent=2, sort_keys=True))


def _lines(lines: list[str]) -> None:
    print("\n".join(lines))


def _names(text: str, what: str) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    if not names or any(not name for name in names):
        raise UsageError(f"{what} needs comma-separated bot names, none empty (e.g. {what} ann-bot,bob-bot)")
    return names


def _needs(value: str | None, usage: str) -> str:
    if not value:
        raise UsageError(f"usage: {usage}")
    return value


def cmd_bot(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    if args.action == "list":
        bots = client.list_bots()
        if args.json:
            print_json(arena_pb.ListBotsResponse(bots=bots))
        else:
            _lines(cli_show.bots_table(bots))
        return 0
    name = _needs(args.name, f"matchctl bot {args.action} NAME")
    if args.action == "create":
        created = client.create_bot(name, auto_accept=args.auto_accept)
        if args.json:
            print_json(created)
            return 0
        accepts = "accepts every challenge by itself" if created.bot.auto_accept else "answers its own challenges"
        print(f"bot {created.bot.name} registered ({accepts}); its bot key (shown once; keep it secret):")
        print(created.bot_key)
    elif args.action == "rotate":
        rotated = client.rotate_bot_key(name, args.reason)
        if args.json:
            print_json(rotated)
            return 0
        print(
            f"bot {rotated.bot.name}: key generation {rotated.bot.key_generation}; the old key stopped working. "
            "The new bot key (shown once; keep it secret):"
        )
        print(rotated.bot_key)
    else:
        if not args.reason:
            raise UsageError(
                "bot revoke needs --reason TEXT (kept in the record): matchctl bot revoke NAME --reason TEXT"
            )
        bot = client.revoke_bot(name, args.reason)
        if args.json:
            print_json(arena_pb.RevokeBotResponse(bot=bot))
            return 0
        print(f"revoked bot {bot.name}: its key stopped working for good; its finished matches stand")
    return 0


def _challenge_lines(challenge: arena_pb.Challenge) -> list[str]:
    lines = [f"challenge {challenge.challenge_id} ({challenge.game}): {challenge.state}"]
    lines.append(f"  bots:     {', '.join(challenge.bots)}")
    lines.append(f"  accepted: {', '.join(challenge.accepted) or 'nobody yet'}")
    if challenge.match_id:
        lines.append(f"  match:    {challenge.match_id}")
    elif challenge.state == "open" and challenge.expires_at:
        lines.append(f"  expires:  {cli_show.when(challenge.expires_at)} (unanswered by then, it expires)")
    return lines


def cmd_challenge(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    if args.action == "answer":
        challenge_id = _needs(args.challenge_id, "matchctl challenge answer ID --accept|--decline --token BOTKEY")
        if args.accept == args.decline:
            raise UsageError("challenge answer needs one of --accept or --decline")
        if not args.token:
            raise UsageError("challenge answer needs --token BOTKEY (the challenged bot's key)")
        answered = client.answer_challenge(challenge_id, args.accept, args.token)
        if args.json:
            print_json(arena_pb.AnswerChallengeResponse(challenge=answered))
        else:
            _lines(_challenge_lines(answered))
        return 0
    if args.action is not None or args.challenge_id:
        raise UsageError("usage: matchctl challenge --game G --bots A,B | matchctl challenge answer ID ...")
    game = check_game(_needs(args.game, "matchctl challenge --game G --bots A,B [--config FILE] [--token BOTKEY]"))
    bots = _names(_needs(args.bots, "matchctl challenge --game G --bots A,B"), "--bots")
    config = read_config(args.config)
    challenge = client.create_challenge(game, bots, json.dumps(config) if config else "", token=args.token)
    if args.json:
        print_json(arena_pb.CreateChallengeResponse(challenge=challenge))
    else:
        _lines(_challenge_lines(challenge))
    return 0


def tournament_format(game: str, given: str | None) -> str:
    return given or DEFAULT_FORMAT.get(game, OTHER_GAMES_FORMAT)


def cmd_tournament(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    if args.action == "create":
        return _create_tournament(args, client)
    if args.action == "list":
        tournaments = client.list_tournaments()
        if args.json:
            print_json(arena_pb.ListTournamentsResponse(tournaments=tournaments))
        else:
            _lines(cli_show.tournaments_table(tournaments))
        return 0
    tournament_id = _needs(args.tournament, f"matchctl tournament {args.action} TOURNAMENT")
    if args.action == "show":
        tournament = client.get_tournament(tournament_id)
        if args.json:
            print_json(arena_pb.GetTournamentResponse(tournament=tournament))
        else:
            _lines(cli_show.tournament_lines(tournament))
        return 0
    match_id = _needs(args.match_id, "matchctl tournament void TOURNAMENT MATCH --reason TEXT [--rematch]")
    if not args.reason:
        raise UsageError("tournament void needs --reason TEXT (kept in the tournament's audit)")
    tournament = client.void_tournament_match(tournament_id, match_id, args.reason, rematch=args.rematch)
    if args.json:
        print_json(arena_pb.VoidTournamentMatchResponse(tournament=tournament))
        return 0
    rematch = "; a rematch is scheduled" if args.rematch else ""
    print(f"voided {match_id} in tournament {tournament_id}: {args.reason}{rematch}")
    print(cli_show.progress_line(tournament))
    return 0


def _create_tournament(args: argparse.Namespace, client: MatchClient) -> int:
    usage = "matchctl tournament create --game G --bots A,B,C [--format round-robin|rotation] ..."
    game = check_game(_needs(args.game, usage))
    bots = _names(_needs(args.bots, usage), "--bots")
    config = read_config(args.config)
    tournament = client.create_tournament(
        game,
        bots,
        tournament_format(game, args.format),
        games_per_pair=args.games_per_pair or 0,
        rounds=args.rounds or 0,
        table_size=args.table_size or 0,
        config_json=json.dumps(config) if config else "",
        name=args.name or "",
        seed=args.seed,
    )
    if args.json:
        print_json(arena_pb.CreateTournamentResponse(tournament=tournament))
        return 0
    name = f" {tournament.name!r}" if tournament.name else ""
    print(
        f"tournament{name}: {tournament.game} {tournament.format}, {len(tournament.bots)} bots, "
        f"{tournament.matches_total} matches (matchctl tournament show ID)",
        file=sys.stderr,
    )
    print(tournament.tournament_id)
    return 0


def verify_tournament(args: argparse.Namespace, client: MatchClient) -> int:
    report = client.verify_tournament(args.tournament)
    if args.json:
        print_json(report)
    elif report.ok:
        print(
            f"{args.tournament}: ok ({report.checked_records} records, {report.checked_matches} matches "
            "re-derived and checked)"
        )
    else:
        print(f"{args.tournament}: not ok: {report.problem}")
    return 0 if report.ok else 1


def stream_checks(client: MatchClient, identities: bool, arena: bool) -> list[Any]:
    """The check of the server's own streams' hash chains (admin token): one StreamCheck a stream."""
    return list(client.verify_server_streams(identities=identities, arena=arena).streams)


def cmd_leaderboard(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    board = client.leaderboard(check_game(args.game))
    if args.json:
        print_json(board)
    else:
        _lines(cli_show.leaderboard_lines(board))
    return 0
