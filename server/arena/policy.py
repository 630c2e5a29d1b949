"""The arena's rules for the matches it makes (registered on the platform at wiring, server/policy.py).

A bot match has no host: its organiser (the host key that made the challenge or tournament, or the
admin) watches it as a spectator until it ends, so the organiser of a bot tournament never sees a sealed
submission (docs/BOTS.md, "The arena"); it corrects a running match by rollback, pause or ending a phase,
and a finished one by voiding it in its tournament; it forks one only once it is over (a copy it hosts
would show the sealed moves, the tree schedule, the judges and the seed)."""

from __future__ import annotations

from engine.contract import Viewer
from server.errors import FailedPrecondition, PermissionDenied
from server.live import LiveMatch


class ArenaPolicy:
    def watches(self, live: LiveMatch) -> Viewer | None:
        if live.organised and not live.status().finished:
            return Viewer.spectator()
        return None

    def corrects(self, live: LiveMatch) -> Viewer | None:
        if not live.organised:
            return None
        if live.status().finished:
            raise FailedPrecondition(
                "this arena match is over: a finished tournament match is corrected by voiding it "
                "(matchctl tournament void TOURNAMENT MATCH --reason ...)"
            )
        return Viewer.spectator()

    def forks(self, live: LiveMatch) -> Viewer | None:
        if not live.organised:
            return None
        if not live.status().finished:
            raise PermissionDenied(
                "an arena match is forked only once it is over: until then its organiser sees it as "
                "a spectator, and a fork would show its sealed moves and its seed"
            )
        return Viewer.spectator()
