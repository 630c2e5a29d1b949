"""The deadline ticker: ends phases whose deadline has passed, with the times they should have fired.

Deadlines live in the events (each phase records its own), so nothing relies on in-memory timers:
after a restart the first tick applies every deadline that passed while the server was down. The
catalog (server/catalog.py) indexes when each match is next due, so a tick visits only the matches
that are due, loading those not in memory: its cost does not grow with the matches stored. Rooms built
on the platform add their own periodic jobs (challenges and tournaments) at wiring.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence

from server import waiting
from server.errors import Aborted
from server.matches import Matches

log = logging.getLogger(__name__)
Job = Callable[[], Awaitable[object]]


async def tick(matches: Matches) -> int:
    """One pass over the live matches; returns how many records the deadlines wrote."""
    written = 0
    queries = matches.queries
    matches.repository.settle_idle(time.monotonic())  # idle matches drop what only play reads again
    await queries.catch_up_catalog()  # what this and other processes wrote: due times moved
    if matches.refresh_every is not None:
        await matches.hostkeys.refresh()  # host keys other processes created or revoked
    for match_id in await queries.due_matches():
        try:
            live = await matches.load(match_id)
        except Exception:  # quarantined (logged when set aside): the others are served
            continue
        if live.paused_at is not None or not waiting.is_due(live, matches.uow.now(live)):
            continue
        try:
            written += await matches.commands.expire_due(match_id)
        except Aborted:
            log.info("another server process ended the phase of %s first", match_id)
        except Exception:
            log.exception("the deadline of match %s could not be applied", match_id)
    return written


async def run(matches: Matches, interval: float, jobs: Sequence[Job] = ()) -> None:
    while True:
        await tick(matches)
        for job in jobs:
            try:  # e.g. challenges expire, ends a crash missed are recorded, tournaments go on
                await job()
            except Exception:
                log.exception(
                    "a periodic job failed (%s); the next tick tries again", getattr(job, "__qualname__", job)
                )
        matches.ticks += 1  # tests wait for ticks to pass rather than sleep
        await asyncio.sleep(interval)
