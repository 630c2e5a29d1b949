"""Commands (frozen dataclasses) to JSON-plain dicts and back, for the store and for verify."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Iterable
from typing import Any

from engine.contract import Json
from engine.errors import MalformedCommand


def to_json(value: Any) -> Json:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Json] = {"type": type(value).__name__}
        for field in dataclasses.fields(value):
            out[field.name] = to_json(getattr(value, field.name))
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [to_json(item) for item in value]
    return value


def from_json(command_types: Iterable[type], data: Json) -> Any:
    """Rebuild a command written by `to_json`; MalformedCommand if it does not fit."""
    by_name = {cls.__name__: cls for cls in command_types}
    if not isinstance(data, dict) or data.get("type") not in by_name:
        raise MalformedCommand(f"unknown command {data!r}")
    return _build(by_name[data["type"]], data, by_name)


def _build(cls: type, data: dict[str, Json], by_name: dict[str, type]) -> Any:
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for field in dataclasses.fields(cls):
        if field.name in data:
            kwargs[field.name] = _convert(hints[field.name], data[field.name], by_name)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise MalformedCommand(f"{cls.__name__}: {exc}") from None


def _convert(hint: Any, value: Json, by_name: dict[str, type]) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        inner = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return _convert(inner[0], value, by_name)
    if origin is tuple:
        (item_hint, *_rest) = typing.get_args(hint)
        return tuple(_convert(item_hint, item, by_name) for item in value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _build(hint, value, by_name)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    return value
