"""`matchctl`'s command line: every subcommand, its options and its `--help` examples."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from clients.bots import BOTS
from clients.cli_arena import FORMATS
from clients.cli_disputes import add_parser as add_dispute_parser
from clients.cli_help import examples, overview

DEFAULT_SERVER = "127.0.0.1:50051"
SERVER_VARIABLE = "MATCHCTL_SERVER"
VAR_VARIABLE = "MATCHSERVER_VAR"  # the server's own setting (server/main.py): one export serves both
DEFAULT_VAR = "var"

# What `--help` calls each option's value (argparse would say `--as AS_`, `--from FROM_VERSION`): the
# same word wherever the option appears. An option not named here shows its own name (`--token TOKEN`).
VALUE_NAMES = {
    "--as": "PLAYER",
    "--at": "VERSION",
    "--to": "VERSION",
    "--from": "VERSION",
    "--server": "HOST:PORT",
    "--ca": "FILE",
    "--script": "FILE",
    "--config": "JSON",
    "--players": "NAMES",
    "--bots": "NAMES",
    "--invitation": "CODE",
    "--reason": "TEXT",
    "--seed": "N",
    "--count": "N",
    "--rounds": "N",
    "--games-per-pair": "N",
    "--table-size": "N",
}


def _common_options(parser: argparse.ArgumentParser, top: bool) -> None:
    """The options every command takes. Given on the subcommand too (default SUPPRESS there, so a value
    given before the subcommand is not overwritten by the subcommand's default)."""

    def default(value: Any) -> Any:
        return value if top else argparse.SUPPRESS

    server = os.environ.get(SERVER_VARIABLE) or DEFAULT_SERVER
    parser.add_argument("--server", default=default(server), help=f"host:port of the server (${SERVER_VARIABLE})")
    var = os.environ.get(VAR_VARIABLE) or DEFAULT_VAR
    parser.add_argument(
        "--var",
        metavar="DIR",
        default=default(var),
        help=f"the server's data folder, where it keeps admin.token (${VAR_VARIABLE}, as the server reads it; "
        f"default ./{DEFAULT_VAR})",
    )
    parser.add_argument("--tls", action="store_true", default=default(False), help="connect with TLS")
    parser.add_argument("--ca", default=default(None), help="PEM file of the authority to trust (implies --tls)")
    parser.add_argument(
        "--insecure",
        action="store_true",
        default=default(False),
        help="send tokens in clear text to a non-loopback server anyway",
    )
    parser.add_argument("--json", action="store_true", default=default(False), help="print JSON for programs")


def _arena_commands(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """bot, challenge, tournament, leaderboard (clients/cli_arena.py)."""
    p = add(
        "bot",
        "admin or host key: register arena bots, list them, rotate or revoke a bot's key; "
        "log: what a bridged program wrote on stderr",
    )
    p.add_argument("action", choices=("create", "list", "rotate", "revoke", "log"))
    p.add_argument("name", nargs="?", help="the bot's name: 1-32 of [a-z0-9-], starting with a letter; log: the match")
    p.add_argument("--as", dest="as_", help="log: only this seat's log (default: every seat's)")
    p.add_argument("--auto-accept", action="store_true", help="create: the bot accepts every challenge by itself")
    p.add_argument("--reason", default="", help="rotate, revoke: why (revoke needs one)")
    p = add("challenge", "invite bots to an arena match (it starts once every bot accepted); or answer a challenge")
    p.add_argument("action", nargs="?", choices=("answer",), help="answer: accept or decline challenge ID")
    p.add_argument("challenge_id", nargs="?", metavar="ID")
    p.add_argument("--game")
    p.add_argument("--bots", help="comma-separated bot names, in seat order")
    p.add_argument("--config", help="JSON object or file of configuration overrides (clocks included)")
    p.add_argument("--token", help="a bot key: challenge as that bot, or answer for it")
    answer = p.add_mutually_exclusive_group()
    answer.add_argument("--accept", action="store_true")
    answer.add_argument("--decline", action="store_true")
    p = add("tournament", "arena tournaments: create (admin or host key), show, list, void a match (the organiser)")
    p.add_argument("action", choices=("create", "show", "list", "void"))
    p.add_argument("tournament", nargs="?", help="show, void: the tournament id")
    p.add_argument("match_id", nargs="?", metavar="MATCH", help="void: the match to strike from the standings")
    p.add_argument("--game")
    p.add_argument("--bots", help="comma-separated names of registered bots")
    p.add_argument("--format", choices=FORMATS, help="default: round-robin for cookoff, rotation for the others")
    p.add_argument("--games-per-pair", type=int, help="round-robin: games each pair plays (seats alternate)")
    p.add_argument("--rounds", type=int, help="rotation: rounds")
    p.add_argument("--table-size", type=int, help="rotation: bots per table (default: the game's)")
    p.add_argument("--config", help="JSON object or file of overrides for every match (clocks included)")
    p.add_argument("--name")
    p.add_argument("--seed", type=int, help="the draw's seed (default: drawn by the server, and recorded)")
    p.add_argument("--reason", default="", help="void: why (kept in the tournament's audit)")
    p.add_argument("--rematch", action="store_true", help="void: schedule a rematch on a new seed")
    p = add("leaderboard", "arena ratings of a game, from every finished arena match (voided ones excluded)")
    p.add_argument("--game", required=True)


def build_parser(description: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="matchctl",
        description=description,
        epilog=overview(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common_options(parser, top=True)
    common = argparse.ArgumentParser(add_help=False)
    _common_options(common, top=False)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, help: str) -> argparse.ArgumentParser:  # `help` shadows the builtin: argparse's own word
        return sub.add_parser(
            name,
            help=help,
            description=help,
            parents=[common],
            epilog=examples(name),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    def with_match(name: str, help_text: str) -> argparse.ArgumentParser:
        p = add(name, help=help_text)
        p.add_argument("match")
        p.add_argument("--as", dest="as_", help="a player's name, host or spectator (default: host if known)")
        p.add_argument("--token", help="use this token instead of the saved ones")
        return p

    p = add("create", help="create a match; you become its host")
    p.add_argument("game")
    p.add_argument("--players", required=True, help="comma-separated seat names")
    p.add_argument("--seed", type=int)
    p.add_argument("--config", help="JSON object or file of configuration overrides")
    p.add_argument("--private", action="store_true", help="spectators may not watch")
    p = add("join", help="claim a seat with its invitation (or fill it as host); saves the token")
    p.add_argument("match")
    p.add_argument("player")
    p.add_argument("--invitation", help="the seat's invitation code, from the host")
    p.add_argument("--reissue", action="store_true", help="host: give a claimed seat a new token")
    p.add_argument("--yes", action="store_true", help="do not ask before --reissue")
    p.add_argument("--token", help="the host's token (default: the saved one)")
    p = add("invite", help="host: a new invitation for a seat (the old one stops working)")
    p.add_argument("match")
    p.add_argument("player")
    p.add_argument("--token")
    p = add("host-key", help="admin: create, list or revoke host keys (who may create matches)")
    p.add_argument("action", choices=("create", "list", "revoke"))
    p.add_argument("name", nargs="?", help="create: who the key is for; revoke: the key id")
    p.add_argument("--reason", default="", help="revoke: why")
    p = with_match("submit", "submit a text command as a player")
    p.add_argument("text", nargs="+")
    p = with_match("state", "the match as you may see it")
    p.add_argument("--at", type=int, help="a past version")
    with_match("history", "the event log as you may see it")
    p = with_match("watch", "follow the match live")
    p.add_argument(
        "--from", dest="from_version", type=int, default=0, help="only the records after this version (default 0)"
    )
    p.add_argument("--until-finished", action="store_true", help="(the default now: watch ends with the match)")
    add("list", help="the matches on the server")
    p = with_match("end-phase", "host: end the current phase now (defaults apply)")
    p.add_argument("--reason", default="ended by the host")
    with_match(
        "transcript",
        "write a recorded match as a transcript (PLAYER: text lines); not a fork nor one reopened with a new seed",
    )
    for action, text in (
        ("pause", "stop the match clock"),
        ("resume", "restart the match clock"),
        ("start", "open a match that waits for its players now, whoever has joined"),
    ):
        p = with_match(action, f"host: {text}")
        p.add_argument("--reason", default="")
    p = with_match("cancel", "host: end the match now with no result (audited; no more submissions)")
    p.add_argument("--reason", required=True, help="why, kept in the match's log")
    p = with_match("extend", "host: give the current phase more time")
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--reason", default="")
    p = with_match("audit", "the ruling trace of every resolution, as you may see it")
    p.add_argument("--at", type=int, help="only up to this version")
    p = add("verify", help="re-run every recorded command with the current engine")
    p.add_argument("match", nargs="?")
    p.add_argument("--all", action="store_true", help="every match and the server's own streams (admin token)")
    p.add_argument("--identities", action="store_true", help="the host keys' and bots' stream (admin token)")
    p.add_argument("--arena", action="store_true", help="the arena's and every tournament's stream (admin token)")
    p.add_argument(
        "--receipts", action="store_true", help="also prove the log still holds every write receipt kept here"
    )
    p.add_argument("--as", dest="as_", default="host", help="a player's name, host or spectator (default: host)")
    p.add_argument("--token")
    p.add_argument("--tournament", help="re-derive an arena tournament from its log instead (anyone may)")
    p = with_match("rollback", "host: retract everything after a version (kept in the log)")
    p.add_argument("--to", type=int, required=True)
    p.add_argument("--reason", required=True)
    p.add_argument("--reopen", action="store_true", help="needed for a finished match: play on with a new seed")
    p = with_match("fork", "host: a new match starting as this one stood at a version")
    p.add_argument("--at", type=int, required=True)
    p.add_argument("--reason", default="")
    p = with_match("settle", "host: record a decision the rules leave to the host (e.g. a tie)")
    p.add_argument("--reason", required=True, help="the decision")
    p = add("token", help="keep a token you were given: admin TOKEN | host MATCH TOKEN | player MATCH NAME TOKEN")
    p.add_argument("role", choices=("admin", "host-key", "host", "player"))
    p.add_argument("values", nargs="+")
    p = with_match("picture", "the board as SVG, as you may see it")
    p.add_argument("--at", type=int, help="a past version")
    with_match("replay", "a self-contained HTML replay of the match (pictures at every version)")
    p = add("play-bots", help="create a match and play it with example bots over gRPC")
    p.add_argument("--game", required=True, help="; ".join(f"{g}: bots {', '.join(b)}" for g, (_, b) in BOTS.items()))
    p.add_argument("--players", help="comma-separated seat names (default: the game's default count)")
    p.add_argument("--count", type=int, help="number of seats (default: the game's usual count)")
    p.add_argument("--bots", help="comma-separated bot names, assigned round-robin")
    p.add_argument("--seed", type=int)
    p.add_argument("--config", help="JSON object or file of configuration overrides")
    p.add_argument("--verbose", "-v", action="store_true")
    _arena_commands(add)
    add_dispute_parser(add)
    p = add("bridge", help="run any program as a seat's bot (MATCH --as SEAT) or an arena bot: bridge -- PROGRAM ARGS")
    p.add_argument(
        "match", nargs="?", help="the match to play a seat of (none: an arena bot, with $MATCHSERVER_BOT_KEY)"
    )
    p.add_argument("--as", dest="as_", help="the seat to play (its token from the credentials file)")
    p.add_argument("--token", help="use this seat token (or bot key) instead of the saved one")
    p.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="the longest wait for the program's answer to one turn (also at most the turn's time left)",
    )
    p.add_argument("--verbose", "-v", action="store_true", help="one line per turn and per move")
    p.add_argument("--after", type=int, default=0, metavar="N", help="arena: resume after this notice")
    p.add_argument("--until-tournament", metavar="T", help="arena: stop when tournament T has finished")
    p = add("simulate", help="play a transcript in process (no server) and print the result JSON")
    p.add_argument("--game", help="default: from the script's first line")
    p.add_argument("--players", help="default: from the script's first line")
    p.add_argument("--seed", type=int, help="default: from the script's first line")
    p.add_argument("--config")
    p.add_argument("--script", required=True, help="file of PLAYER: text lines, or - for stdin")
    _name_values(parser)
    return parser


def _name_values(parser: argparse.ArgumentParser) -> None:
    """Give every option of `parser` and its subcommands the name of its value in VALUE_NAMES."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _name_values(sub)
        elif action.metavar is None and action.choices is None:
            named = [VALUE_NAMES[option] for option in action.option_strings if option in VALUE_NAMES]
            if named:
                action.metavar = named[0]
