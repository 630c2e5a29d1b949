"""The arena's own stream: challenges, where bots are seated, finished and voided bot matches, and the
tournaments' index. It is the log behind each bot's BotEvents (a notice is a record that names the bot;
its position is the record's version) and behind the leaderboards (every finished arena match's ranks).

Records (each chained like a match's records):
`challenge` (id, game, bots, config, by, expires_at, accepted: the bots that accepted at once),
`answer` (challenge, bot, accept), `expired` (challenge),
`seated` (match, game, seats: seat -> bot, tournament or challenge),
`finished` (match, game, ranks: bot -> rank, tournament), `voided` (match, tournament, reason),
`tournament` (a new tournament: id, name, game, bots), `tournament_finished` (id, standings).
"""

from __future__ import annotations

import bisect
import uuid
from dataclasses import dataclass, field
from typing import Any

from server.records import ChainedLog, Record

ARENA_STREAM = uuid.uuid5(uuid.NAMESPACE_URL, "matchserver:arena")


def new_server_stream_id() -> uuid.UUID:
    """A tournament's or challenge's id: version 5, like every stream of the server's own (never a match)."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"matchserver:{uuid.uuid4()}")


@dataclass
class Challenge:
    challenge_id: str
    game: str
    bots: list[str]
    config: dict[str, Any]
    by: str
    expires_at: float
    accepted: list[str] = field(default_factory=list)
    state: str = "open"  # open, started, declined, expired
    match_id: str = ""

    def waiting_on(self) -> list[str]:
        return [bot for bot in self.bots if bot not in self.accepted]


@dataclass
class ArenaMatch:
    match_id: str
    game: str
    seats: dict[str, str]  # seat -> bot
    tournament: str | None
    ranks: dict[str, int] | None = None  # bot -> rank, once finished
    voided: bool = False


@dataclass(frozen=True)
class Notice:
    position: int
    kind: str
    record: Record
    seat: str = ""
    text: str = ""


class ArenaLog(ChainedLog):
    """The arena stream folded: kept in memory, caught up from the store before each write."""

    name = "arena"

    def __init__(self) -> None:
        super().__init__()
        self.challenges: dict[str, Challenge] = {}
        self.matches: dict[str, ArenaMatch] = {}
        self.tournaments: list[str] = []  # ids, oldest first
        self._positions: dict[str, list[int]] = {}  # bot -> positions of the records that name it

    def apply(self, record: Record) -> None:
        self.records.append(record)
        position = len(self.records)
        kind = record["kind"]
        if kind == "challenge":
            challenge = Challenge(
                str(record["challenge"]),
                str(record["game"]),
                list(record["bots"]),
                dict(record["config"]),
                str(record["by"]),
                float(record["expires_at"]),
                list(record["accepted"]),
            )
            self.challenges[challenge.challenge_id] = challenge
        elif kind == "answer":
            challenge = self.challenges[str(record["challenge"])]
            if record["accept"]:
                challenge.accepted.append(str(record["bot"]))
            else:
                challenge.state = "declined"
        elif kind == "expired":
            self.challenges[str(record["challenge"])].state = "expired"
        elif kind == "seated":
            match = str(record["match"])
            self.matches[match] = ArenaMatch(
                match, str(record["game"]), dict(record["seats"]), record.get("tournament")
            )
            if record.get("challenge"):
                challenge = self.challenges[str(record["challenge"])]
                challenge.state, challenge.match_id = "started", match
        elif kind == "finished":
            self.matches[str(record["match"])].ranks = {str(bot): int(rank) for bot, rank in record["ranks"].items()}
        elif kind == "voided":
            self.matches[str(record["match"])].voided = True
        elif kind == "tournament":
            self.tournaments.append(str(record["tournament"]))
        for bot in self._named(record):
            self._positions.setdefault(bot, []).append(position)

    def _named(self, record: Record) -> list[str]:
        """The bots a record concerns: those it is a notice to."""
        kind = record["kind"]
        if kind in ("challenge", "tournament"):
            return list(record["bots"])
        if kind in ("answer", "expired"):
            challenge = self.challenges[str(record["challenge"])]
            return challenge.bots if kind == "expired" or not record["accept"] else []
        if kind == "seated":
            return list(record["seats"].values())
        if kind == "finished":
            return list(record["ranks"]) or list(self.matches[str(record["match"])].seats.values())
        if kind == "voided":
            return list(self.matches[str(record["match"])].seats.values())
        if kind == "tournament_finished":
            return [str(row["bot"]) for row in record["standings"]]
        return []

    # --- reads ----------------------------------------------------------------------------------

    def notices(self, bot: str, after: int) -> list[Notice]:
        """What BotEvents sends `bot` after a position, oldest first."""
        positions = self._positions.get(bot, [])
        newer = positions[bisect.bisect_right(positions, after) :]  # every stream wakes on each arena write
        return [notice_for(bot, position, self.records[position - 1]) for position in newer]

    def is_unfinished(self, match_id: str) -> bool:
        match = self.matches.get(match_id)
        return match is not None and match.ranks is None and not match.voided

    def unfinished(self) -> list[ArenaMatch]:
        return [m for m in self.matches.values() if m.ranks is None and not m.voided]

    def results(self, game: str) -> list[dict[str, int]]:
        """The ranks of every finished arena match of a game not voided, in the order they finished."""
        return [dict(match.ranks or {}) for match in self.rated(game)]

    def rated(self, game: str) -> list[ArenaMatch]:
        """Every finished arena match of a game not voided, with ranks, in the order they finished."""
        out = []
        for record in self.records:
            if record["kind"] == "finished" and record["game"] == game:
                match = self.matches[str(record["match"])]
                if not match.voided and match.ranks:
                    out.append(match)
        return out

    def games(self) -> list[str]:
        """The games of the arena's matches, in the order each was first played."""
        return list(dict.fromkeys(match.game for match in self.matches.values()))


def _ordinal(rank: int) -> str:
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return f"{rank}{suffix}"


def notice_for(bot: str, position: int, record: Record) -> Notice:
    """A record as the notice `bot` receives: its kind, and a line in plain words."""
    kind = record["kind"]
    if kind == "challenge":
        others = ", ".join(b for b in record["bots"] if b != bot)
        return Notice(
            position, "challenged", record, text=f"{record['by']} challenges you to {record['game']} with {others}"
        )
    if kind == "answer":
        return Notice(
            position, "challenge_declined", record, text=f"{record['bot']} declined challenge {record['challenge']}"
        )
    if kind == "expired":
        return Notice(position, "challenge_expired", record, text=f"challenge {record['challenge']} expired unanswered")
    if kind == "seated":
        seat = next(seat for seat, name in record["seats"].items() if name == bot)
        return Notice(
            position,
            "seated",
            record,
            seat=seat,
            text=f"you are seated in {record['game']} match {record['match']} as {seat}",
        )
    if kind == "finished":
        rank = record["ranks"].get(bot)
        outcome = f"you finished {_ordinal(int(rank))}" if rank is not None else "it ended with no result"
        return Notice(position, "finished", record, text=f"match {record['match']} is over: {outcome}")
    if kind == "voided":
        return Notice(position, "match_voided", record, text=f"match {record['match']} was voided: {record['reason']}")
    if kind == "tournament":
        return Notice(
            position,
            "tournament_created",
            record,
            text=f"you are entered in tournament {record['name'] or record['tournament']}",
        )
    if kind == "tournament_finished":
        row = next(row for row in record["standings"] if row["bot"] == bot)
        points = f"{row['points']:g} point{'' if row['points'] == 1 else 's'}"
        place = f"you finished {_ordinal(int(row['rank']))} with {points}"
        return Notice(
            position, "tournament_finished", record, text=f"tournament {record['tournament']} is over: {place}"
        )
    raise ValueError(f"no notice for a {kind} record")
