"""Deadlines and the match clock over a real server, with a controllable clock (no sleeps for long times)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import grpc
import pytest

from clients.client import MatchClient
from server.app import Settings
from server.clock import Clock, ManualClock
from tests.support.duel import started_duel
from tests.support.server import ServerThread
from tests.support.waiting import wait_until


def wait_for_phase(client: MatchClient, match_id: str, token: str, phase: str) -> bool:
    wait_until(lambda: client.state(match_id, token).status.phase == phase, f"the match is in {phase}")
    return True


def records(client: MatchClient, match_id: str, token: str) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(event.json) for event in client.history(match_id, token)]


def test_views_carry_the_deadline_and_the_match_clock(server: ServerThread, clock: ManualClock) -> None:
    client = server.client()
    created = started_duel(client)
    state = client.state(created.match_id)
    assert state.status.deadline - state.clock == 60
    clock.advance(25)
    state = client.state(created.match_id)
    assert state.status.deadline - state.clock == 35


def test_a_pause_stops_the_clock_and_a_resume_keeps_the_time_left(server: ServerThread, clock: ManualClock) -> None:
    client = server.client()
    created = started_duel(client)
    match_id, host = created.match_id, created.host_token
    ann = client.join(match_id, "ann")
    clock.advance(20)
    client.host_action(match_id, host, "pause", "a player's connection is down")
    assert client.state(match_id).status.paused
    clock.advance(600)  # far past the deadline while paused
    time.sleep(0.2)  # several ticks
    assert client.state(match_id).status.phase == "round 1"
    with pytest.raises(grpc.RpcError) as info:
        client.submit(match_id, ann, text="pick 1")
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "paused" in info.value.details()
    client.host_action(match_id, host, "resume", "back")
    state = client.state(match_id)
    assert state.status.deadline - state.clock == pytest.approx(40)
    clock.advance(39)
    time.sleep(0.2)
    assert client.state(match_id).status.phase == "round 1"
    clock.advance(2)
    assert wait_for_phase(client, match_id, host, "round 2")
    actions = [r["action"] for r in records(client, match_id, host) if r["kind"] == "host"]
    assert actions == ["start", "pause", "resume"]
    audited = [entry.lines[0] for entry in client.audit(match_id) if entry.kind == "host"]
    assert audited[1:] == ["host: pause: a player's connection is down", "host: resume: back"]


def test_extending_a_deadline_gives_the_phase_more_time(server: ServerThread, clock: ManualClock) -> None:
    client = server.client()
    created = started_duel(client)
    match_id, host = created.match_id, created.host_token
    client.host_action(match_id, host, "extend", "holiday", seconds=30)
    clock.advance(70)
    time.sleep(0.2)
    assert client.state(match_id).status.phase == "round 1"
    clock.advance(21)
    assert wait_for_phase(client, match_id, host, "round 2")
    extend = [r for r in records(client, match_id, host) if r.get("action") == "extend"]
    assert extend[0]["seconds"] == 30 and extend[0]["reason"] == "holiday"


def test_a_player_cannot_pause_and_extend_needs_a_positive_time(server: ServerThread) -> None:
    client = server.client()
    created = started_duel(client)
    ann = client.join(created.match_id, "ann")
    for token, action, seconds, code in (
        (ann, "pause", 0.0, grpc.StatusCode.PERMISSION_DENIED),
        (created.host_token, "extend", -5.0, grpc.StatusCode.INVALID_ARGUMENT),
        (created.host_token, "resume", 0.0, grpc.StatusCode.FAILED_PRECONDITION),
        (created.host_token, "explode", 0.0, grpc.StatusCode.INVALID_ARGUMENT),
    ):
        with pytest.raises(grpc.RpcError) as info:
            client.host_action(created.match_id, token, action, seconds=seconds)
        assert info.value.code() == code, action


def test_a_rollback_restores_the_deadline_of_the_version_rolled_back_to(
    server: ServerThread, clock: ManualClock
) -> None:
    client = server.client()
    created = started_duel(client)
    match_id, host = created.match_id, created.host_token
    ann, bob = client.join(match_id, "ann"), client.join(match_id, "bob")
    clock.advance(10)
    client.submit(match_id, ann, text="pick 2")
    at_pick = client.state(match_id, host)
    left_then = at_pick.status.deadline - at_pick.clock
    clock.advance(30)
    client.submit(match_id, bob, text="pick 1")
    clock.advance(45)  # round 2 is under way, 15 s left
    client.rollback(match_id, host, at_pick.version, "bob misread the round")
    state = client.state(match_id, host)
    assert state.status.phase == "round 1" and state.status.awaiting == ["bob"]
    assert state.status.deadline - state.clock == pytest.approx(left_then)


def test_a_time_scale_runs_the_match_clock_faster() -> None:
    fast = Clock(scale=1000)
    start = fast.now()
    time.sleep(0.05)
    assert fast.now() - start >= 40  # 50 ms of real time is at least 40 s of match time


def test_a_submission_after_an_unapplied_deadline_first_applies_that_deadline(tmp_path: Path) -> None:
    clock = ManualClock()
    settings = Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"), clock=clock, tick_interval=3600)
    server = ServerThread(settings).start()  # a ticker that will not run during the test
    client = server.client()
    created = started_duel(client)
    ann = client.join(created.match_id, "ann")
    clock.advance(61)  # round 1's deadline passes; nothing has applied it yet
    reply = client.submit(created.match_id, ann, text="pick 2")
    assert reply.status.phase == "round 2"  # the pick counts for round 2, after round 1's defaults
    kinds = [json.loads(e.json).get("event", {}).get("type") for e in client.history(created.match_id)]
    assert kinds[-3:] == ["Resolved", "RoundOpened", "Picked"]
    server.stop()
