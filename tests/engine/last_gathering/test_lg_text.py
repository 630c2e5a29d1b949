"""Text commands in the rule text's words, and their inverse `format`."""

from __future__ import annotations

import json

import pytest
from lg_helpers import in_steps, new_match

from engine.errors import MalformedCommand
from engine.last_gathering import GAME
from engine.last_gathering.commands import FrameBid, Placement, Submit, TileBid

STATE = new_match().state


def parse(text: str) -> Submit:
    return GAME.parse(STATE, "Ann", text)


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("bid 3 on frame F2", Submit(frame_bid=FrameBid("F2", 3))),
        ("Bid 3 garnets for the frame f6", Submit(frame_bid=FrameBid("F6", 3))),
        ("bid 3 junction", Submit(tile_bid=TileBid(3, "junction"))),
        ("bid 5 bend with sheep on A", Submit(tile_bid=TileBid(5, "bend", "A"))),
        ("BID 5 GARNETS ON A BEND TILE WITH AN EXTRA SHEEP ON SECTION b", Submit(tile_bid=TileBid(5, "bend", "B"))),
        ("bid 0 -", Submit(tile_bid=TileBid(0, "end"))),
        (
            "bid 3 garnets to choose a junction (T) tile with an extra sheep on section B.",
            Submit(tile_bid=TileBid(3, "junction", "B")),
        ),
        ("place C2 rotated 270 degrees clockwise", Submit(placement=Placement("C2", 270))),
        ("bid 1 I", Submit(tile_bid=TileBid(1, "straight"))),
        ("bid 1 l", Submit(tile_bid=TileBid(1, "bend"))),
        ("bid 2 T with sheep on C", Submit(tile_bid=TileBid(2, "junction", "C"))),
        ("bid 2 +", Submit(tile_bid=TileBid(2, "cross"))),
        ("place B3 rotate 90", Submit(placement=Placement("B3", 90))),
        ("place d4", Submit(placement=Placement("D4", 0))),
        ("end early", Submit(end_early=True)),
        (
            "bid 3 junction; place b3 rotate 270\nEnd Early",
            Submit(tile_bid=TileBid(3, "junction"), placement=Placement("B3", 270), end_early=True),
        ),
    ],
)
def test_text_in_the_rule_texts_words_parses_case_insensitively(text: str, command: Submit) -> None:
    assert parse(text) == command


@pytest.mark.parametrize(
    "command",
    [
        Submit(frame_bid=FrameBid("F2", 3)),
        Submit(frame_bid=FrameBid("F5", 0), end_early=True),
        Submit(tile_bid=TileBid(4, "cross", "D")),
        Submit(tile_bid=TileBid(0, "end")),
        Submit(placement=Placement("A1", 180)),
        Submit(tile_bid=TileBid(1, "straight", "B"), placement=Placement("C4", 90), end_early=True),
        Submit(end_early=True),
    ],
)
def test_format_is_the_inverse_of_parse(command: Submit) -> None:
    assert parse(GAME.format(command)) == command


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("bid three junction", "'bid three junction'"),
        ("bid 3 hexagon", "'bid 3 hexagon'"),
        ("place E5 rotate 90", "'place E5 rotate 90'"),
        ("bid 3 junction; dance", "'dance'"),
        ("", "empty submission"),
    ],
)
def test_text_that_does_not_parse_quotes_the_part_not_understood_and_the_expected_form(text: str, quoted: str) -> None:
    with pytest.raises(MalformedCommand) as info:
        parse(text)
    assert quoted in str(info.value)
    if text:
        assert "expected orders such as 'bid 3 on frame F2'" in str(info.value)


def test_a_rotation_that_is_not_a_quarter_turn_is_malformed() -> None:
    with pytest.raises(MalformedCommand, match="rotation 45 in 'place B3 rotate 45' is not 0, 90, 180 or 270"):
        parse("place B3 rotate 45")


def test_two_orders_of_one_kind_in_one_message_are_malformed() -> None:
    with pytest.raises(MalformedCommand, match="two tile bids in one submission"):
        parse("bid 3 junction; bid 4 cross")


def test_commands_built_without_text_are_checked_the_same_way() -> None:
    """The server builds commands from protobuf: shapes are checked in decide too."""
    match = in_steps()
    from engine.match import submit

    for bad in (
        Submit(tile_bid=TileBid(1, "hexagon")),
        Submit(tile_bid=TileBid(-1, "cross")),
        Submit(placement=Placement("Z9", 0)),
        Submit(),
    ):
        with pytest.raises(MalformedCommand):
            submit(GAME, match.state, "Ann", bad, match._ctx(0))
    events = submit(GAME, match.state, "Ann", Submit(tile_bid=TileBid(1, "T", "a")), match._ctx(0))
    assert events[0]["tile_bid"] == {"bid": 1, "kind": "junction", "sheep": "A"}


@pytest.mark.parametrize(
    "command",
    [
        Submit(frame_bid=FrameBid("F2", 3)),
        Submit(tile_bid=TileBid(4, "cross", "D"), placement=Placement("C4", 90), end_early=True),
        Submit(end_early=True),
    ],
)
def test_commands_round_trip_through_the_stored_json_form(command: Submit) -> None:
    from engine.codec import from_json, to_json

    data = to_json(command)
    assert json.loads(json.dumps(data)) == data
    assert from_json(GAME.command_types, data) == command
