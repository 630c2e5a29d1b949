"""What a match derives at a version and is asked for again and again: its status (a move's streams, the
turn rule and the ticker each ask) and a viewer's view (a move's Updates and its Turn). A version's records
never change, so neither do these: the latest few are kept."""

from __future__ import annotations

import json
import weakref
from typing import Any, Protocol

from engine.contract import Status, Viewer
from server import waiting

KEPT = 32  # versions (and version-viewer pairs) kept
MAX_KEPT_PARTS = 128


class LiveMatch(waiting.LiveMatch, Protocol):
    """What these facts read of a live match (server/live.py), beside what waiting.py reads."""

    @property
    def version(self) -> int: ...
    def cancelled(self, version: int | None = None) -> bool: ...
    def waiting_at(self, version: int) -> bool: ...
    def state_at(self, version: int) -> Any: ...


class VersionFacts:
    def __init__(self, live: LiveMatch) -> None:
        # A proxy, so that a match and its facts make no reference cycle: a match the cache drops is freed
        # at once, without waiting for a full collection of the garbage collector (server/main.py).
        self.live = weakref.proxy(live)
        # Plain dicts, the first in first out (an OrderedDict's links cost half as much again per entry).
        self.statuses: dict[int, Status] = {}
        self.views: dict[tuple[int, Viewer], dict[str, Any]] = {}
        self.view_texts: dict[tuple[int, Viewer], str] = {}
        # One object for each phase text and set of seats the kept statuses hold: consecutive statuses mostly
        # repeat them, and a new frozenset costs 216 bytes however few seats it holds.
        self._kept_parts: dict[str | frozenset[str], Any] = {}

    def clear(self) -> None:
        """Keep nothing (an idle match: server/live.py settle)."""
        self.statuses.clear()
        self.views.clear()
        self.view_texts.clear()
        self._kept_parts.clear()

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

    def applied(self, version: int, status: Status) -> Status:
        """The game's status after a record just applied at `version` (apply computes it anyway): kept, so
        the write's answer, the turn rule and every stream of the move ask the game no more. A waiting or
        cancelled match's status is not the game's: those are left to `status`. Returns `status`."""
        live = self.live
        if not live.cancelled(version) and not live.waiting_at(version):
            self.statuses[version] = self._sharing(status)
            _trim(self.statuses)
        return status

    def _sharing(self, status: Status) -> Status:
        """`status`, or an equal one whose phase text and seat sets are those kept already."""
        kept = self._kept_parts
        if len(kept) > MAX_KEPT_PARTS:  # a many-seat game's subsets: start again before the dict outgrows them
            kept.clear()
        phase = kept.setdefault(status.phase, status.phase)
        awaiting = kept.setdefault(status.awaiting, status.awaiting)
        submitted = kept.setdefault(status.submitted, status.submitted)
        if phase is status.phase and awaiting is status.awaiting and submitted is status.submitted:
            return status
        # Built field by field: dataclasses.replace looks the fields up on every call (this runs every record).
        return Status(phase, awaiting, submitted, status.deadline, status.finished, status.binding)

    def view_json(self, version: int, viewer: Viewer) -> str:
        """The view as an Update and a Turn carry it (sorted keys): a move's Update and its Turn share it."""
        key = (version, viewer)
        known = self.view_texts.get(key)
        if known is None:
            known = self.view_texts[key] = json.dumps(self.view(version, viewer), sort_keys=True)
            _trim(self.view_texts)
        return known

    def view(self, version: int, viewer: Viewer) -> dict[str, Any]:
        live = self.live
        known = self.views.get((version, viewer))
        if known is None:
            state = live.state if version == live.version else live.state_at(version)
            known = self.views[(version, viewer)] = live.game.view(state, viewer)
            _trim(self.views)
        return known


def _trim(kept: dict[Any, Any]) -> None:
    if len(kept) > KEPT:
        del kept[next(iter(kept))]
