"""What the application answers: whole values, so the transport never touches a live match or the engine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.contract import Json, Status, Viewer
from server.live import LiveMatch
from server.records import Receipt, Record


@dataclass(frozen=True)
class Created:
    live: LiveMatch
    host_token: str
    invitations: dict[str, str]  # seat -> invitation secret (shown once)


@dataclass(frozen=True)
class Accepted:
    version: int
    records: list[tuple[int, Record]]  # (version, record as the caller may see it)
    status: Status
    receipt: Receipt  # the chain's head at `version`: the writer keeps it to prove the log later
    paused: bool = False  # whether the match is paused after `version` (by the host, or by a rollback)
    text: str = ""  # a submission: the command in the game's canonical words


@dataclass(frozen=True)
class Joined:
    """A seat's new token (or a host's new invitation), and the version and receipt that recorded it."""

    secret: str
    version: int
    receipt: Receipt


@dataclass(frozen=True)
class StateView:
    """A match at a version as one viewer may see it: the game's view and the server's facts beside it."""

    match_id: str
    game: str
    version: int
    viewer: Viewer
    view: dict[str, Json]
    status: Status
    paused: bool
    clock: float
    players: tuple[str, ...]
    results: dict[str, Any] | None


@dataclass(frozen=True)
class PublicMatch:
    """A public match as a listing shows it to anyone: who plays, where it stands, who it waits for and
    how long the phase has left on the match's own clock (None: no deadline, or paused), and once it is
    over who won (rank 1; none for a cancelled match)."""

    match_id: str
    game: str
    players: tuple[str, ...]
    phase: str
    awaiting: tuple[str, ...]  # in seat order
    time_left: float | None  # match-clock seconds until the phase ends
    paused: bool
    finished: bool
    winners: tuple[str, ...]
    seq: int  # its place in the catalog (the paging position)


def receipt_at(live: LiveMatch, version: int) -> Receipt:
    """The receipt for `version` of a match (records never change once written, so any copy will do)."""
    return receipt_of(version, live.records[version - 1])


def receipt_of(version: int, record: Record) -> Receipt:
    """The receipt for `record`, stored at `version`."""
    return Receipt(version, str(record["hash"]), str(record.get("key_id", "")))
