"""What a match derives at a version and is asked for again and again: its status (a move's streams, the
turn rule and the ticker each ask) and a viewer's view (a move's Updates and its Turn). A version's records
never change, so neither do these: the latest few are kept."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Protocol

from engine.contract import Status, Viewer
from server import waiting

KEPT = 32  # versions (and version-viewer pairs) kept


class LiveMatch(waiting.LiveMatch, Protocol):
    """What these facts read of a live match (server/live.py), beside what waiting.py reads."""

    @property
    def version(self) -> int: ...
    def cancelled(self, version: int | None = None) -> bool: ...
    def waiting_at(self, version: int) -> bool: ...
    def state_at(self, version: int) -> Any: ...


class VersionFacts:
    def __init__(self, live: LiveMatch) -> None:
        self.live = live
        self.statuses: OrderedDict[int, Status] = OrderedDict()
        self.views: OrderedDict[tuple[int, Viewer], dict[str, Any]] = OrderedDict()

    def status(self, version: int | None) -> Status:
        live = self.live
        at = live.version if version is None else version
        known = self.statuses.get(at)
        if known is None:
            if live.cancelled(version):
                known = Status(phase="cancelled by the host (no result)", awaiting=frozenset(), finished=True)
            elif live.waiting_at(at):
                known = waiting.waiting_status(live)
            else:
                known = live.game.status(live.state if version is None else live.state_at(version))
            self.statuses[at] = known
            _trim(self.statuses)
        return known

    def view(self, version: int, viewer: Viewer) -> dict[str, Any]:
        live = self.live
        known = self.views.get((version, viewer))
        if known is None:
            state = live.state if version == live.version else live.state_at(version)
            known = self.views[(version, viewer)] = live.game.view(state, viewer)
            _trim(self.views)
        return known


def _trim(kept: OrderedDict[Any, Any]) -> None:
    if len(kept) > KEPT:
        kept.popitem(last=False)
