"""The records of a match log and their hash chain (no I/O, no library imports).

Kinds: `created` (game, players, config, seed, rules version, host token hash), `joined` (a seat
claimed, token hash), `game` (one game event, with the cause on the first record of each batch),
`rollback` (retracts everything after version `to`), `host` (an audited host action), `chain_keyed`
(from here on the chain is keyed: see below).
Each record carries `prev` (the previous record's hash) and `hash`, so an edited row breaks the chain.

Two kinds of link: records written before the server had a chain key (release 10 and older) carry a
plain SHA-256 `hash`, which anyone who can edit the store can recompute. Keyed records also carry
`key_id`, and their `hash` is an HMAC-SHA256 under the server's chain key: without the key an edit
cannot be re-chained. A match's keyed chain starts at its first record (new matches) or at a
`chain_keyed` record (old matches, at their next append); after it no unkeyed record may follow.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Record = dict[str, Any]


@dataclass(frozen=True)
class ChainKey:
    """The secret that keys the chain, and its public id (recorded in every keyed record)."""

    secret: bytes
    key_id: str


@dataclass(frozen=True)
class Receipt:
    """What a writer is given: the version it wrote, the chain's head there, and the key's id."""

    version: int
    chain_head: str
    key_id: str


def _body(record: Record) -> bytes:
    body = {key: value for key, value in record.items() if key != "hash"} if "hash" in record else record
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def digest(record: Record) -> str:
    """The unkeyed link: SHA-256 of the record without its hash."""
    return hashlib.sha256(_body(record)).hexdigest()


def keyed_digest(secret: bytes, record: Record) -> str:
    """The keyed link: HMAC-SHA256 of the record without its hash (its key_id and prev included)."""
    return hmac.new(secret, _body(record), hashlib.sha256).hexdigest()


def needs_chain_keyed(records: Sequence[Record], key_id: str) -> bool:
    """An existing match whose last record is not keyed under `key_id` (an old, unkeyed match): its next
    append starts the keyed chain with a `chain_keyed` record."""
    return bool(records) and records[-1].get("key_id") != key_id


def chain(previous_hash: str, records: Iterable[Record], key: ChainKey | None = None) -> list[Record]:
    """Stamp `prev` and `hash` on each record (and `key_id` when keyed), continuing from `previous_hash`."""
    return [stamped for stamped, _ in chain_encoded(previous_hash, records, key)]


def chain_encoded(
    previous_hash: str, records: Iterable[Record], key: ChainKey | None = None
) -> list[tuple[Record, bytes]]:
    """`chain`, each stamped record beside its compact JSON (what the store and a live match keep): the
    bytes its link is computed over with the link added last, so that a record is encoded once, not once
    for its hash and again to keep it. Any order of keys decodes to the same record."""
    out = []
    for record in records:
        stamped = {**record, "prev": previous_hash}
        if key is not None:
            stamped["key_id"] = key.key_id
        body = _body(stamped)  # no hash yet: the bytes the link is computed over, as link_problem recomputes them
        link = hashlib.sha256(body) if key is None else hmac.new(key.secret, body, hashlib.sha256)
        stamped["hash"] = previous_hash = link.hexdigest()
        out.append((stamped, body[:-1] + b',"hash":"' + previous_hash.encode() + b'"}'))
    return out


def first_broken_link(
    records: Sequence[Record], keys: Mapping[str, bytes] | None = None, marked: bool = True
) -> tuple[int, str] | None:
    """(version, what is wrong) for the first record whose hash or link does not hold, else None.
    `keys` (key id -> secret) checks keyed records; a keyed record under a key not given is broken.
    `marked`: see link_problem."""
    keys = keys or {}
    previous = ""
    keyed = False
    for version, record in enumerate(records, start=1):
        problem = link_problem(version, record, previous, keyed, keys, marked)
        if problem is not None:
            return version, problem
        keyed = keyed or record.get("key_id") is not None
        previous = record["hash"]
    return None


def link_problem(
    version: int, record: Record, previous: str, keyed: bool, keys: Mapping[str, bytes], marked: bool = True
) -> str | None:
    """What is wrong with `record` at `version` after a record hashed `previous` (`keyed`: the chain is
    keyed already), else None. `marked`: a match's keyed chain starts with a chain_keyed record (a server
    stream's first keyed record follows its unkeyed ones directly)."""
    if record.get("prev") != previous:
        return "its link to the previous record does not match"
    key_id = record.get("key_id")
    if key_id is None:
        if keyed:
            return "an unkeyed record after the keyed chain began (the chain was recomputed)"
        if not hmac.compare_digest(str(record.get("hash", "")), digest(record)):
            return "its content does not match its hash (edited after it was written)"
        return None
    if marked and not keyed and version > 1 and record.get("kind") != "chain_keyed":
        return "the keyed chain starts without a chain_keyed record"
    secret = keys.get(str(key_id))
    if secret is None:
        return f"it is keyed under key id {key_id}, which this server was not given"
    if not hmac.compare_digest(str(record.get("hash")), keyed_digest(secret, record)):
        return "its content does not match its keyed hash (edited, or re-chained without the key)"
    return None


def unkeyed_until(records: Sequence[Record]) -> int:
    """The last version chained by SHA-256 only (0: the whole log is keyed)."""
    for version, record in enumerate(records, start=1):
        if "key_id" in record:
            return version - 1
    return len(records)


def receipt_problem(records: Sequence[Record], receipt: Receipt) -> str | None:
    """Why the log no longer holds what `receipt` was given for, else None (the chain is checked apart)."""
    if receipt.version < 1:
        return f"receipt for version {receipt.version}: versions start at 1"
    if receipt.version > len(records):
        return (
            f"receipt for version {receipt.version}: the log ends at version {len(records)} "
            "(records after it were deleted)"
        )
    record = records[receipt.version - 1]
    if record.get("key_id", "") != receipt.key_id:
        return (
            f"receipt for version {receipt.version}: the record there is keyed under "
            f"{record.get('key_id') or 'no key'!r}, the receipt under {receipt.key_id or 'no key'!r}"
        )
    if not hmac.compare_digest(str(record.get("hash", "")), receipt.chain_head):
        return f"receipt for version {receipt.version}: the chain head there is not the one receipted (rewritten)"
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


class BrokenChain(Exception):
    """A stored record of a server stream whose hash or link does not hold: it and what follows are not
    applied (an edited key digest must not let a key act, swapped ranks must not count)."""

    def __init__(self, name: str, version: int, problem: str) -> None:
        super().__init__(
            f"the {name} stream's record {version} does not hold: {problem}. It and every record after it are "
            "ignored and nothing more is written there until the store is restored from a backup "
            "(matchctl verify --identities --arena names it)"
        )
        self.version = version
        self.problem = problem


class ChainedLog:
    """A stream of the server's own (the identities, a bot room's, a tournament's) folded in memory: its records,
    its version, and the head of its hash chain (what the next append links to). Records read back from
    the store are checked link by link (`check`) before they are applied."""

    name = "server"

    def __init__(self) -> None:
        self.records: list[Record] = []
        self.broken: BrokenChain | None = None  # the first stored record that did not hold

    def check(self, record: Record, keys: Mapping[str, bytes]) -> None:
        """Raise BrokenChain unless `record` links to this log's head under `keys` (then remembered)."""
        if self.broken is not None:
            raise self.broken
        keyed = any(kept.get("key_id") is not None for kept in self.records[-1:])
        problem = link_problem(self.version + 1, record, self.last_hash, keyed, keys, marked=False)
        if problem is not None:
            self.broken = BrokenChain(self.name, self.version + 1, problem)
            raise self.broken

    @property
    def version(self) -> int:
        return len(self.records)

    @property
    def last_hash(self) -> str:
        return str(self.records[-1]["hash"]) if self.records else ""
