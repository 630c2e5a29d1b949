"""Names `matchctl` checks before it asks the server for anything: games, bots, seats, match ids.

A wrong name is found here, with the names that would do, before a match is created (a bad bot name
found after creating would leave a match nobody plays). Errors are `UsageError`: one line, exit 2.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc

from clients.bots import BOTS
from clients.credentials import admin_token_path
from engine.registry import available

PREFIX_DIGITS = 8  # a shorter prefix would too often name two matches
HEX = re.compile(r"^[0-9a-f]+$")


class UsageError(Exception):
    """A command line that cannot work: said in one line with what would."""


def games() -> list[str]:
    return available()


def check_game(game: str) -> str:
    if game not in games():
        raise UsageError(f"unknown game {game!r}; games: {', '.join(games())}")
    return game


def bots_for(game: str) -> tuple[str, ...]:
    check_game(game)
    if game not in BOTS:
        raise UsageError(f"no example bots for {game!r}; bots exist for: {', '.join(BOTS)}")
    return BOTS[game][1]


def check_bots(game: str, names: Sequence[str]) -> list[str]:
    known = bots_for(game)
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        raise UsageError(f"unknown bot {', '.join(unknown) or '(none)'} for {game}; bots: {', '.join(known)}")
    return list(names)


def check_players(names: Sequence[str]) -> list[str]:
    """Seat names: none empty, none twice (the server says the rest, such as how many a game seats)."""
    cleaned = [name.strip() for name in names]
    if not cleaned or any(not name for name in cleaned):
        raise UsageError("--players needs comma-separated seat names, none empty (e.g. --players ann,bob)")
    twice = sorted({name for name in cleaned if cleaned.count(name) > 1})
    if twice:
        raise UsageError(f"seat names must differ; given twice: {', '.join(twice)}")
    return cleaned


def read_config(text: str | None) -> dict[str, Any]:
    """--config: a JSON object, or a file holding one."""
    if not text:
        return {}
    path = Path(text)
    value = json.loads(path.read_text() if path.exists() else text)
    if not isinstance(value, dict):
        raise UsageError("--config must be a JSON object (or a file holding one)")
    return value


def resolve_match(text: str, listed: Sequence[str]) -> str:
    """A whole match id, from a unique prefix of at least PREFIX_DIGITS hex digits of one the caller lists."""
    digits = text.replace("-", "").lower()
    matches = sorted({match_id for match_id in listed if match_id.replace("-", "").startswith(digits)})
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UsageError(f"no match of yours starts with {text!r} (`matchctl list` shows them)")
    raise UsageError(f"{text!r} names {len(matches)} matches ({', '.join(m[:12] for m in matches[:3])}...): give more")


def check_match_id(text: str) -> str:
    """A match id as given, unless it is a prefix too short to resolve: refused, saying so."""
    digits = text.replace("-", "").lower()
    if HEX.match(digits) is not None and len(digits) < PREFIX_DIGITS:  # (other text: the server says)
        raise UsageError(
            f"a match prefix needs {PREFIX_DIGITS} or more hex digits; {text!r} has {len(digits)} "
            "(`matchctl list` shows the ids)"
        )
    return text


def is_prefix(text: str) -> bool:
    """Whether `text` is a short match id worth resolving (a whole id, 32 hex digits, is used as given)."""
    digits = text.replace("-", "").lower()
    return PREFIX_DIGITS <= len(digits) < 32 and HEX.match(digits) is not None


CONNECT_HINT = "check that `matchserver` runs at that address (--server HOST:PORT or MATCHCTL_SERVER)"


ARENA_TOKEN_HINT = "the admin token or a host key (`matchctl token admin|host-key`), or a bot key with --token"
MATCH_TOKEN_HINT = "a token for this match: `matchctl join`, `matchctl token`, or --token"


def admin_hint(var_dir: str) -> str:
    """How to give matchctl the admin token or a host key, naming the file it looked for."""
    path = admin_token_path(var_dir).absolute()
    return (
        f"matchctl reads the admin token from the server's {path} (name the server's data folder with "
        "--var DIR or MATCHSERVER_VAR), or save the admin token or a host key with `matchctl token admin "
        "TOKEN` or `matchctl token host-key KEY`"
    )


def rpc_error_line(exc: grpc.RpcError, server: str, arena: bool = False, admin: str | None = None) -> str:
    """One line for a refused call, with a hint where one helps (`arena`: an arena command's credentials;
    `admin`: the command needs the admin token or a host key, this the hint that says how to give one)."""
    code = exc.code()
    details = exc.details() or ""
    if code == grpc.StatusCode.UNAVAILABLE:
        why = details.splitlines()[0] if details else "unavailable"
        return f"no server answers at {server} ({why}); {CONNECT_HINT}"
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return f"the server at {server} did not answer in time; {CONNECT_HINT}"
    if code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED) and admin:
        return f"{code.name}: {details} ({admin})"
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return f"{code.name}: {details} ({ARENA_TOKEN_HINT if arena else MATCH_TOKEN_HINT})"
    return f"{code.name}: {details}"
