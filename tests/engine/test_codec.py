"""The command codec decodes by each class's own field types, from a cache built once per class.

Decoding runs on every fold of a recorded command, so each class's converters are cached: a cache keyed
wrongly (by class name, by field name, or filled by another class first) would hand back a value of the
wrong type. These tests decode classes that share names, in both orders, twice over (cold, then cached).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from pathlib import Path
from typing import Any

import pytest

from engine import codec, registry
from engine.cookoff import GAME as COOKOFF
from engine.errors import MalformedCommand
from engine.match import LocalMatch
from engine.transcript import build_config, play_script, script_header

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass(frozen=True, slots=True)
class Token:
    colour: Colour
    count: int


@dataclasses.dataclass(frozen=True, slots=True)
class Pay:
    amount: tuple[Token, ...]  # "amount" is tokens here...
    note: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Paint:
    amount: Colour  # ...and a colour here
    note: Token | None = None


class Before:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Bid:
        amount: int


class After:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Bid:  # the same class name as Before.Bid, another field type
        amount: Colour


def stored(command: Any) -> Any:
    """What the store gives back: the command's JSON, written out as text and read again."""
    return json.loads(json.dumps(codec.to_json(command)))


def test_fields_of_the_same_name_decode_to_their_own_class_types_cold_and_cached() -> None:
    pay = Pay((Token(Colour.RED, 2), Token(Colour.BLUE, 1)), note="rent")
    paint = Paint(Colour.BLUE, note=Token(Colour.RED, 1))
    for _cold_then_cached in range(2):
        for command in (paint, pay, Paint(Colour.RED), Pay(())):
            decoded = codec.from_json((Pay, Paint), stored(command))
            assert decoded == command and type(decoded) is type(command)
            assert type(decoded.amount) is type(command.amount)
    assert codec.from_json([Paint], stored(paint)) == paint  # any iterable of command types


def test_classes_of_the_same_name_decode_by_the_types_they_were_given() -> None:
    for _cold_then_cached in range(2):
        old = codec.from_json((Before.Bid,), {"type": "Bid", "amount": 3})
        new = codec.from_json((After.Bid,), {"type": "Bid", "amount": "red"})
        assert type(old) is Before.Bid and old.amount == 3
        assert type(new) is After.Bid and new.amount is Colour.RED


def test_a_command_that_does_not_fit_is_malformed_every_time() -> None:
    for _cold_then_cached in range(2):
        with pytest.raises(MalformedCommand, match="unknown command"):
            codec.from_json((Pay, Paint), {"type": "Bid", "amount": 3})
        with pytest.raises(MalformedCommand, match="Paint"):
            codec.from_json((Pay, Paint), {"type": "Paint"})  # no amount


def sample(hint: Any) -> Any:
    """A value of every field, for a round trip of any command type: optional fields are filled, tuples
    hold two items, so every nested type is encoded and decoded."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return sample(next(arg for arg in typing.get_args(hint) if arg is not type(None)))
    if origin is tuple:
        return (sample(typing.get_args(hint)[0]),) * 2
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        return hint(**{field.name: sample(hints[field.name]) for field in dataclasses.fields(hint)})
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return next(iter(hint))
    return {str: "A1", int: 2, bool: True, float: 1.5}[hint]


@pytest.mark.parametrize("game_name", registry.shipped())
def test_every_command_type_of_every_game_round_trips(game_name: str) -> None:
    game = registry.get_game(game_name)
    for _cold_then_cached in range(2):
        for command_type in game.command_types:
            command = sample(command_type)
            decoded = codec.from_json(game.command_types, stored(command))
            assert decoded == command and type(decoded) is command_type  # dataclass == compares types too


def test_every_command_recorded_in_the_cookoff_golden_match_decodes_to_what_was_recorded() -> None:
    lines = (GOLDEN / "cookoff" / "match.txt").read_text().splitlines()
    seed, players = script_header(lines)
    match = play_script(COOKOFF, LocalMatch(COOKOFF, build_config(COOKOFF, players, None), seed), lines)
    recorded = [event["command"] for event in match.events if event["type"] == "submission_received"]
    assert len({command["type"] for command in recorded}) == len(COOKOFF.command_types)
    for command in recorded:
        assert codec.to_json(codec.from_json(COOKOFF.command_types, command)) == command
