"""Commands (frozen dataclasses) to JSON-plain dicts and back, for the store and for verify.

Decoding runs on every fold of a recorded command (Cookoff's `submission_received`), so each class's
field converters are worked out from its type hints once and cached: `typing.get_type_hints` per
event was 42% of Cookoff's fold. The cache is keyed by the class itself, never by its name.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any

from engine.contract import Json
from engine.errors import MalformedCommand

# A field's converter from its JSON value; None where the JSON value is used as it is.
Converter = Callable[[Json], Any] | None


def to_json(value: Any) -> Json:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Json] = {"type": type(value).__name__}
        for name in _field_names(type(value)):
            out[name] = to_json(getattr(value, name))
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [to_json(item) for item in value]
    return value


def from_json(command_types: Iterable[type], data: Json) -> Any:
    """Rebuild a command written by `to_json`; MalformedCommand if it does not fit."""
    by_name = _by_name(command_types) if isinstance(command_types, tuple) else _names(command_types)
    if not isinstance(data, dict) or data.get("type") not in by_name:
        raise MalformedCommand(f"unknown command {data!r}")
    return _decoder(by_name[data["type"]])(data)


def _names(command_types: Iterable[type]) -> dict[str, type]:
    return {cls.__name__: cls for cls in command_types}


_by_name = functools.cache(_names)


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(field.name for field in dataclasses.fields(cls))


@functools.cache
def _decoder(cls: type) -> Callable[[dict[str, Json]], Any]:
    """The function that builds `cls` from its JSON dict: fields absent from the dict take their default."""
    hints = typing.get_type_hints(cls)
    fields = tuple((field.name, _converter(hints[field.name])) for field in dataclasses.fields(cls))

    def build(data: dict[str, Json]) -> Any:
        kwargs = {}
        for name, convert in fields:
            if name in data:
                kwargs[name] = data[name] if convert is None else convert(data[name])
        try:
            return cls(**kwargs)
        except (TypeError, ValueError) as exc:
            raise MalformedCommand(f"{cls.__name__}: {exc}") from None

    return build


def _converter(hint: Any) -> Converter:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        inner = _converter(next(arg for arg in typing.get_args(hint) if arg is not type(None)))
        if inner is None:
            return None
        optional: Callable[[Json], Any] = inner
        return lambda value: None if value is None else optional(value)
    if origin is tuple:
        item = _converter(typing.get_args(hint)[0])
        if item is None:
            return tuple
        each: Callable[[Json], Any] = item
        return lambda value: tuple(each(v) for v in value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        nested: type = hint
        return lambda value: _decoder(nested)(value)  # looked up when used: a class may refer to itself
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint
    return None
