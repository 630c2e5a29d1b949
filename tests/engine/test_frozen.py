"""engine.frozen.replace gives exactly what dataclasses.replace gives, for every state class of every game."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from dataclasses import dataclass, field

import pytest

from engine.frozen import replace


@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0
    label: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Positive:
    value: int

    def __post_init__(self) -> None:
        if self.value <= 0:
            raise ValueError("not positive")


@dataclass(frozen=True)
class Plain:  # no slots
    value: int
    other: int = 1


def test_a_replaced_value_is_a_new_equal_frozen_value_and_the_old_one_is_unchanged() -> None:
    old = Point(1, 2, "a")
    new = replace(old, y=5, label="b")
    assert new == dataclasses.replace(old, y=5, label="b") and (new.x, new.y, new.label) == (1, 5, "b")
    assert old == Point(1, 2, "a") and old.label == "a"
    assert replace(old) == old and replace(old) is not old
    with pytest.raises(dataclasses.FrozenInstanceError):
        new.x = 3  # type: ignore[misc]
    assert hash(new) == hash(Point(1, 5))


def test_an_unknown_field_is_refused_as_dataclasses_replace_refuses_it() -> None:
    with pytest.raises(TypeError):
        replace(Point(1), z=3)
    with pytest.raises(TypeError):
        replace(Plain(1), z=3)


def test_classes_that_need_their_init_still_get_it() -> None:
    assert replace(Positive(1), value=2) == Positive(2)
    with pytest.raises(ValueError, match="not positive"):
        replace(Positive(1), value=0)
    assert replace(Plain(1), other=3) == Plain(1, 3)


@pytest.mark.parametrize(
    "module_name",
    [
        "engine.last_gathering.state",
        "engine.last_gathering.board",
        "engine.cookoff.state",
        "engine.cookoff.commands",
        "engine.mining.state",
        "engine.mining.commands",
    ],
)
def test_every_game_value_class_replaces_as_dataclasses_replace_does(module_name: str) -> None:
    """For each field of each frozen class, replacing it gives what dataclasses.replace gives: every other
    field keeps its value, in its own slot (a distinct marker object per field shows a value misplaced)."""
    module = importlib.import_module(module_name)
    classes = [
        cls
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if dataclasses.is_dataclass(cls) and cls.__module__ == module_name
    ]
    assert classes
    for cls in classes:
        fields = dataclasses.fields(cls)
        values = {f.name: object() for f in fields}  # distinct markers: a field copied to the wrong slot shows
        original = cls(**values)
        for f in fields:
            marker = object()
            new = replace(original, **{f.name: marker})
            assert type(new) is cls and new == dataclasses.replace(original, **{f.name: marker})
            assert all(getattr(new, g.name) is (marker if g is f else values[g.name]) for g in fields)
