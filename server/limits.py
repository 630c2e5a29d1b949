"""Size and value limits on what a request may carry or store, each a named setting.

Every check is a pure function that raises BadRequest (INVALID_ARGUMENT) with a message naming the
setting, so a client learns which limit it hit. The checks run before anything is written: a refused
request stores nothing. The game-specific bounds (rounds, phase seconds) name the games' own config
keys here, in the server: the engine keeps its own validation and stays standard-library only.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.contract import Game, Json
from server.errors import BadRequest

MIB = 1024 * 1024
WEEK = 7 * 24 * 60 * 60


@dataclass(frozen=True)
class Limits:
    max_request_bytes: int = MIB
    max_command_text_bytes: int = 4096
    max_config_bytes: int = 64 * 1024
    max_config_depth: int = 32
    # JSON integers past 2**53 do not survive a round trip through most clients' doubles.
    max_config_integer: int = 2**53 - 1
    seat_name_pattern: str = r"[A-Za-z0-9_.-]+"
    min_seat_name_chars: int = 1
    max_seat_name_chars: int = 32
    max_rounds: int = 100
    min_phase_seconds: float = 1
    max_phase_seconds: float = WEEK
    max_extend_seconds: float = WEEK
    max_error_detail_chars: int = 256
    max_reason_chars: int = 1024
    # A dispute's text (server/disputes/), and how many one seat (or the host) may hold open at once.
    max_dispute_chars: int = 1000
    max_open_disputes_per_seat: int = 3
    max_request_id_chars: int = 64  # of [A-Za-z0-9_-] (REQUEST_ID_PATTERN)
    # Where a submission may be replaced, each replacement is a record: one seat's in one phase.
    max_submissions_per_seat_per_phase: int = 50
    # The records one Audit page walks, whatever the match's length (the next page goes on from there).
    max_audit_records_per_page: int = 2000


def request_size(size: int, limits: Limits) -> str | None:
    """The refusal for a request of `size` bytes, or None when it fits."""
    if size > limits.max_request_bytes:
        return f"the request is {size} bytes, over max_request_bytes ({limits.max_request_bytes})"
    return None


def cut(text: str, limits: Limits) -> str:
    """An error detail of at most max_error_detail_chars characters, so no huge input is echoed back."""
    most = limits.max_error_detail_chars
    return text if len(text) <= most else text[: max(0, most - 3)] + "..."


def check_command_text(text: str, limits: Limits) -> None:
    size = len(text.encode("utf-8"))
    if size > limits.max_command_text_bytes:
        raise BadRequest(
            f"the command text is {size} bytes, over max_command_text_bytes ({limits.max_command_text_bytes})"
        )


def check_reason(reason: str, limits: Limits, field: str = "reason") -> None:
    if len(reason) > limits.max_reason_chars:
        raise BadRequest(f"{field} is {len(reason)} characters, over max_reason_chars ({limits.max_reason_chars})")


REQUEST_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]+")


def check_request_id(request_id: str, limits: Limits) -> None:
    """A client's key for an idempotent write (server/requests.py), not a payload."""
    if len(request_id) > limits.max_request_id_chars:
        raise BadRequest(
            f"request_id is {len(request_id)} characters, over max_request_id_chars ({limits.max_request_id_chars})"
        )
    if not REQUEST_ID_PATTERN.fullmatch(request_id):
        raise BadRequest(f"request_id {request_id!r} must be characters of A-Z, a-z, 0-9, _ and - only")


def check_seat_name(name: str, limits: Limits, field: str = "player") -> None:
    low, high = limits.min_seat_name_chars, limits.max_seat_name_chars
    if not low <= len(name) <= high:
        raise BadRequest(
            f"{field} is {len(name)} characters; seat names are min_seat_name_chars ({low}) "
            f"to max_seat_name_chars ({high}) characters"
        )
    if re.fullmatch(limits.seat_name_pattern, name) is None:
        raise BadRequest(f"{field} {name!r} does not match seat_name_pattern ({limits.seat_name_pattern})")


def check_seat_names(names: Iterable[str], limits: Limits) -> None:
    for index, name in enumerate(names):
        check_seat_name(name, limits, f"players[{index}]")


def _refuse_constant(name: str) -> Any:
    raise BadRequest(f"config_json holds {name}: every number must be finite (JSON has no NaN or Infinity)")


def _nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects, counted on the text so a deep input never recurses."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def parse_config_json(text: str, limits: Limits, field: str = "config_json") -> dict[str, Json]:
    """A request's config overrides: a JSON object within the size, depth and number limits."""
    size = len(text.encode("utf-8"))
    if size > limits.max_config_bytes:
        raise BadRequest(f"{field} is {size} bytes, over max_config_bytes ({limits.max_config_bytes})")
    if not text.strip():
        return {}
    brackets = text.count("[") + text.count("{")
    depth = _nesting_depth(text) if brackets > limits.max_config_depth else brackets
    if depth > limits.max_config_depth:
        raise BadRequest(f"{field} is nested {depth} deep, over max_config_depth ({limits.max_config_depth})")
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise BadRequest(f"{field} is not valid JSON: {exc}") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more digits than Python converts
        raise BadRequest(f"{field} is not usable JSON: {exc}") from None
    if not isinstance(value, dict):
        raise BadRequest(f"{field} must be a JSON object")
    check_numbers(value, limits, field)
    return value


def check_numbers(value: Json, limits: Limits, where: str) -> None:
    """Every number finite (1e999 parses to inf) and every integer within max_config_integer."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BadRequest(f"{where} is {value}: every number must be finite")
    elif isinstance(value, int):
        if abs(value) > limits.max_config_integer:
            raise BadRequest(f"{where} is an integer over max_config_integer ({limits.max_config_integer})")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            check_numbers(item, limits, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            check_numbers(item, limits, f"{where}[{index}]")


def check_game_config(game: Game[Any, Any], config: Mapping[str, Json], limits: Limits) -> None:
    """The game-specific bounds on a whole configuration (defaults merged with the overrides): the keys
    the game names as rounds, phase seconds and reserve seconds (engine/contract.py)."""
    check_numbers(dict(config), limits, "config")
    for key in game.round_keys:
        rounds = _number(config.get(key))
        if rounds is not None and rounds > limits.max_rounds:
            raise BadRequest(f"config {key} is {rounds}, over max_rounds ({limits.max_rounds})")
    for key in game.phase_seconds_keys:
        value = config.get(key)
        if isinstance(value, Mapping):
            for phase, seconds in value.items():
                check_phase_seconds(seconds, limits, f"config {key}.{phase}")
        else:
            check_phase_seconds(value, limits, f"config {key}")
    for key in game.reserve_seconds_keys:
        reserve = _number(config.get(key))
        if reserve is not None and reserve > limits.max_phase_seconds:
            raise BadRequest(
                f"config {key} is {reserve} seconds, over max_phase_seconds ({limits.max_phase_seconds:g})"
            )


def check_phase_seconds(value: Json, limits: Limits, where: str) -> None:
    """Seconds of a phase within min_phase_seconds..max_phase_seconds (other types: the engine says)."""
    seconds = _number(value)
    low, high = limits.min_phase_seconds, limits.max_phase_seconds
    if seconds is not None and not low <= seconds <= high:
        raise BadRequest(
            f"{where} is {seconds} seconds; phases last min_phase_seconds ({low:g}) to max_phase_seconds ({high:g})"
        )


def check_extend_seconds(seconds: float, limits: Limits) -> None:
    if not math.isfinite(seconds):
        raise BadRequest(f"seconds is {seconds}: extend by a finite number of seconds")
    if seconds > limits.max_extend_seconds:
        raise BadRequest(f"seconds is {seconds:g}, over max_extend_seconds ({limits.max_extend_seconds:g})")


def _number(value: object) -> float | None:
    """The value when it is a JSON number; other types are left to the engine's own checks."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return None


def match_config(
    game: Game[Any, Any], players: Sequence[str], overrides: Mapping[str, Json], limits: Limits
) -> dict[str, Json]:
    """A new match's whole configuration: the game's defaults for these seats with the overrides on top,
    the game's bounds checked (a host's match, a bot match alike; the seat names are checked first)."""
    config = game.default_config(players)
    config.update(overrides)
    config["players"] = list(players)
    check_game_config(game, config, limits)
    return config
