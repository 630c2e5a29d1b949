"""One write to a match: under its lock, decided on its current state, chained, appended at an exact version
(optimistic concurrency across server processes), applied to the live copy, and published on the bus.

A write that loses a race with another process, or a refusal decided on a cached copy that turns out to
be behind the store, is decided again on the caught-up state: `retried` is the one retry loop the server
has (matches here, the identities stream, the bot rooms' and the catalog's writes).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from server.bus import Appended, Bus
from server.clock import Clock
from server.errors import Aborted, Unavailable
from server.live import LiveMatch
from server.records import ChainKey, Record, chain_encoded, needs_chain_keyed
from server.repository import LiveMatches
from server.store import TRANSIENT, VersionConflict

log = logging.getLogger(__name__)
T = TypeVar("T")
# A write that loses an optimistic-concurrency race on a shared store is decided again on the caught-up
# state this many times before the caller is told UNAVAILABLE (nothing written; retry with the request_id).
MAX_WRITE_ATTEMPTS = 5


class LostRace(Aborted):
    """Another process appended to the match first: nothing was written; decide again on fresh state."""


class Again(Exception):
    """Raised inside a retried attempt: decide it again on fresh state."""


async def retried(
    attempt: Callable[[], Awaitable[T]], gave_up: str, attempts: int = MAX_WRITE_ATTEMPTS, *, what: str = "a write"
) -> T:
    """Run `attempt` until it returns; an `Again` (a lost race) runs it again, up to `attempts` times, and
    then the caller is told UNAVAILABLE with `gave_up` (nothing was written)."""
    for _ in range(attempts):
        try:
            return await attempt()
        except Again:
            log.info("%s lost a race with another writer: deciding again", what)
    raise Unavailable(gave_up)


class UnitOfWork:
    def __init__(self, matches: LiveMatches, chain_key: ChainKey, bus: Bus, clock: Clock) -> None:
        self.matches = matches
        self.chain_key = chain_key
        self.bus = bus
        self.clock = clock

    def now(self, live: LiveMatch) -> float:
        """The match clock now."""
        return live.clock_at(self.clock.now())

    async def write(self, match_id: uuid.UUID, act: Callable[[LiveMatch], Awaitable[T]]) -> T:
        """Run a write under the match's lock, deciding again after a lost race or a stale refusal (the
        store checks only what is written, so a refusal decided on stale state would otherwise reach the
        caller)."""

        async def attempt() -> T:
            async with self.matches.locks[match_id]:
                live = await self.matches.load(match_id)
                try:
                    return await act(live)
                except LostRace:
                    raise Again from None
                except Exception:
                    if not await self.matches.was_behind(live):
                        raise
                    log.info("match %s was behind the store when it refused a write", match_id)
                    raise Again from None

        return await retried(
            attempt,
            f"match {match_id} kept changing under this write ({MAX_WRITE_ATTEMPTS} attempts); nothing was "
            "written: retry with the same request_id",
            what=f"a write to match {match_id}",
        )

    async def append(self, live: LiveMatch, records: Sequence[Record]) -> list[tuple[int, Record]]:
        """Chain, append and apply a batch; returns (version, record as stored) for each."""
        if needs_chain_keyed(live.records, self.chain_key.key_id):  # an old match: its keyed chain starts here
            at = records[0].get("at", self.now(live)) if records else self.now(live)  # as the write it opens
            records = [{"kind": "chain_keyed", "key_id": self.chain_key.key_id, "at": at}, *records]
        encoded = chain_encoded(live.last_hash, records, self.chain_key)  # once: the store and the match keep them
        stamped, rows = [record for record, _ in encoded], [row for _, row in encoded]
        try:
            await self.matches.writer.append(live.id, live.version, stamped, rows)
        except TRANSIENT as exc:  # whether it landed is unknown: a retry with the request id is safe
            self.matches.forget(live.id)
            raise Unavailable(
                f"the store did not answer ({type(exc).__name__}); retry with the same request_id"
            ) from exc
        except VersionConflict:
            self.matches.forget(live.id)  # another process wrote first: reload on next use
            raise LostRace("another writer changed this match first; nothing was written, reload and retry") from None
        first = live.version + 1
        for version, (record, row) in enumerate(zip(stamped, rows, strict=True), start=first):
            if live.version < version:  # a catch-up from the store may have applied it already
                live.apply(record, row)
        self.matches.remeasure(live)
        self.bus.publish(Appended(live))
        return [(first + offset, record) for offset, record in enumerate(stamped)]
