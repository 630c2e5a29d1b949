"""A match waits for its players (issue 24, defect 2): no clock runs before anyone could act. Its first
phase opens when its last seat is claimed, when the host starts it, or at a start time the host set at
creation; until then it says it is waiting and no deadline is due. Matches stored by earlier releases
keep the clock they recorded (tests/e2e/test_release_fixtures.py). The adversary is the clock itself:
a Cookoff match nobody joined used to be decided on time 240 s after `create`."""

from __future__ import annotations

import grpc
import pytest

from clients.client import MatchClient
from matchserver.v1 import matchserver_pb2 as pb
from server.clock import ManualClock
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

DAY = 24 * 3600


def _ticks(server: ServerThread, count: int = 3) -> None:
    assert server.running is not None
    matches = server.running.matches
    start = matches.ticks
    wait_until(lambda: matches.ticks >= start + count, f"{count} ticker passes")


@pytest.mark.parametrize(("game", "players"), [("cookoff", ["ann", "bob"]), ("mining", list("abcde"))])
def test_a_match_nobody_joined_waits_with_no_clock_running(
    server: ServerThread, clock: ManualClock, game: str, players: list[str]
) -> None:
    client = server.client()
    try:
        created = client.create(game, players, seed=5)
        clock.advance(30 * DAY)  # far past any phase's deadline
        _ticks(server)
        state = client.state(created.match_id, created.host_token)
        assert state.status.phase.startswith("waiting for players")
        assert not state.status.finished and not state.status.HasField("deadline")
        assert state.version == 1  # only the created record: nothing was decided on time
        token = client.join(created.match_id, players[0])
        with pytest.raises(grpc.RpcError) as refused:  # a seat cannot act before the start
            client.submit(created.match_id, token, text="anything")
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "has not started" in (refused.value.details() or "")
    finally:
        client.close()


def test_the_first_phase_opens_when_the_last_seat_is_claimed_and_its_clock_runs_from_then(
    server: ServerThread, clock: ManualClock
) -> None:
    client = server.client()
    try:
        created = client.create("cookoff", ["ann", "bob"], seed=5)
        client.join(created.match_id, "ann")
        clock.advance(DAY)  # a day before bob joins: none of it is on anyone's clock
        assert client.state(created.match_id).status.phase.startswith("waiting for players: bob")
        client.join(created.match_id, "bob")
        status = client.state(created.match_id, created.host_token).status
        assert not status.phase.startswith("waiting") and status.awaiting
        match_now = client.state(created.match_id, created.host_token).clock
        assert status.deadline > match_now  # the first deadline lies ahead of the start, not a day behind it
    finally:
        client.close()


def test_the_host_starts_a_match_before_every_seat_is_claimed(server: ServerThread) -> None:
    client = server.client()
    try:
        created = client.create("cookoff", ["ann", "bob"], seed=5)
        client.join(created.match_id, "ann")
        reply = client.host_action(created.match_id, created.host_token, "start", reason="bob plays later")
        assert not reply.status.phase.startswith("waiting") and reply.status.awaiting
        with pytest.raises(grpc.RpcError) as again:
            client.host_action(created.match_id, created.host_token, "start", reason="twice")
        assert again.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert client.verify(created.match_id, created.host_token).ok
    finally:
        client.close()


def test_a_start_time_set_at_creation_opens_the_match_then_and_not_before(
    server: ServerThread, clock: ManualClock
) -> None:
    client = server.client()
    try:
        starts_at = clock.now() + 3600
        request = pb.CreateMatchRequest(game="cookoff", players=["ann", "bob"], seed=5, starts_at=starts_at)
        created = client.stub.CreateMatch(request, metadata=[("authorization", f"Bearer {server.admin_token}")])
        for seat in ("ann", "bob"):
            client.join(created.match_id, seat)
        assert client.state(created.match_id).status.phase.startswith("waiting for players")  # not yet
        clock.advance(3601)
        wait_until(
            lambda: not client.state(created.match_id).status.phase.startswith("waiting"), "the match opens on time"
        )
        assert client.verify(created.match_id, created.host_token).ok
        past = pb.CreateMatchRequest(game="cookoff", players=["ann", "bob"], starts_at=clock.now() - 1)
        with pytest.raises(grpc.RpcError) as refused:
            client.stub.CreateMatch(past, metadata=[("authorization", f"Bearer {server.admin_token}")])
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        client.close()


def test_a_waiting_match_is_neither_forked_rolled_back_nor_forced(server: ServerThread) -> None:
    client: MatchClient = server.client()
    try:
        created = client.create("cookoff", ["ann", "bob"], seed=5)
        for call in (
            lambda: client.fork(created.match_id, created.host_token, at_version=1),
            lambda: client.rollback(created.match_id, created.host_token, to_version=1, reason="x"),
            lambda: client.force_phase_end(created.match_id, created.host_token, reason="x"),
        ):
            with pytest.raises(grpc.RpcError) as refused:
                call()
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "not started" in (refused.value.details() or "")
    finally:
        client.close()
