"""The records of a match log and their hash chain (no I/O, no library imports).

Kinds: `created` (game, players, config, seed, rules version, host token hash), `joined` (a seat
claimed, token hash), `game` (one game event, with the cause on the first record of each batch),
`rollback` (retracts everything after version `to`), `host` (an audited host action).
Each record carries `prev` (the previous record's hash) and `hash`, so an edited row breaks the chain.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

Record = dict[str, Any]


def digest(record: Record) -> str:
    body = {key: value for key, value in record.items() if key != "hash"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def chain(previous_hash: str, records: Iterable[Record]) -> list[Record]:
    """Stamp `prev` and `hash` on each record, continuing the chain from `previous_hash`."""
    out = []
    for record in records:
        stamped = {**record, "prev": previous_hash}
        stamped["hash"] = digest(stamped)
        previous_hash = stamped["hash"]
        out.append(stamped)
    return out


def first_broken_link(records: Sequence[Record]) -> tuple[int, str] | None:
    """(version, what is wrong) for the first record whose hash or link does not hold, else None."""
    previous = ""
    for version, record in enumerate(records, start=1):
        if record.get("prev") != previous:
            return version, "its link to the previous record does not match"
        if record.get("hash") != digest(record):
            return version, "its content does not match its hash (edited after it was written)"
        previous = record["hash"]
    return None


def retracted_versions(records: Sequence[Record]) -> set[int]:
    """Versions undone by a later rollback (they stay in the log, marked)."""
    retracted: set[int] = set()
    for version, record in enumerate(records, start=1):
        if record.get("kind") == "rollback":
            retracted.update(range(int(record["to"]) + 1, version))
    return retracted


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
