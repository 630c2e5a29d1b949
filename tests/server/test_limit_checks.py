"""The pure limit checks at their edges: one under passes, one over is refused naming the setting."""

from __future__ import annotations

import json

import pytest

from engine.registry import get_game, shipped
from server.errors import BadRequest
from server.limits import (
    Limits,
    check_command_text,
    check_extend_seconds,
    check_game_config,
    check_reason,
    check_request_id,
    check_seat_name,
    cut,
    parse_config_json,
    request_size,
)

LIMITS = Limits()


def nested(depth: int) -> str:
    """A config object whose nesting (the object itself counted) is `depth` deep."""
    return '{"note": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


def test_the_defaults_are_the_issue_s_numbers() -> None:
    assert (LIMITS.max_request_bytes, LIMITS.max_command_text_bytes) == (1024 * 1024, 4096)
    assert (LIMITS.max_config_bytes, LIMITS.max_config_depth) == (65536, 32)
    assert (LIMITS.min_seat_name_chars, LIMITS.max_seat_name_chars) == (1, 32)
    assert (LIMITS.max_rounds, LIMITS.min_phase_seconds, LIMITS.max_phase_seconds) == (100, 1, 604800)
    assert LIMITS.max_error_detail_chars == 256


def test_request_size_edge() -> None:
    assert request_size(LIMITS.max_request_bytes, LIMITS) is None
    refusal = request_size(LIMITS.max_request_bytes + 1, LIMITS)
    assert refusal is not None and "max_request_bytes (1048576)" in refusal


def test_command_text_counts_utf8_bytes() -> None:
    check_command_text("x" * 4096, LIMITS)
    check_command_text("é" * 2048, LIMITS)  # 2 bytes each: exactly 4096
    with pytest.raises(BadRequest, match=r"4097 bytes, over max_command_text_bytes \(4096\)"):
        check_command_text("x" * 4097, LIMITS)
    with pytest.raises(BadRequest, match="max_command_text_bytes"):
        check_command_text("é" * 2049, LIMITS)


def test_config_size_edge() -> None:
    body = '{"a": 1}'
    assert parse_config_json(body + " " * (65536 - len(body)), LIMITS) == {"a": 1}
    with pytest.raises(BadRequest, match=r"config_json is 65537 bytes, over max_config_bytes \(65536\)"):
        parse_config_json(body + " " * (65537 - len(body)), LIMITS)


def test_config_depth_edge_is_counted_without_recursion() -> None:
    assert parse_config_json(nested(32), LIMITS)["note"]
    with pytest.raises(BadRequest, match=r"nested 33 deep, over max_config_depth \(32\)"):
        parse_config_json(nested(33), LIMITS)
    with pytest.raises(BadRequest, match="max_config_depth"):
        parse_config_json("[" * 30000, LIMITS)  # would be a RecursionError in json.loads


def test_brackets_inside_strings_are_not_nesting() -> None:
    text = json.dumps({"note": "[[[{{{" * 100 + '\\"]'})
    assert parse_config_json(text, LIMITS)["note"]


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", '[1, {"x": 1e400}]'])
def test_non_finite_numbers_are_refused_anywhere_in_a_config(number: str) -> None:
    with pytest.raises(BadRequest, match="finite"):
        parse_config_json(f'{{"deep": {{"value": {number}}}}}', LIMITS)


def test_integers_stay_within_what_json_clients_keep_exact() -> None:
    assert parse_config_json(f'{{"n": {2**53 - 1}, "m": {-(2**53 - 1)}}}', LIMITS)["n"] == 2**53 - 1
    with pytest.raises(BadRequest, match="max_config_integer"):
        parse_config_json(f'{{"n": {2**53}}}', LIMITS)
    with pytest.raises(BadRequest, match="config_json"):  # more digits than Python converts: not a crash
        parse_config_json('{"n": ' + "9" * 5000 + "}", LIMITS)


@pytest.mark.parametrize("text", ["[]", '"x"', "1", "{"])
def test_a_config_must_be_a_json_object(text: str) -> None:
    with pytest.raises(BadRequest, match="config_json"):
        parse_config_json(text, LIMITS)


def test_seat_name_edges() -> None:
    check_seat_name("a", LIMITS)
    check_seat_name("A_b.c-9" + "x" * 25, LIMITS)  # 32 characters
    with pytest.raises(BadRequest, match=r"33 characters.*max_seat_name_chars \(32\)"):
        check_seat_name("x" * 33, LIMITS)
    with pytest.raises(BadRequest, match="min_seat_name_chars"):
        check_seat_name("", LIMITS)
    for bad in ("a b", "ann:1", "é", "a\n", " ann"):
        with pytest.raises(BadRequest, match="seat_name_pattern"):
            check_seat_name(bad, LIMITS)


def test_a_huge_seat_name_is_refused_without_echoing_it() -> None:
    with pytest.raises(BadRequest) as refused:
        check_seat_name("x" * 900_000, LIMITS)
    assert len(str(refused.value)) < 200


@pytest.mark.parametrize(
    ("game", "key"),
    [("mining", "round_seconds"), ("mining", "setup_seconds"), ("last-gathering", "step_seconds")],
)
def test_phase_seconds_edges(game: str, key: str) -> None:
    for seconds in (1, 604800, 0.5 + 1):
        check_game_config(get_game(game), {key: seconds}, LIMITS)
    with pytest.raises(BadRequest, match=r"max_phase_seconds \(604800\)"):
        check_game_config(get_game(game), {key: 604801}, LIMITS)
    with pytest.raises(BadRequest, match=r"min_phase_seconds \(1\)"):
        check_game_config(get_game(game), {key: 0.999}, LIMITS)


def test_cookoff_phase_times_and_reserve() -> None:
    check_game_config(get_game("cookoff"), {"times": {"gathering": 604800, "moves": 1}, "reserve": 0}, LIMITS)
    with pytest.raises(BadRequest, match=r"times\.moves.*max_phase_seconds"):
        check_game_config(get_game("cookoff"), {"times": {"gathering": 60, "moves": 604801}}, LIMITS)
    with pytest.raises(BadRequest, match=r"reserve.*max_phase_seconds"):
        check_game_config(get_game("cookoff"), {"reserve": 604801}, LIMITS)


@pytest.mark.parametrize("game", shipped())
def test_rounds_edge(game: str) -> None:
    check_game_config(get_game(game), {"rounds": 100}, LIMITS)
    with pytest.raises(BadRequest, match=r"rounds is 101, over max_rounds \(100\)"):
        check_game_config(get_game(game), {"rounds": 101}, LIMITS)


def test_a_whole_config_must_hold_finite_numbers_even_for_an_unknown_game() -> None:
    check_game_config(get_game("duel"), {"duration": 1e300}, LIMITS)
    with pytest.raises(BadRequest, match="finite"):
        check_game_config(get_game("duel"), {"duration": float("nan")}, LIMITS)


def test_extend_seconds() -> None:
    check_extend_seconds(604800, LIMITS)
    with pytest.raises(BadRequest, match=r"max_extend_seconds \(604800\)"):
        check_extend_seconds(604800.5, LIMITS)
    for value in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(BadRequest, match="finite"):
            check_extend_seconds(value, LIMITS)


def test_reason_edge() -> None:
    check_reason("r" * 1024, LIMITS)
    with pytest.raises(BadRequest, match=r"1025 characters, over max_reason_chars \(1024\)"):
        check_reason("r" * 1025, LIMITS)


def test_request_id_edge() -> None:
    check_request_id("k" * 64, LIMITS)
    with pytest.raises(BadRequest, match=r"65 characters, over max_request_id_chars \(64\)"):
        check_request_id("k" * 65, LIMITS)
    with pytest.raises(BadRequest, match="A-Z, a-z, 0-9"):
        check_request_id("semi;colon", LIMITS)


def test_error_details_are_cut() -> None:
    assert cut("x" * 256, LIMITS) == "x" * 256
    long = cut("y" * 1_000_000, LIMITS)
    assert len(long) == 256 and long.endswith("...")


def test_limits_are_settings() -> None:
    small = Limits(max_command_text_bytes=10, max_rounds=3)
    check_command_text("x" * 10, small)
    with pytest.raises(BadRequest, match=r"max_command_text_bytes \(10\)"):
        check_command_text("x" * 11, small)
    with pytest.raises(BadRequest, match=r"max_rounds \(3\)"):
        check_game_config(get_game("mining"), {"rounds": 4}, small)
