"""The match's own rules (server/envelope.py), given/when/then: given the records so far, when a host or
seat decides, then these records, or this refusal. No event loop, no store: a LiveMatch from records."""

from __future__ import annotations

import uuid

import pytest

from engine import match as rules
from engine.contract import Context, Viewer
from engine.errors import InvalidConfig
from server import decisions, envelope
from server.envelope import Envelope, cause, evolve
from server.errors import BadRequest, FailedPrecondition, PermissionDenied, ResourceExhausted, UnknownRecord
from server.limits import Limits
from server.live import LiveMatch
from server.records import Record, token_hash
from server.visibility import visible_record
from tests.support import duel

AT = 1_000.0
LIMITS = Limits()


def created(**extra: object) -> Record:
    return envelope.created_record(
        duel.GAME,
        ["ann", "bob"],
        duel.GAME.default_config(["ann", "bob"]),
        7,
        host_token=token_hash("host"),
        invitations={"ann": token_hash("inv-ann"), "bob": token_hash("inv-bob")},
        host_key=None,
        private=False,
        at=AT,
        **extra,  # type: ignore[arg-type]
    )


def given(*records: Record) -> LiveMatch:
    return LiveMatch.from_records(uuid.uuid4(), list(records))


def started() -> LiveMatch:
    """A match that waited for its players: both joined, its first phase open."""
    live = given(created(waits=True))
    for seat in ("ann", "bob"):
        live.apply(
            decisions.decide_join(live, seat, token_hash(f"seat-{seat}"), AT, invitation=None, by="host", reissue=False)
        )
    for record in decisions.start_records(live, AT):
        live.apply(record)
    return live


def picked(live: LiveMatch, player: str, number: int) -> None:
    events = duel.GAME.decide(live.state, player, duel.Pick(number), _ctx(live))
    for record in envelope.game_records(events, cause(player), AT):
        live.apply(record)


def _ctx(live: LiveMatch) -> Context:
    return rules.context(live.seed, live.game_version, AT)


def host(live: LiveMatch, action: str, reason: str = "why", seconds: float = 0.0, now: float = AT) -> list[Record]:
    return decisions.decide_host_action(live, action, "host", reason, seconds, now, LIMITS)


def test_an_unknown_record_kind_is_an_error_and_changes_nothing() -> None:
    live = started()
    before = (live.version, live.envelope)
    with pytest.raises(UnknownRecord, match="'other'"):
        evolve(live.envelope, {"kind": "other", "at": AT}, live.version + 1)
    with pytest.raises(UnknownRecord):
        live.apply({"kind": "other", "at": AT})
    assert (live.version, live.envelope) == before


def test_a_join_replaces_the_seats_token_and_a_claimed_seat_needs_reissue() -> None:
    live = started()
    with pytest.raises(FailedPrecondition, match="ann's seat is claimed; set reissue"):
        decisions.decide_join(live, "ann", token_hash("new"), AT, invitation=None, by="host", reissue=False)
    record = decisions.decide_join(live, "ann", token_hash("new"), AT, invitation=None, by="host", reissue=True)
    after = evolve(live.envelope, record, live.version + 1)
    assert after.tokens[token_hash("new")] == ("player", "ann")
    assert token_hash("seat-ann") not in after.tokens  # the old token stops working
    with pytest.raises(InvalidConfig, match="'cy' is not a seat"):
        decisions.decide_join(live, "cy", token_hash("x"), AT, invitation=None, by="host", reissue=False)


def test_a_wrong_invitation_claims_no_seat() -> None:
    live = given(created(waits=True))
    with pytest.raises(PermissionDenied, match="does not claim ann's seat"):
        decisions.decide_join(live, "ann", token_hash("t"), AT, invitation=token_hash("inv-bob"), by="", reissue=False)
    record = decisions.decide_join(
        live, "ann", token_hash("t"), AT, invitation=token_hash("inv-ann"), by="", reissue=False
    )
    assert record["via"] == "invitation"


def test_pause_resume_and_extend_move_the_match_clock() -> None:
    live = started()
    [pause] = host(live, "pause", now=AT + 10)
    live.apply(pause)
    assert live.paused_at == AT + 10 and live.clock_at(AT + 99) == AT + 10
    with pytest.raises(FailedPrecondition, match="already paused"):
        host(live, "pause")
    [extend] = host(live, "extend", seconds=30, now=AT + 20)
    live.apply(extend)
    assert live.paused_at == AT - 20  # paused, the stopped clock is held back
    [resume] = host(live, "resume", now=AT + 50)
    live.apply(resume)
    assert live.paused_at is None and live.clock_at(AT + 50) == AT - 20
    with pytest.raises(FailedPrecondition, match="not paused"):
        host(live, "resume")
    with pytest.raises(BadRequest, match="positive number of seconds"):
        host(live, "extend", seconds=-1)


def test_cancel_needs_a_reason_ends_the_match_and_is_final() -> None:
    live = started()
    with pytest.raises(BadRequest, match="cancel needs a reason"):
        host(live, "cancel", reason=" ")
    [cancel] = host(live, "cancel", reason="no-show")
    live.apply(cancel)
    assert live.cancelled_at == live.version and live.status().finished
    with pytest.raises(FailedPrecondition, match="the match is over"):
        host(live, "pause")
    assert host(live, "settle", reason="tie to ann")[0]["action"] == "settle"  # settle still decides


def test_start_opens_a_waiting_match_once() -> None:
    live = given(created(waits=True))
    assert live.waiting
    records = host(live, "start")
    assert [r["kind"] for r in records][:2] == ["host", "game"] and all(r.get("start") for r in records[1:])
    for record in records:
        live.apply(record)
    assert not live.waiting
    with pytest.raises(FailedPrecondition, match="started already"):
        host(live, "start")
    with pytest.raises(BadRequest, match="unknown host action 'dance'"):
        host(live, "dance")


def test_a_rollback_returns_to_a_batch_end_and_pauses_there() -> None:
    live = started()
    with pytest.raises(FailedPrecondition, match="nothing to roll back"):
        decisions.decide_rollback(given(created(waits=True)), 1, "why", "host", AT, reopen=False, new_seed=1)
    picked(live, "ann", 3)
    mark = live.version
    picked(live, "bob", 1)  # resolves the round: a batch of several records
    with pytest.raises(BadRequest, match="a rollback needs a reason"):
        decisions.decide_rollback(live, mark, " ", "host", AT, reopen=False, new_seed=1)
    inside = live.version - 1
    if not live.batches.is_end(inside):
        with pytest.raises(BadRequest, match="nearest batch end before it"):
            decisions.decide_rollback(live, inside, "why", "host", AT, reopen=False, new_seed=1)
    record = decisions.decide_rollback(live, mark, "misread", "host", AT + 5, reopen=False, new_seed=1)
    assert record["paused"] is True and "seed" not in record
    live.apply(record)
    assert live.paused_at == float(live.records[mark - 1]["at"])


def test_a_finished_match_reopens_only_on_request_with_a_new_seed() -> None:
    live = started()
    while not live.status().finished:
        picked(live, "ann", 3)
        picked(live, "bob", 1)
    to = live.started_version
    with pytest.raises(FailedPrecondition, match="fork it to explore"):
        decisions.decide_rollback(live, to, "why", "host", AT, reopen=False, new_seed=99)
    record = decisions.decide_rollback(live, to, "why", "host", AT, reopen=True, new_seed=99)
    assert record["reopen"] is True and record["seed"] == 99
    live.apply(record)
    assert live.seed == 99 and live.seeds[-1] == (live.version, 99)
    # What was public once the match finished stays public: a spectator sees the first seed.
    assert visible_record(live, 1, Viewer.spectator())["seed"] == 7


def test_a_fork_starts_where_the_origin_stood_and_draws_anew_once_the_seed_was_public() -> None:
    live = started()
    picked(live, "ann", 2)
    picked(live, "bob", 3)
    at = live.version
    fork = fork_of(live, at)
    assert fork.records[0]["seed"] == 7 and "reseeded" not in fork.records[0]
    assert fork.records[0]["origin"] == {"match_id": str(live.id), "version": at}
    assert fork.note["action"] == "fork" and fork.note["at_version"] == at
    while not live.status().finished:
        picked(live, "ann", 3)
        picked(live, "bob", 1)
    reseeded = fork_of(live, at)
    assert reseeded.records[0]["seed"] == 42 and reseeded.records[0]["reseeded"] is True
    with pytest.raises(ResourceExhausted, match="max_forks_per_match is 0"):
        fork_of(live, at, max_forks=0)
    with pytest.raises(FailedPrecondition, match="fork it once it has"):
        fork_of(given(created(waits=True)), 1)


def fork_of(live: LiveMatch, at: int, max_forks: int = 20) -> decisions.Fork:
    return decisions.decide_fork(
        live,
        at,
        str(uuid.uuid4()),
        host_token=token_hash("h2"),
        invitations={},
        by="host",
        reason="explore",
        server_now=AT,
        new_seed=42,
        max_forks=max_forks,
    )


def test_a_fresh_envelope_has_no_tokens_and_no_clock_offset() -> None:
    assert Envelope().tokens == {} and Envelope().clock_offset == 0.0 and Envelope().paused_at is None
    first = evolve(Envelope(), created(), 1)
    assert first.tokens == {token_hash("host"): ("host", None)} and first.seeds == ((1, 7),)
