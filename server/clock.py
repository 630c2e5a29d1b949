"""Time for the server: the only place that reads the wall clock. The engine gets `now` as an argument."""

from __future__ import annotations

import time


class Clock:
    """Match-clock seconds: Unix time, optionally running `scale` times faster (rehearsals)."""

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale
        self._origin = time.time()

    def now(self) -> float:
        real = time.time()
        return self._origin + (real - self._origin) * self.scale


class ManualClock(Clock):
    """A clock that moves only when told to (tests)."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        super().__init__()
        self.current = start

    def now(self) -> float:
        return self.current

    def advance(self, seconds: float) -> None:
        self.current += seconds
