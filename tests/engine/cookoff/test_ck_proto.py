"""The protobuf messages match the command dataclasses by name (the server converts by name)."""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path

from engine.cookoff import GAME
from engine.cookoff.commands import HarvesterSend, Move, Placement

PROTO = Path(__file__).resolve().parents[3] / "protos" / "matchserver" / "cookoff" / "v1" / "cookoff.proto"


def messages() -> dict[str, dict[str, str]]:
    text = PROTO.read_text()
    out: dict[str, dict[str, str]] = {}
    for name, body in re.findall(r"message (\w+) \{(.*?)\n\}", text, re.S):
        fields = re.findall(r"^\s*((?:repeated |optional )?\w+) (\w+) = \d+;", body, re.M)
        out[name] = {field: kind for kind, field in fields}
    return out


def proto_type(hint: object) -> str:
    if typing.get_origin(hint) is tuple:
        return "repeated " + proto_type(typing.get_args(hint)[0])
    return {int: "int32", str: "string", bool: "bool"}.get(hint, getattr(hint, "__name__", ""))  # type: ignore[call-overload]


def test_every_command_dataclass_has_a_message_with_the_same_fields() -> None:
    found = messages()
    for cls in (*GAME.command_types, HarvesterSend, Placement, Move):
        hints = typing.get_type_hints(cls)
        expected = {f.name: proto_type(hints[f.name]) for f in dataclasses.fields(cls)}
        assert found[cls.__name__] == expected, cls.__name__


def test_the_command_wrapper_lists_every_command_type() -> None:
    wrapper = messages()["Command"]
    snake = {re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower(): cls.__name__ for cls in GAME.command_types}
    assert wrapper == snake
