"""The arena's settings, and the shape of one of its optimistic writes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.live import LiveMatch
from server.records import Record


@dataclass(frozen=True)
class ArenaSettings:
    # An unanswered challenge expires after this many seconds.
    challenge_ttl: float = 600.0
    # A bot may hold at most this many open challenges from one challenger (the next is RESOURCE_EXHAUSTED):
    # counted per challenger, so one challenger's flood never locks a bot out of everyone else's.
    max_open_challenges_per_bot: int = 20
    # One challenger's open challenges, to all bots together.
    max_open_challenges_per_challenger: int = 50
    # A bot's own challenges (a bot key has no host-key quota): unfinished matches they started, and
    # challenges made in the last minute.
    max_live_matches_per_bot: int = 10
    max_challenges_per_minute_per_bot: int = 30
    # Unfinished tournaments one host key organises (the admin has no quota).
    max_live_tournaments_per_host_key: int = 3
    # Bots one host key registers (the admin has no quota).
    max_bots_per_host_key: int = 100
    # A tournament's bots (its draw and its matches grow with their square).
    max_bots_per_tournament: int = 64
    # A tournament's matches (pairs x games per pair, or rounds x tables), checked before it is drawn.
    max_tournament_matches: int = 2000
    # How often the ticker looks for arena matches that ended without this process recording it (another
    # node's write, a crash between a match's last write and its arena record): seconds.
    sweep_every: float = 2.0


@dataclass
class Step:
    """One optimistic write: records for the arena stream, for tournaments, and new matches."""

    arena: list[Record]
    tournaments: dict[str, list[Record]]
    matches: list[tuple[LiveMatch, list[Record]]]
    result: Any = None
