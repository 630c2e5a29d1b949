"""The only module that converts between generated protobuf messages and engine/server values."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Iterable
from typing import Any

from google.protobuf.message import Message

from engine.contract import Game, Status
from engine.errors import MalformedCommand
from matchserver.v1 import matchserver_pb2 as pb
from server.errors import BadRequest
from server.records import Receipt, Record

# GameCommand's field for each game (the game's own proto package wraps its commands in `Command`).
GAME_FIELDS = {"last-gathering": "last_gathering", "cookoff": "cookoff", "mining": "mining"}


def game_command(game: Game, typed: pb.GameCommand) -> Any:
    """A typed protobuf command -> the game's command dataclass, matched by message and field names."""
    which = typed.WhichOneof("game")
    expected = GAME_FIELDS.get(game.name)
    if which is None:
        raise MalformedCommand(f"the typed command is empty; set the {expected!r} field for a {game.name} match")
    if which != expected:
        raise MalformedCommand(f"this is a {game.name} match; the command is for {which!r}")
    wrapper: Message = getattr(typed, which)
    kind = wrapper.WhichOneof("kind")
    if kind is None:
        raise MalformedCommand(f"the {game.name} command is empty; choose one of its kinds")
    return message_to_dataclass(getattr(wrapper, kind), game.command_types)


def message_to_dataclass(message: Message, command_types: Iterable[type]) -> Any:
    by_name = {cls.__name__: cls for cls in command_types}
    return _build(message, by_name)


def _build(message: Message, by_name: dict[str, type]) -> Any:
    name = message.DESCRIPTOR.name
    cls = by_name.get(name) or _nested_class(name, by_name)
    if cls is None:
        raise MalformedCommand(f"unknown command message {name!r}")
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        optional, inner = _unwrap_optional(hint)
        if optional and message.DESCRIPTOR.fields_by_name[field.name].has_presence:
            if not message.HasField(field.name):
                kwargs[field.name] = None
                continue
        kwargs[field.name] = _value(inner, getattr(message, field.name), by_name)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise MalformedCommand(f"{name}: {exc}") from None


def _nested_class(name: str, by_name: dict[str, type]) -> type | None:
    """Nested dataclasses are not in command_types; find them through the fields' type hints."""
    seen: set[type] = set()
    stack = list(by_name.values())
    while stack:
        cls = stack.pop()
        if cls in seen:
            continue
        seen.add(cls)
        if cls.__name__ == name:
            return cls
        for hint in typing.get_type_hints(cls).values():
            for arg in (hint, *typing.get_args(hint), *(a for h in typing.get_args(hint) for a in typing.get_args(h))):
                if isinstance(arg, type) and dataclasses.is_dataclass(arg):
                    stack.append(arg)
    return None


def _unwrap_optional(hint: Any) -> tuple[bool, Any]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return True, args[0]
    return False, hint


def _value(hint: Any, value: Any, by_name: dict[str, type]) -> Any:
    if typing.get_origin(hint) is tuple:
        item = typing.get_args(hint)[0]
        return tuple(_value(item, element, by_name) for element in value)
    if isinstance(value, Message):
        return _build(value, by_name)
    return value


def status_message(status: Status, paused: bool = False) -> pb.Status:
    out = pb.Status(
        phase=status.phase,
        awaiting=sorted(status.awaiting),
        submitted=sorted(status.submitted),
        finished=status.finished,
        binding=status.binding,
        paused=paused,
    )
    if status.deadline is not None:
        out.deadline = status.deadline
    return out


def event_message(version: int, record: Record, retracted: bool = False) -> pb.Event:
    event = record.get("event") or {}
    return pb.Event(
        version=version,
        kind=str(record.get("kind", "")),
        type=str(event.get("type", "")) if isinstance(event, dict) else "",
        json=json.dumps(record, sort_keys=True),
        at=float(record.get("at") or 0.0),
        retracted=retracted,
    )


def receipt_message(receipt: Receipt) -> pb.Receipt:
    return pb.Receipt(version=receipt.version, chain_head=receipt.chain_head, key_id=receipt.key_id)


def receipt_value(message: pb.Receipt) -> Receipt:
    if message.version < 1:
        raise BadRequest(f"a receipt's version must be 1 or more, not {message.version}")
    if not message.chain_head:
        raise BadRequest(f"the receipt for version {message.version} has no chain_head")
    return Receipt(message.version, message.chain_head, message.key_id)
