"""Waiting on a condition, never on the clock: the suite must pass on two loaded cores.

A test waits until what it needs is true; the timeout only stops a test that would otherwise hang, so it
is generous, and running out of it reports what never became true (not how long anything took).
"""

from __future__ import annotations

import time
from collections.abc import Callable

WAIT = 60.0  # seconds: a bound on a hang, not a speed requirement


class NeverHappened(AssertionError):
    """The condition a test waited on did not become true before the test gave up."""


def wait_until(condition: Callable[[], object], what: str, timeout: float = WAIT, poll: float = 0.02) -> None:
    give_up = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= give_up:
            raise NeverHappened(f"gave up waiting until {what}")
        time.sleep(poll)
