"""`replace` for the frozen, slotted dataclasses game states are made of: `dataclasses.replace`, faster.

A fold rebuilds part of the state on every event, and `dataclasses.replace` (a walk over the fields, a
keyword dict, then `__init__` storing each field through `object.__setattr__`) was most of every game's
fold. Here each class gets, once, a function that takes the changes as keyword-only arguments and fills a
new instance's slots straight through their descriptors: the same value (a new instance, equal field by
field; unknown field names raise TypeError), 3-4 times faster. A class this cannot copy slot by slot
(no slots, a `__post_init__`, an InitVar or a field outside `__init__`) goes through
`dataclasses.replace`, whose `__init__` it relies on.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_REPLACERS: dict[type, Callable[..., Any]] = {}
_KEEP = object()  # the default of every keyword: keep the old value


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the frozen dataclass `obj` with `changes` applied, as `dataclasses.replace` returns."""
    replacer = _REPLACERS.get(type(obj))
    if replacer is None:
        replacer = _REPLACERS[type(obj)] = _make_replacer(type(obj))
    result: T = replacer(obj, **changes)
    return result


def _make_replacer(cls: type) -> Callable[..., Any]:
    if not _copies_slot_by_slot(cls):
        return dataclasses.replace
    names = [field.name for field in dataclasses.fields(cls)]
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_KEEP": _KEEP}
    lines = [f"def replace(_obj, /, *, {', '.join(f'{name}=_KEEP' for name in names)}):", "    _copy = _new(_cls)"]
    for index, name in enumerate(names):
        namespace[f"_set{index}"] = getattr(cls, name).__set__
        lines.append(f"    _set{index}(_copy, _obj.{name} if {name} is _KEEP else {name})")
    lines.append("    return _copy")
    exec("\n".join(lines), namespace)  # the source is built above from the class's own field names
    replacer: Callable[..., Any] = namespace["replace"]
    return replacer


def _copies_slot_by_slot(cls: type) -> bool:
    """Frozen-dataclass values whose every field is an `__init__` argument held in a slot, with no
    `__post_init__`: a new instance with its slots filled is exactly what `__init__` would build."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        return False
    fields = dataclasses.fields(cls)
    declared = cls.__dataclass_fields__  # also holds InitVars, which fields() omits
    if len(declared) != len(fields) or any(not field.init for field in fields):
        return False
    reserved = {"_obj", "_copy", "_new", "_cls", "_KEEP", *(f"_set{index}" for index in range(len(fields)))}
    return all(
        isinstance(getattr(cls, field.name, None), types.MemberDescriptorType) and field.name not in reserved
        for field in fields
    )
