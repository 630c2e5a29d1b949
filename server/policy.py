"""Rules a room built on the platform adds for the matches it makes, registered at wiring (e.g. how a bot
match's organiser watches it as a spectator until it ends, corrects it by rollback while it runs and by
voiding it once it is over, and forks it only once it is over).

The core asks the registered policies, in order, and the first with a say decides; with none registered
a match's host credentials see and correct it as its host. A policy reads the match; it never
writes."""

from __future__ import annotations

from typing import Protocol

from engine.contract import Viewer
from server.live import LiveMatch


class MatchPolicy(Protocol):
    def watches(self, live: LiveMatch) -> Viewer | None:
        """How the match's host credentials see it (None: no say; they see it as its host)."""

    def corrects(self, live: LiveMatch) -> Viewer | None:
        """Who a host credential's correction (pause, rollback, end a phase) acts as; raise to refuse it."""

    def forks(self, live: LiveMatch) -> Viewer | None:
        """Who a host credential's fork of the match acts as; raise to refuse it."""


class Policies(list[MatchPolicy]):
    """The registered policies, asked in order."""

    def watches(self, live: LiveMatch) -> Viewer:
        return next((v for p in self if (v := p.watches(live)) is not None), Viewer.host())

    def corrects(self, live: LiveMatch) -> Viewer | None:
        return next((v for p in self if (v := p.corrects(live)) is not None), None)

    def forks(self, live: LiveMatch) -> Viewer | None:
        return next((v for p in self if (v := p.forks(live)) is not None), None)
