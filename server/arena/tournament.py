"""A tournament's own stream, folded: its plan, which matches started and how they ended, voids, and the
standings derived from them. Nothing here is stored that the log does not say: standings are always
recomputed from the records, so a void (or a rematch) changes them and the audit says why.

Records (each chained like a match's records):
`tournament_created` (name, game, format, bots, games_per_pair, rounds, table_size, config, seed,
organiser), `scheduled` (matches: index, round, table, seats; a rematch names what it replays),
`started` (index, match), `finished` (index, match, ranks: bot -> rank, rollbacks made while it was
played), `voided` (index, match, reason, by, rematch: the new index or None), `completed` (standings).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.arena import draw
from server.arena.standings import Standing, match_points, standings, standings_json
from server.records import ChainedLog, Record

FORMATS = ("round-robin", "rotation")  # a game names those that suit it (Game.arena_formats)


@dataclass
class Entry:
    index: int
    round: int
    table: int
    seats: list[str]
    match_id: str = ""
    state: str = "scheduled"  # scheduled, playing, finished, voided
    ranks: dict[str, int] | None = None
    notes: list[str] = field(default_factory=list)
    finished_version: int = 0  # the record that says it finished: results are folded in this order


def plan_for(header: Record) -> list[dict[str, Any]]:
    """The draw a tournament's header determines (verify re-derives it and compares)."""
    bots, seed = list(header["bots"]), int(header["seed"])
    if header["format"] == "round-robin":
        return draw.round_robin(bots, int(header["games_per_pair"]), seed)
    return draw.rotation(bots, int(header["rounds"]), int(header["table_size"]), seed)


def scheduled_record(plan: list[dict[str, Any]], at: float) -> Record:
    """The plan's matches (a round's byes are the bots no table of it seats: `byes_so_far`)."""
    return {"kind": "scheduled", "matches": draw.plan_matches(plan), "at": at}


def _ordinal(rank: int) -> str:
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return f"{rank}{suffix}"


def _ranks_text(ranks: dict[str, int]) -> str:
    return ", ".join(
        f"{bot} {_ordinal(rank)}" for bot, rank in sorted(ranks.items(), key=lambda item: (item[1], item[0]))
    )


class TournamentLog(ChainedLog):
    def __init__(self, tournament_id: str) -> None:
        self.tournament_id = tournament_id
        super().__init__()
        self.name = f"tournament {tournament_id}"
        self.header: Record = {}
        self.entries: dict[int, Entry] = {}
        self.by_match: dict[str, int] = {}
        self.audit: list[str] = []
        self.completions = 0

    def apply(self, record: Record) -> None:
        self.records.append(record)
        kind = record["kind"]
        if kind == "tournament_created":
            self.header = record
            self.audit.append(
                f"created by {record['organiser']}: {record['game']}, {record['format']}, "
                f"{len(record['bots'])} bots ({', '.join(record['bots'])}), draw seed {record['seed']}"
            )
        elif kind == "scheduled":
            for item in record["matches"]:
                entry = Entry(int(item["index"]), int(item["round"]), int(item["table"]), list(item["seats"]))
                if item.get("rematch_of") is not None:
                    entry.notes.append(f"rematch of #{item['rematch_of']}")
                self.entries[entry.index] = entry
            if len(record["matches"]) > 1:
                rounds = max(int(item["round"]) for item in record["matches"])
                self.audit.append(f"{len(record['matches'])} matches drawn in {rounds} rounds")
        elif kind == "started":
            entry = self.entries[int(record["index"])]
            entry.match_id, entry.state = str(record["match"]), "playing"
            self.by_match[entry.match_id] = entry.index
            self.audit.append(
                f"#{entry.index} (round {entry.round}: {' v '.join(entry.seats)}) started as match {entry.match_id}"
            )
        elif kind == "finished":
            entry = self.entries[int(record["index"])]
            entry.state, entry.finished_version = "finished", len(self.records)
            entry.ranks = {str(bot): int(rank) for bot, rank in record["ranks"].items()}
            for rollback in record.get("rollbacks", []):
                note = f"rolled back to version {rollback['to']} while it was played: {rollback['reason']}"
                entry.notes.append(note)
                self.audit.append(f"#{entry.index} (match {entry.match_id}) was {note}")
            if entry.ranks:
                gained = ", ".join(f"{bot} +{points:g}" for bot, points in sorted(match_points(entry.ranks).items()))
                self.audit.append(f"#{entry.index} finished: {_ranks_text(entry.ranks)}; points {gained}")
            else:
                entry.notes.append("ended with no result (cancelled)")
                self.audit.append(f"#{entry.index} ended with no result (cancelled): no points")
        elif kind == "voided":
            entry = self.entries[int(record["index"])]
            entry.state = "voided"
            entry.notes.append(f"voided by {record['by']}: {record['reason']}")
            struck = ", ".join(f"{bot} -{points:g}" for bot, points in sorted(match_points(entry.ranks or {}).items()))
            rematch = f"; rematch #{record['rematch']} scheduled" if record.get("rematch") is not None else ""
            self.audit.append(
                f"#{entry.index} (match {entry.match_id}) voided by {record['by']}: {record['reason']}; "
                f"its points are struck ({struck or 'none'}){rematch}"
            )
        elif kind == "completed":
            self.completions += 1
            top = ", ".join(f"{row['rank']}. {row['bot']} {row['points']:g}" for row in record["standings"])
            self.audit.append(f"finished: {top}")

    # --- derived --------------------------------------------------------------------------------

    @property
    def bots(self) -> list[str]:
        return list(self.header.get("bots", []))

    def standings(self) -> list[Standing]:
        results = [entry.ranks for entry in self.entries.values() if entry.state == "finished" and entry.ranks]
        return standings(self.bots, results, self.byes_so_far())

    def byes_so_far(self) -> dict[str, int]:
        """Byes of the rounds that have begun (a bot sits out a round when no table of it seats the bot):
        the standings count a bye once its round is under way, not when it was drawn."""
        seated: dict[int, set[str]] = {}
        begun: set[int] = set()
        for entry in self.entries.values():
            seated.setdefault(entry.round, set()).update(entry.seats)
            if entry.state != "scheduled":
                begun.add(entry.round)
        byes: dict[str, int] = {}
        for round_ in begun:
            for bot in self.bots:
                if bot not in seated[round_]:
                    byes[bot] = byes.get(bot, 0) + 1
        return byes

    def standings_json(self) -> list[dict[str, Any]]:
        return standings_json(self.standings())

    def done(self) -> bool:
        return bool(self.entries) and all(entry.state in ("finished", "voided") for entry in self.entries.values())

    def finished_count(self) -> int:
        return sum(entry.state == "finished" for entry in self.entries.values())

    def counted(self) -> int:
        """Matches that count: all but voided ones."""
        return sum(entry.state != "voided" for entry in self.entries.values())

    def to_start(self) -> list[Entry]:
        """The scheduled entries whose turn has come: every entry of the earliest round not yet over
        (a rematch of an earlier round starts at once)."""
        open_rounds = [entry.round for entry in self.entries.values() if entry.state in ("scheduled", "playing")]
        if not open_rounds:
            return []
        current = min(open_rounds)
        return [
            e
            for e in sorted(self.entries.values(), key=lambda e: e.index)
            if e.state == "scheduled" and e.round <= current
        ]

    def state(self) -> str:
        return "finished" if self.done() else "running"

    def needs_completion(self) -> bool:
        """All matches over, and no `completed` record since the last change."""
        return self.done() and (not self.records or self.records[-1]["kind"] != "completed")
