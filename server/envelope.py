"""The match's own state around the game: what its server records (joins, host actions, rollbacks) have
made of its tokens, its clock and its seeds, folded record by record as the games fold their events.

Like the games (engine/contract.py): `evolve(envelope, record, version)` folds one record into a frozen
`Envelope` and refuses a kind it does not know; server/decisions.py decides which records a command
appends. Also here: the records themselves (`created_record`, `game_records`, `cause`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Protocol, TypeVar

from engine import codec
from engine.contract import Event, Game, Json
from server.errors import UnknownRecord
from server.records import Record

T = TypeVar("T")
Token = tuple[str, str | None]  # (role, player): ("host", None) or ("player", seat)


@dataclass(frozen=True, slots=True)
class Envelope:
    """What the server's own records have made of a match (its game state aside)."""

    tokens: Mapping[str, Token] = field(default_factory=dict)  # token hash -> who it is
    started_version: int = 1  # the last record written by the game's start
    started_at: int = 0  # the first record written by the game's start (0: it waits for its players)
    # The match clock is the server clock minus this offset: pauses, extensions and rollbacks move it.
    clock_offset: float = 0.0
    paused_at: float | None = None  # the match-clock time at which the host paused the match
    # (version, seed) of every record that set the seed: `created`, and each rollback that reopened a
    # finished match (its seed had been revealed, so what follows is drawn from a new one).
    seeds: tuple[tuple[int, int], ...] = ()
    # The version of the host's `cancel` record (0: not cancelled): from it on the match is over with no
    # result, whatever its game state says. A cancel is final: no rollback undoes it.
    cancelled_at: int = 0
    # The last version at which the match was finished (0: never). Whatever was public then (the seeds
    # recorded up to it, the host-set secret configuration) stays public after a reopening rollback.
    finished_last: int = 0
    # The versions of its disputes' records (filed and decided: server/disputes/log.py reads only these).
    disputes: tuple[int, ...] = ()

    def seed_at(self, version: int) -> int:
        """The seed in force for a decision made after `version`: the last one recorded up to it (the
        `created` record's at versions 0 and 1)."""
        for recorded_at, seed in reversed(self.seeds):
            if recorded_at <= version:
                return seed
        return self.seeds[0][1]

    def seed_revealed(self, version: int) -> bool:
        """Whether the seed in force after `version` has been public (the match finished under it)."""
        recorded_at = max((at for at, _ in self.seeds if at <= version), default=1)
        return recorded_at <= self.finished_last

    def finished(self, version: int) -> Envelope:
        """The game reports the match finished after `version`."""
        return replace(self, finished_last=version)


class Enveloped(Protocol):
    envelope: Envelope


class FromEnvelope(Generic[T]):
    """A LiveMatch attribute read from its envelope (the envelope alone changes it, record by record)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, live: Enveloped, owner: type | None = None) -> T:
        value: T = getattr(live.envelope, self.name)
        return value


def evolve(envelope: Envelope, record: Record, version: int) -> Envelope:
    """`envelope` after `record` (which becomes `version`). An unknown kind is an error, not ignored."""
    changes: dict[str, Any] = {}
    match record["kind"]:
        case "created":
            changes["tokens"] = {record["host_token"]: ("host", None)}
        case "joined":  # a seat has one token: a re-issued token revokes the old one
            seat = ("player", record["player"])
            tokens = {digest: who for digest, who in envelope.tokens.items() if who != seat}
            changes["tokens"] = {**tokens, record["token"]: seat}
        case "game":
            if record.get("start"):
                changes["started_version"] = version
                if not envelope.started_at:
                    changes["started_at"] = version  # the first start record: the match no longer waits
        case "invited" | "chain_keyed":
            pass  # an invitation is checked from the log (server/seats.py); a keyed chain changes nothing
        case "dispute" | "dispute_decided":
            changes["disputes"] = (*envelope.disputes, version)
        case "rollback":
            # Since release 11 a rollback pauses the match at the restored clock (`paused`); before,
            # it only moved a pause that was already on.
            if record.get("paused") or envelope.paused_at is not None:
                changes["paused_at"] = float(record["clock_to"])
        case "host":
            changes.update(_host_changes(envelope, record, version))
        case kind:
            raise UnknownRecord(f"a match has no record of kind {kind!r}")
    if record["kind"] in ("created", "rollback") and "seed" in record:
        changes["seeds"] = (*envelope.seeds, (version, int(record["seed"])))
    if "offset" in record:
        changes["clock_offset"] = float(record["offset"])
    return replace(envelope, **changes) if changes else envelope


def _host_changes(envelope: Envelope, record: Record, version: int) -> dict[str, Any]:
    action = record.get("action")
    if action == "pause":
        return {"paused_at": float(record["at"])}
    if action == "cancel":
        return {"cancelled_at": version}
    if action == "resume":
        return {"paused_at": None}
    if action == "extend" and envelope.paused_at is not None:
        # Paused (say, after a rollback), the stopped clock is held back: the resume keeps the time.
        return {"paused_at": envelope.paused_at - float(record["seconds"])}
    return {}


# --- records ------------------------------------------------------------------------------------


def created_record(
    game: Game[Any, Any],
    players: Sequence[str],
    config: Mapping[str, Json],
    seed: int,
    *,
    host_token: str,
    invitations: Mapping[str, str],
    host_key: str | None,
    private: bool,
    at: float,
    **extra: Json,
) -> Record:
    """A match's first record (token and invitation digests, never their secrets)."""
    record: Record = {
        "kind": "created",
        "game": game.name,
        "players": list(players),
        "config": dict(config),
        "seed": seed,
        "rules_version": game.rules_version,
        "host_token": host_token,
        "invitations": dict(invitations),
        "host_key": host_key,
        "private": private,
        "at": at,
    }
    record.update(extra)
    return record


def game_records(events: Sequence[Event], why: Mapping[str, Any], at: float, start: bool = False) -> list[Record]:
    """A batch's game records: the cause on the first; `start` marks the game's start records."""
    records: list[Record] = []
    for index, event in enumerate(events):
        record: Record = {"kind": "game", "event": event, "at": at}
        if index == 0:
            record["cause"] = dict(why)
        if start:
            record["start"] = True
        records.append(record)
    return records


def cause(actor: str | None, command: Any = None, text: str | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"actor": actor, **extra}
    if command is not None:
        out["command"] = codec.to_json(command)
    if text is not None:
        out["text"] = text
    return out


def effective_events(records: Sequence[Record], upto: int) -> list[Event]:
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
