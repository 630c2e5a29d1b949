"""The match's own rules as deciders (server/envelope.py folds what they return): each checks a host's or
a seat's command against the match as it stands and returns the records to append, or raises one of the
server's error families. Pure: no I/O, no clock read, no dice rolled; the caller passes the times and any
new seed in, and the records carry them (replay never draws)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine import match as rules
from engine.contract import Event, Json
from engine.errors import InvalidConfig
from server.envelope import cause, created_record, effective_events, game_records
from server.errors import (
    Aborted,
    BadRequest,
    FailedPrecondition,
    PermissionDenied,
    ResourceExhausted,
    engine_step,
)
from server.limits import Limits, check_extend_seconds
from server.live import LiveMatch
from server.records import Record
from server.seats import invitation_matches, seat_claimed, valid_invitation


def start_records(live: LiveMatch, at: float) -> list[Record]:
    """A waiting match's first phase, opened at `at` (match clock): the game's start, recorded."""
    game = live.game
    events = engine_step(lambda: game.start(live.state, rules.context(live.seed, live.game_version, at)))
    return game_records(events, cause("server", start=True), at, start=True)


def check_starts_at(starts_at: float | None, now: float) -> None:
    if starts_at is not None and (not math.isfinite(starts_at) or starts_at <= now):
        raise BadRequest(f"starts_at {starts_at} is not a time to come (the server's time is {now:.0f})")


def check_seat(live: LiveMatch, player: str) -> None:
    if player not in live.players:
        raise InvalidConfig(f"{player!r} is not a seat of this match; seats: {', '.join(live.players)}")


def decide_submission(live: LiveMatch, player: str, command: Any, now: float) -> list[Event]:
    """The events of `player`'s command on the match as it stands, at match-clock `now`: its seed and dice
    position, the engine's generic checks and the game's rules (a refusal is the game's GameError)."""
    context = rules.context(live.seed, live.game_version, now)
    return engine_step(lambda: rules.submit(live.game, live.state, player, command, context))


def decide_timeout(live: LiveMatch, at: float) -> list[Event]:
    """The events of the phase's deadline passing at match-clock `at` (none: nothing to end)."""
    context = rules.context(live.seed, live.game_version, at)
    return engine_step(lambda: live.game.timeout(live.state, context))


def decide_join(
    live: LiveMatch, player: str, digest: str, now: float, *, invitation: str | None, by: str, reissue: bool
) -> Record:
    """A seat claimed with its invitation (`invitation`: its digest), or filled by the host or admin (`by`)."""
    check_seat(live, player)
    if invitation is not None:
        if not invitation_matches(valid_invitation(live.records, player), invitation):
            raise PermissionDenied(
                f"this invitation does not claim {player}'s seat: it is wrong, replaced, or already used "
                "(the seat has acted); ask the host for a new one (matchctl invite)"
            )
        by = "invitation"
    elif seat_claimed(live.tokens, player) and not reissue:
        raise FailedPrecondition(
            f"{player}'s seat is claimed; set reissue to give it a new token (the old one stops working)"
        )
    return {"kind": "joined", "player": player, "token": digest, "via": by, "at": now}


def decide_invite(live: LiveMatch, player: str, digest: str, now: float) -> Record:
    check_seat(live, player)
    return {"kind": "invited", "player": player, "invitation": digest, "at": now}


def check_open(live: LiveMatch, *, settling: bool = False) -> None:
    if live.status().finished and not settling:
        raise FailedPrecondition("the match is over")


def decide_host_action(
    live: LiveMatch, action: str, by: str, reason: str, seconds: float, server_now: float, limits: Limits
) -> list[Record]:
    """Pause, resume, extend, settle, cancel or start: an audited host record (pause, resume and extend
    move the match clock; cancel ends the match with no result, for good; start opens a waiting match's
    first phase, whoever has joined)."""
    check_open(live, settling=action == "settle")
    now = live.clock_at(server_now)
    record: Record = {"kind": "host", "action": action, "by": by, "reason": reason, "at": now}
    if action == "pause":
        if live.paused_at is not None:
            raise FailedPrecondition("the match is already paused")
    elif action == "resume":
        if live.paused_at is None:
            raise FailedPrecondition("the match is not paused")
        record["offset"] = server_now - live.paused_at  # the clock goes on from where it stopped
    elif action == "settle":  # the host's decision where the rules leave it to them (e.g. MN-5 ties)
        if not reason.strip():
            raise BadRequest("settle needs the decision, as the reason")
    elif action == "cancel":
        if not reason.strip():
            raise BadRequest("cancel needs a reason (it is kept in the match's log)")
    elif action == "start":
        if not live.waiting:
            raise FailedPrecondition("the match has started already")
        return [record, *start_records(live, now)]
    elif action == "extend":
        check_extend_seconds(seconds, limits)
        if seconds <= 0:
            raise BadRequest("extend the deadline by a positive number of seconds")
        record["seconds"] = seconds
        record["offset"] = live.clock_offset + seconds  # the match clock is held back
    else:
        raise BadRequest(f"unknown host action {action!r}")
    return [record]


def check_batch_end(live: LiveMatch, version: int, verb: str) -> None:
    """A rollback or fork returns to a state between batches: one inside a batch awaits nobody."""
    if not live.batches.is_end(version):
        before, after = live.batches.nearest_ends(version)
        raise BadRequest(
            f"version {version} is inside the records of one command, deadline or host action; "
            f"{verb} the nearest batch end before it, {before}, or after it, {after}"
        )


def decide_rollback(
    live: LiveMatch, to: int, reason: str, by: str, server_now: float, *, reopen: bool, new_seed: int
) -> Record:
    """Retract everything after `to` (kept in the log, marked) and pause the match there. A finished match
    reopens only on request, with `new_seed` recorded: its seed was public, so the dice after `to` are known."""
    if not reason.strip():
        raise BadRequest("a rollback needs a reason")
    if live.waiting:
        raise FailedPrecondition("the match has not started: there is nothing to roll back")
    if not live.started_version <= to < live.version:
        raise BadRequest(
            f"roll back to a version from {live.started_version} (the match's start) to {live.version - 1}"
        )
    check_batch_end(live, to, "roll back to")
    if live.cancelled_at:
        raise FailedPrecondition("the match was cancelled by the host: a cancel is final (fork it to play on)")
    finished = live.status().finished
    if finished and not reopen:
        raise FailedPrecondition(
            "the match is over and its seed and hidden configuration are public: fork it to explore "
            "(matchctl fork), or roll back with reopen to play on with a new seed"
        )
    # The match clock goes back to the time of version `to` and stops there (`paused`): its deadlines and
    # reserves are restored, and nothing runs out until the host resumes.
    clock_to = float(live.records[to - 1]["at"])
    record: Record = {"kind": "rollback", "to": to, "reason": reason, "by": by, "at": live.clock_at(server_now)}
    record.update(clock_to=clock_to, offset=server_now - clock_to, paused=True)
    if finished:
        record.update(reopen=True, seed=new_seed)
    return record


@dataclass(frozen=True)
class Fork:
    """What a fork writes: the new match's records, and the note in the origin's log."""

    records: list[Record]
    note: Record


def decide_fork(
    source: LiveMatch,
    at: int,
    fork_id: str,
    *,
    host_token: str,
    invitations: Mapping[str, str],
    by: str,
    reason: str,
    server_now: float,
    new_seed: int,
    max_forks: int,
) -> Fork:
    """A new match as `source` stood at `at`, its clock starting where the origin stood there."""
    if source.waiting:
        raise FailedPrecondition("the match has not started: fork it once it has")
    forks = sum(1 for record in source.records if record["kind"] == "host" and record.get("action") == "fork")
    if forks >= max_forks:
        raise ResourceExhausted(f"match {source.id} has {forks} forks: max_forks_per_match is {max_forks}")
    if not source.started_version <= at <= source.version:
        raise BadRequest(f"fork at a version from {source.started_version} to {source.version}")
    check_batch_end(source, at, "fork at")
    header = source.header
    now = float(source.records[at - 1]["at"])
    # The fork draws what the origin would have drawn, unless that seed was public once (the origin
    # finished): then its dice would be known in advance, so it gets a new one.
    reseeded = source.envelope.seed_revealed(at)
    extra: dict[str, Json] = {"reseeded": True} if reseeded else {}
    created = created_record(
        source.game,
        header["players"],
        header["config"],
        new_seed if reseeded else source.envelope.seed_at(at),
        host_token=host_token,
        invitations=invitations,
        host_key=header.get("host_key"),
        private=bool(header.get("private")),
        at=now,
        offset=server_now - now,
        origin={"match_id": str(source.id), "version": at},
        **extra,
    )
    created["rules_version"] = header["rules_version"]  # the origin's rules, whatever today's are
    why = {"actor": "fork", "origin": str(source.id), "version": at}
    records = [created, *game_records(effective_events(source.records, at), why, now, start=True)]
    note: Record = {"kind": "host", "action": "fork", "by": by, "reason": reason, "fork": fork_id}
    note.update(at_version=at, at=source.clock_at(server_now))
    return Fork(records, note)


def refuse_held_seats(live: LiveMatch) -> None:
    """Seats held by identities (bots) are claimed with their keys, never by invitation."""
    if live.seat_holders:
        raise FailedPrecondition("the seats of this match belong to its bots: they play with their bot keys")


def check_expected(live: LiveMatch, expected_version: int | None) -> None:
    """A host action issued against a version the match has moved on from (e.g. a duplicate) is refused."""
    if expected_version is not None and expected_version != live.version:
        raise Aborted(f"the match moved on: it is at version {live.version}, not {expected_version}; nothing was done")
