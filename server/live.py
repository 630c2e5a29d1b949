"""A match held in memory: its records, and the effective game state after every version.

state(N) = fold(evolve, initial(config, seed), effective records up to N); a rollback record's state
is the state at the version it rolls back to, so play resumes from there while the retracted records
stay in the log. States are immutable, so keeping one per version is cheap and makes StateAt O(1).

A batch is the records appended by one accepted command, deadline or host action. Its boundaries are
derived from the records (so stores written before batches were named keep working): a game record
with a `cause` opens one, except the game's start records, which join the `created` record before them;
a game record without a cause continues the batch; every other record is a batch of its own.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from engine import codec
from engine.contract import Event, Game, Status, Viewer
from engine.registry import get_game
from server.records import Record, retracted_versions


@dataclass
class LiveMatch:
    id: uuid.UUID
    game: Game
    records: list[Record] = field(default_factory=list)
    states: list[Any] = field(default_factory=lambda: [None])  # states[v]: after version v
    # moves[v]: game events in force after version v. Dice are keyed on it (not on the record count), so
    # joins and host records never change a draw, a re-decision after a rollback draws what the first
    # one drew, and a transcript replayed in process (engine.match.LocalMatch) draws the same values.
    moves: list[int] = field(default_factory=lambda: [0])
    tokens: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # hash -> (role, player)
    started_version: int = 1  # the last record written by the game's start
    # The match clock is the server clock minus this offset: pauses, extensions and rollbacks move it.
    clock_offset: float = 0.0
    paused_at: float | None = None  # the match-clock time at which the host paused the match
    pauses: list[bool] = field(default_factory=lambda: [False])  # pauses[v]: paused after version v
    # (version, seed) of every record that set the seed: `created`, and each rollback that reopened a
    # finished match (its seed had been revealed, so what follows is drawn from a new one).
    seeds: list[tuple[int, int]] = field(default_factory=list)
    # The last version at which the match was finished (0: never). Whatever was public then (the seeds
    # recorded up to it, the host-set secret configuration) stays public after a reopening rollback.
    finished_last: int = 0
    # (caller, request_id) -> the version of the record that carries it: idempotent retries (server/requests.py)
    requests: dict[tuple[str, str], int] = field(default_factory=dict)

    @staticmethod
    def from_records(match_id: uuid.UUID, records: list[Record]) -> LiveMatch:
        header = records[0]  # the rules the match recorded, not today's: it replays as it was decided
        match = LiveMatch(match_id, get_game(header["game"], header.get("rules_version")))
        for record in records:
            match.apply(record)
        return match

    @property
    def header(self) -> Record:
        return self.records[0]

    @property
    def version(self) -> int:
        return len(self.records)

    @property
    def seed(self) -> int:
        """The seed the next decision draws from."""
        return self.seed_at(self.version)

    def seed_at(self, version: int) -> int:
        """The seed in force for a decision made after `version`: the last one recorded up to it."""
        for recorded_at, seed in reversed(self.seeds):
            if recorded_at <= version:
                return seed
        return int(self.header["seed"])

    def seed_revealed(self, version: int) -> bool:
        """Whether the seed in force after `version` has been public (the match finished under it)."""
        recorded_at = max((at for at, _ in self.seeds if at <= version), default=1)
        return recorded_at <= self.finished_last

    @staticmethod
    def starts_batch(record: Record) -> bool:
        if record["kind"] != "game":
            return True
        return "cause" in record and not record.get("start")

    def is_batch_end(self, version: int) -> bool:
        """Whether `version` is the last record of a batch (a state a rollback or fork may return to)."""
        if not 1 <= version <= self.version:
            return False
        return version == self.version or self.starts_batch(self.records[version])

    def batch_end_from(self, first: int) -> int:
        """The last version of the batch that starts at `first`."""
        version = first
        while version < self.version and not self.starts_batch(self.records[version]):
            version += 1
        return version

    def nearest_batch_ends(self, version: int) -> tuple[int | None, int | None]:
        """The last batch end before `version` and the first after it (None where there is none)."""
        before = next((v for v in range(version - 1, 0, -1) if self.is_batch_end(v)), None)
        after = next((v for v in range(version + 1, self.version + 1) if self.is_batch_end(v)), None)
        return before, after

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self.header["players"])

    @property
    def game_version(self) -> int:
        """The number of game events in force: the position the next decision's dice are drawn at."""
        return self.moves[-1]

    @property
    def state(self) -> Any:
        return self.states[-1]

    @property
    def last_hash(self) -> str:
        return str(self.records[-1]["hash"]) if self.records else ""

    def clock_at(self, server_now: float) -> float:
        """The match clock: frozen while paused; otherwise the server clock less the offset."""
        return self.paused_at if self.paused_at is not None else server_now - self.clock_offset

    def paused_after(self, version: int) -> bool:
        """Whether the match was paused (by the host, or by a rollback until the host resumed) after `version`."""
        return self.pauses[version]

    def status(self, version: int | None = None) -> Status:
        return self.game.status(self.states[self.version if version is None else version])

    def apply(self, record: Record) -> None:
        kind = record["kind"]
        state = self.states[-1]
        if kind == "created":
            state = self.game.initial_state(record["config"], int(record["seed"]))
            self.tokens[record["host_token"]] = ("host", None)
        elif kind == "joined":  # a seat has one token: a re-issued token revokes the old one
            self.tokens = {d: who for d, who in self.tokens.items() if who != ("player", record["player"])}
            self.tokens[record["token"]] = ("player", record["player"])
        elif kind == "game":
            state = self.game.evolve(state, record["event"])
            if record.get("start"):
                self.started_version = len(self.records) + 1
        elif kind == "chain_keyed":
            pass  # the keyed chain starts here (server/records.py): nothing changes in the match
        elif kind == "rollback":
            state = self.states[int(record["to"])]
            # Since release 11 a rollback pauses the match at the restored clock (`paused`); before,
            # it only moved a pause that was already on.
            if record.get("paused") or self.paused_at is not None:
                self.paused_at = float(record["clock_to"])
        if kind in ("created", "rollback") and "seed" in record:
            self.seeds.append((len(self.records) + 1, int(record["seed"])))
        if "offset" in record:
            self.clock_offset = float(record["offset"])
        if kind == "host" and record.get("action") == "pause":
            self.paused_at = float(record["at"])
        elif kind == "host" and record.get("action") == "resume":
            self.paused_at = None
        elif kind == "host" and record.get("action") == "extend" and self.paused_at is not None:
            # Paused (say, after a rollback), the stopped clock is held back: the resume keeps the time.
            self.paused_at -= float(record["seconds"])
        request = record.get("request")
        if request:
            self.requests[(str(request["caller"]), str(request["id"]))] = len(self.records) + 1
        self.records.append(record)
        self.states.append(state)
        self.pauses.append(self.paused_at is not None)
        if kind in ("game", "rollback") and self.game.status(state).finished:
            self.finished_last = len(self.records)
        if kind == "game":
            self.moves.append(self.moves[-1] + 1)
        elif kind == "rollback":
            self.moves.append(self.moves[int(record["to"])])
        else:
            self.moves.append(self.moves[-1])

    def game_record_batches(self) -> list[tuple[int, list[Event]]]:
        """(version before the batch, its events) for each caused batch of game records."""
        batches: list[tuple[int, list[Event]]] = []
        for version, record in enumerate(self.records, start=1):
            if record["kind"] != "game":
                continue
            if "cause" in record or not batches:
                batches.append((version - 1, []))
            batches[-1][1].append(record["event"])
        return batches

    def visible_record(self, version: int, viewer: Viewer) -> Record:
        """Record `version` as `viewer` may see it: no token hashes, no seed before the end, no
        sealed content (the game's redact), causes only to the host and the actor. What was public
        once the match finished stays public after a rollback reopens it."""
        record = self.records[version - 1]
        kind = record["kind"]
        out: Record = {"kind": kind, "at": record.get("at")}
        if kind == "created":
            config = dict(record["config"])
            if not (viewer.is_host or self.finished_last):
                # Host-set secrets (e.g. Cookoff's judges and tree schedule) wait for the end of the match.
                for key in getattr(self.game, "secret_config_keys", ()):
                    if config.get(key) is not None:
                        config[key] = "hidden until the match is over"
            out.update(game=record["game"], players=record["players"], config=config)
            out["rules_version"] = record.get("rules_version")
            if record.get("origin"):
                out["origin"] = record["origin"]
            if record.get("reseeded"):  # a fork of a match whose seed was public draws from a new one
                out["reseeded"] = True
            if viewer.is_host or self.seed_revealed(version):
                out["seed"] = record["seed"]
        elif kind in ("joined", "invited"):  # never the hashes of tokens or invitations
            out["player"] = record["player"]
        elif kind == "game":
            event = self.game.redact(self.states[version - 1], record["event"], viewer)
            out["event"] = event if event is not None else {"type": "hidden"}
            cause = record.get("cause")
            if cause is not None:
                actor = cause.get("actor")
                if viewer.is_host or (actor is not None and viewer.is_player(actor)):
                    out["cause"] = cause
                else:
                    out["cause"] = {"actor": actor}
        else:
            out.update({key: value for key, value in record.items() if key not in ("prev", "hash")})
            if "seed" in out and not (viewer.is_host or self.seed_revealed(version)):
                out["seed"] = "hidden until the match is over"  # a reopening rollback's new seed
        return out

    def approx_bytes(self) -> int:
        """A rough estimate of this match's memory, for the cache bounded by memory."""
        return 4096 + 2048 * len(self.records)

    def retracted(self) -> set[int]:
        return retracted_versions(self.records)


def cause(actor: str | None, command: Any = None, text: str | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"actor": actor, **extra}
    if command is not None:
        out["command"] = codec.to_json(command)
    if text is not None:
        out["text"] = text
    return out


def effective_events(records: list[Record], upto: int) -> list[Event]:
    """The game events in force at version `upto`: rollbacks drop what they retract."""
    effective: list[Event] = []
    count_at: list[int] = [0]  # count_at[v]: effective events after version v
    for record in records[:upto]:
        if record["kind"] == "game":
            effective.append(record["event"])
        elif record["kind"] == "rollback":
            del effective[count_at[int(record["to"])] :]
        count_at.append(len(effective))
    return effective
