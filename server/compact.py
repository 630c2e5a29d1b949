"""What a live match keeps of its records, compactly: JSON bytes decoded on access, the `created` record
decoded once, the request index, and a state's size estimate (server/live.py holds these; bench/memory.py
measures them)."""

from __future__ import annotations

import gc
import json
import sys
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from server.identities import MATCH_TERMS, SEAT_HOLDERS
from server.records import Record

# Bytes a kept record costs beyond its JSON: the bytes object's header, its list slot, its per-version
# entries in a live match (moves, pauses, batch starts). Measured by bench/memory.py against tracemalloc.
RECORD_OVERHEAD = sys.getsizeof(b"") + 8 + 8 + 1 + 1
REQUEST_BYTES = 160  # one entry of RequestVersions: its key string, the version, its slot
DECODED_RECORDS = 8  # records kept decoded after a single read (the last batch, read by every stream)


def encode(record: Record) -> bytes:
    """A record as compact JSON (its keys in their order): what a live match keeps of it."""
    return json.dumps(record, separators=(",", ":")).encode()  # ASCII: any string, even a lone surrogate


class CompactRecords(Sequence[Record]):
    """A match's records, kept as compact JSON bytes and decoded on access. The last few records asked for
    one at a time stay decoded (a write and every stream's update read the records just appended): treat
    a record read here as read-only, as it may be shared."""

    __slots__ = ("_bytes", "_decoded", "_rows")

    def __init__(self) -> None:
        self._rows: list[bytes] = []
        self._bytes = 0
        self._decoded: OrderedDict[int, Record] = OrderedDict()  # index -> record, most recently used last

    def append_encoded(self, row: bytes) -> None:
        self._rows.append(row)
        self._bytes += len(row)

    def settle(self) -> None:
        """Keep no record decoded (an idle match: server/live.py settle)."""
        self._decoded.clear()

    @property
    def encoded_bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> Record: ...

    @overload
    def __getitem__(self, index: slice) -> list[Record]: ...

    def __getitem__(self, index: int | slice) -> Record | list[Record]:
        if isinstance(index, slice):
            return [json.loads(row) for row in self._rows[index]]
        row = self._rows[index]  # IndexError when outside
        index %= len(self._rows)
        record = self._decoded.get(index)
        if record is None:
            record = self._decoded[index] = json.loads(row)
            if len(self._decoded) > DECODED_RECORDS:
                self._decoded.popitem(last=False)
        else:
            self._decoded.move_to_end(index)
        return record

    def __iter__(self) -> Iterator[Record]:
        for row in self._rows:
            yield json.loads(row)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CompactRecords):
            return self._rows == other._rows
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CompactRecords({len(self._rows)} records, {self._bytes} bytes)"


class Header(Mapping[str, Any]):
    """The `created` record, read as a mapping: the fields read on every request kept decoded, the rest
    (configuration, invitations, hashes: several kB decoded) decoded from the kept record when asked for."""

    HOT = (
        "kind",
        "game",
        "players",
        "rules_version",
        "seed",
        "private",
        "host_key",
        SEAT_HOLDERS,
        MATCH_TERMS,
        "waits",
        "starts_at",
    )
    __slots__ = ("_hot", "_records")

    def __init__(self, record: Record, records: CompactRecords) -> None:
        self._hot = {key: json.loads(json.dumps(record[key])) for key in self.HOT if key in record}
        self._records = records  # record 0 is this one

    def __getitem__(self, key: str) -> Any:
        if key in self.HOT:
            return self._hot[key]
        return self._records[0][key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._records[0])

    def __len__(self) -> int:
        return len(self._records[0])


class RequestVersions(Mapping[tuple[str, str], int]):
    """(caller, request_id) -> the version of the record that carries it, kept under one string per entry
    (a tuple of two strings costs twice the memory): request ids hold no newline (server/limits.py)."""

    __slots__ = ("_versions",)

    def __init__(self) -> None:
        self._versions: dict[str, int] = {}

    @staticmethod
    def _key(key: object) -> str:
        if not (isinstance(key, tuple) and len(key) == 2):
            raise KeyError(key)
        caller, request_id = key
        return f"{request_id}\n{caller}"

    def __getitem__(self, key: tuple[str, str]) -> int:
        return self._versions[self._key(key)]

    def __setitem__(self, key: tuple[str, str], version: int) -> None:
        self._versions[self._key(key)] = version

    def __contains__(self, key: object) -> bool:
        try:
            return self._key(key) in self._versions
        except KeyError:
            return False

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for key in self._versions:
            request_id, _, caller = key.partition("\n")
            yield caller, request_id

    def __len__(self) -> int:
        return len(self._versions)


def deep_size(root: Any, skip: Any = None) -> int:
    """Bytes held by `root` and everything it reaches but `skip` (types, modules and functions excluded)."""
    seen: set[int] = {id(skip)} if skip is not None else set()
    stack = [root]
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type) or callable(obj) or type(obj).__name__ == "module":
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total
