"""Safe rollback over a real server: batch-end targets, a pause after every rollback, reopening a
finished match with a new recorded seed, reseeded forks, and host actions that carry their version."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import grpc
import pytest

from clients import cli
from clients.client import MatchClient
from engine.rng import rng_for
from server.clock import ManualClock
from server.ticker import tick
from tests.conftest import make_server
from tests.support.duel import seat_duel
from tests.support.server import ServerThread

Record = dict[str, Any]
RELEASE_10 = Path(__file__).parents[1] / "fixtures" / "release-10"
FIXTURE_MTIME = (RELEASE_10 / "var" / "matches.db").stat().st_mtime


def records(client: MatchClient, match_id: str, token: str | None) -> list[Record]:
    return [json.loads(event.json) for event in client.history(match_id, token)]


def refused(call: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value


def run_ticker_once(server: ServerThread) -> int:
    """One pass of the deadline ticker, as the server runs it (the background one runs as well)."""
    assert server.running is not None
    return server.run(tick(server.running.matches))


def finish_duel(client: MatchClient, match_id: str, host: str) -> None:
    """Three rounds, every pick a seeded default: the host ends each round."""
    while not client.state(match_id, host).status.finished:
        seen = client.state(match_id, host).version
        client.force_phase_end(match_id, host, "nobody is here", expected_version=seen)


def test_a_target_inside_a_batch_is_refused_naming_the_nearest_batch_ends(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=21)
    after_ann = client.submit(match_id, ann, text="pick 3").version  # 5
    resolved = client.submit(match_id, bob, text="pick 1").version  # 6 Picked, 7 Resolved, 8 RoundOpened
    assert resolved == after_ann + 3
    written = client.state(match_id, host).version
    for inside in (after_ann + 1, after_ann + 2):
        error = refused(lambda to=inside: client.rollback(match_id, host, to, "bob mistyped"))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert f"before it, {after_ann}, or after it, {resolved}" in error.details(), error.details()
        error = refused(lambda at=inside: client.fork(match_id, host, at, "what if"))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert client.state(match_id, host).version == written  # nothing was written
    assert not client.state(match_id, host).status.paused


def test_a_target_just_after_one_players_sealed_submission_is_allowed(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=21)
    after_ann = client.submit(match_id, ann, text="pick 3").version
    client.submit(match_id, bob, text="pick 1")
    reply = client.rollback(match_id, host, after_ann, "bob mistyped")
    assert reply.status.phase == "round 1" and list(reply.status.awaiting) == ["bob"] and reply.status.paused
    assert client.state(match_id, ann).view["my_picks"] == {"ann": 3}  # ann's sealed pick stands


def test_after_a_rollback_the_match_is_paused_and_no_deadline_fires_until_resume(
    server: ServerThread, clock: ManualClock, capsys: pytest.CaptureFixture[str]
) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=21)
    clock.advance(10)
    after_ann = client.submit(match_id, ann, text="pick 2").version  # 50 s left in round 1
    clock.advance(30)
    client.submit(match_id, bob, text="pick 1")
    clock.advance(45)
    argv = ["--server", server.address, "rollback", match_id, "--to", str(after_ann), "--reason", "redo"]
    assert cli.main([*argv, f"--token={host}"]) == 0
    printed = capsys.readouterr().out
    assert "time left before the deadline: 50 s (0:00:50)" in printed and f"matchctl resume {match_id}" in printed
    state = client.state(match_id, host)
    assert state.status.paused and state.status.deadline - state.clock == pytest.approx(50)
    assert "match clock" in printed and "UTC" in printed  # the match clock, as a time
    rolled_back_at = state.version

    clock.advance(600)  # far past the restored deadline
    assert run_ticker_once(server) == 0
    state = client.state(match_id, host)
    assert state.version == rolled_back_at and state.status.phase == "round 1"
    error = refused(lambda: client.submit(match_id, bob, text="pick 3"))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and "paused" in error.details()

    extended = client.host_action(match_id, host, "extend", "bob needs a minute", seconds=60)
    assert extended.status.paused  # extending does not resume
    client.host_action(match_id, host, "resume", "bob is back")
    state = client.state(match_id, host)
    assert not state.status.paused and state.status.deadline - state.clock == pytest.approx(110)
    clock.advance(109)
    run_ticker_once(server)
    assert client.state(match_id, host).status.phase == "round 1"
    clock.advance(2)
    run_ticker_once(server)
    assert client.state(match_id, host).status.phase == "round 2"
    timeouts = [r for r in records(client, match_id, host) if r.get("cause", {}).get("actor") == "clock"]
    assert [r["event"]["player"] for r in timeouts] == ["bob"]  # only bob's pick was missing


def test_stream_updates_say_whether_the_match_is_paused_as_get_state_does(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=21)
    after_ann = client.submit(match_id, ann, text="pick 2").version
    client.submit(match_id, bob, text="pick 1")
    stream = client.subscribe(match_id, ann, from_version=client.state(match_id, ann).version)
    steps = [
        lambda: client.host_action(match_id, host, "pause", "lunch"),
        lambda: client.host_action(match_id, host, "resume", "back"),
        lambda: client.rollback(match_id, host, after_ann, "bob mistyped"),  # a rollback pauses the match
    ]
    seen = []
    for step in steps:
        written = step().version
        update = next(stream)
        assert update.event.version == written and update.HasField("status")
        assert update.status == client.state(match_id, ann).status  # the status GetState answers, paused and all
        seen.append(update.status.paused)
    assert seen == [True, False, True] and update.rolled_back_to == after_ann
    stream.cancel()


def test_state_at_a_past_version_says_whether_the_match_was_paused_then(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, _bob = seat_duel(client, seed=21)
    before = client.submit(match_id, ann, text="pick 2").version
    paused = client.host_action(match_id, host, "pause", "lunch").version
    resumed = client.host_action(match_id, host, "resume", "back").version
    paused_again = client.host_action(match_id, host, "pause", "tea").version
    at = {version: client.state(match_id, host, version).status.paused for version in (before, paused, resumed)}
    assert at == {before: False, paused: True, resumed: False}
    assert client.state(match_id, host).status.paused and client.state(match_id, host).version == paused_again


def test_a_finished_match_is_rolled_back_only_with_reopen_and_a_new_seed(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, _bob = seat_duel(client, seed=21)
    joined = client.state(match_id, host).version
    finish_duel(client, match_id, host)
    finished_at = client.state(match_id, host).version
    old_seed = records(client, match_id, None)[0]["seed"]  # public once the match is over
    assert old_seed == 21

    error = refused(lambda: client.rollback(match_id, host, joined, "replay it"))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and "fork" in error.details()
    assert client.state(match_id, host).version == finished_at

    reply = client.rollback(match_id, host, joined, "replay it", reopen=True)
    assert reply.status.phase == "round 1" and reply.status.paused and not reply.status.finished
    rollback = records(client, match_id, host)[-1]
    new_seed = rollback["seed"]
    assert rollback["kind"] == "rollback" and rollback["reopen"] is True
    assert isinstance(new_seed, int) and new_seed != old_seed
    for token in (None, ann):  # what was public at the end stays public; the new seed is not
        seen = records(client, match_id, token)
        assert seen[0]["seed"] == old_seed
        assert seen[-1]["seed"] == "hidden until the match is over"
        retracted_results = [
            r["event"]["picks"] for r in seen[:finished_at] if r.get("event", {}).get("type") == "Resolved"
        ]
        assert len(retracted_results) == 3

    client.host_action(match_id, host, "resume", "again")
    finish_duel(client, match_id, host)
    # Each round's first default (ann's) against the seed that should have drawn it: the old seed
    # before the reopening (those records are retracted), the new one after it.
    in_force = 0  # game events in force: the position every draw is keyed on
    checked = {old_seed: 0, new_seed: 0}
    for event in client.history(match_id, host):
        record = json.loads(event.json)
        if record["kind"] == "rollback":
            in_force = sum(1 for r in records(client, match_id, host)[: record["to"]] if r["kind"] == "game")
        elif record["kind"] == "game":
            if record.get("cause", {}).get("timeout"):
                seed = new_seed if event.version > finished_at else old_seed
                assert record["event"]["number"] == rng_for(seed, in_force).randint(1, 3), event.version
                checked[seed] += 1
            in_force += 1
    assert checked == {old_seed: 3, new_seed: 3}
    assert client.verify(match_id, host).ok  # verify re-decides each batch with the seed in force then
    assert records(client, match_id, None)[finished_at]["seed"] == new_seed  # public now it is over again


def test_the_audit_trail_says_a_rollback_reopened_the_match_and_shows_its_seed_only_to_who_may_see_it(
    server: ServerThread,
) -> None:
    client = server.client()
    match_id, host, ann, _bob = seat_duel(client, seed=21)
    joined = client.state(match_id, host).version
    client.submit(match_id, ann, text="pick 2")
    client.rollback(match_id, host, joined, "a plain rollback")  # not reopening: no line about a seed
    client.host_action(match_id, host, "resume", "go on")
    finish_duel(client, match_id, host)
    reopened_at = client.rollback(match_id, host, joined, "replay it", reopen=True).version
    new_seed = records(client, match_id, host)[-1]["seed"]

    def rollback_lines(token: str | None) -> dict[int, list[str]]:
        return {e.version: list(e.lines) for e in client.audit(match_id, token) if e.kind == "rollback"}

    host_lines = rollback_lines(host)
    plain = min(host_lines)
    assert host_lines[plain] == [f"host rolled back to version {joined}: a plain rollback"]
    assert host_lines[reopened_at] == [
        f"host rolled back to version {joined}: replay it",
        f"the match was over, so it was reopened with a new seed {new_seed} for every draw after version {joined} "
        "(the old seed was public)",
    ]
    for token in (None, ann):  # the spectator and a player: told of the reopening, not of the seed
        lines = rollback_lines(token)
        assert lines[plain] == host_lines[plain]
        assert "reopened with a new seed (hidden until the match is over)" in lines[reopened_at][1]
        everything = json.dumps([[*e.lines, e.input] for e in client.audit(match_id, token)])
        assert str(new_seed) not in everything

    client.host_action(match_id, host, "resume", "again")
    finish_duel(client, match_id, host)  # over again: the new seed is public now
    assert rollback_lines(None)[reopened_at] == host_lines[reopened_at]


def test_a_reopened_cookoff_keeps_its_judges_public_and_its_reserves_stay_put_while_paused(
    server: ServerThread, clock: ManualClock
) -> None:
    """The attack report: a finished Cookoff rolled back ran both reserves out four minutes later."""
    client = server.client()
    judges = [
        {"family": "flavour", "want": "sour"},
        {"family": "size", "want": "large"},
        {"family": "cook", "want": "raw"},
    ]
    created = client.create("cookoff", ["ann", "bob"], seed=3, config={"judges": judges})
    match_id, host = created.match_id, created.host_token
    client.join(match_id, "ann")
    client.join(match_id, "bob")
    joined = client.state(match_id, host).version
    finish = client.state(match_id, host)
    clock.advance(finish.status.deadline - finish.clock + 1000)  # both miss gathering: both reserves run out
    run_ticker_once(server)
    assert client.state(match_id, host).status.finished
    assert records(client, match_id, None)[0]["config"]["judges"] == judges

    client.rollback(match_id, host, joined, "the players' connection was down", reopen=True)
    header = records(client, match_id, None)[0]
    assert header["config"]["judges"] == judges and header["seed"] == 3  # still public
    paused = client.state(match_id, host)
    clock.advance(240 + 600)
    assert run_ticker_once(server) == 0
    state = client.state(match_id, host)
    assert state.version == paused.version and not state.status.finished and state.status.paused
    assert state.status.deadline - state.clock == pytest.approx(paused.status.deadline - paused.clock)
    assert client.verify(match_id, host).ok


def test_a_fork_of_a_match_whose_seed_was_revealed_draws_a_new_seed(server: ServerThread) -> None:
    client = server.client()
    match_id, host, _ann, _bob = seat_duel(client, seed=21)
    joined = client.state(match_id, host).version
    running = client.fork(match_id, host, joined, "still secret")
    assert running.seed == 21  # an unfinished match's fork draws what the match would draw
    finish_duel(client, match_id, host)
    forked = client.fork(match_id, host, joined, "what if they had played")
    header = records(client, forked.match_id, forked.host_token)[0]
    assert forked.seed == header["seed"] != 21 and header["reseeded"] is True
    assert records(client, forked.match_id, None)[0].get("seed") is None  # secret until the fork ends
    client.force_phase_end(forked.match_id, forked.host_token, "nobody is here")
    defaults = [
        r for r in records(client, forked.match_id, forked.host_token) if r.get("event", {}).get("type") == "Defaulted"
    ]
    rng = rng_for(forked.seed, 1)
    assert [r["event"]["number"] for r in defaults] == [rng.randint(1, 3), rng.randint(1, 3)]
    assert client.verify(forked.match_id, forked.host_token).ok


def test_a_duplicate_force_phase_end_ends_only_one_phase(server: ServerThread) -> None:
    client = server.client()
    match_id, host, _ann, _bob = seat_duel(client, seed=21)
    seen = client.state(match_id, host).version
    client.force_phase_end(match_id, host, "away", expected_version=seen)
    written = client.state(match_id, host).version
    error = refused(lambda: client.force_phase_end(match_id, host, "away", expected_version=seen))
    assert error.code() == grpc.StatusCode.ABORTED and str(written) in error.details()
    state = client.state(match_id, host)
    assert state.version == written and state.status.phase == "round 2"


def test_a_duplicate_extend_or_settle_acts_once(server: ServerThread, clock: ManualClock) -> None:
    client = server.client()
    match_id, host, _ann, _bob = seat_duel(client, seed=21)
    seen = client.state(match_id, host).version
    client.host_action(match_id, host, "extend", "holiday", seconds=30, expected_version=seen)
    error = refused(lambda: client.host_action(match_id, host, "extend", "holiday", 30, expected_version=seen))
    assert error.code() == grpc.StatusCode.ABORTED
    state = client.state(match_id, host)
    assert state.status.deadline - state.clock == pytest.approx(90)  # 60 + 30, not 60 + 60

    finish_duel(client, match_id, host)
    seen = client.state(match_id, host).version
    client.host_action(match_id, host, "settle", "ann goes through", expected_version=seen)
    error = refused(lambda: client.host_action(match_id, host, "settle", "bob goes through", expected_version=seen))
    assert error.code() == grpc.StatusCode.ABORTED
    settled = [r["reason"] for r in records(client, match_id, host) if r.get("action") == "settle"]
    assert settled == ["ann goes through"]


def test_matchctl_end_phase_and_extend_send_the_version_they_saw(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    client = server.client()
    match_id, host, _ann, _bob = seat_duel(client, seed=21)
    base = ["--server", server.address]
    assert cli.main([*base, "extend", match_id, "--seconds", "15", f"--token={host}"]) == 0
    assert cli.main([*base, "end-phase", match_id, "--reason", "away", f"--token={host}"]) == 0
    assert "round 1 ended" in capsys.readouterr().out
    log = records(client, match_id, host)
    assert [r.get("action") for r in log if r["kind"] == "host"] == ["extend"]
    assert client.state(match_id, host).status.phase == "round 2"


def test_a_release_10_store_loads_verifies_and_takes_a_rollback_only_at_a_batch_end(tmp_path: Path) -> None:
    """Batches are derived from the records, so a store written before they were named works the same."""
    shutil.copytree(RELEASE_10 / "var", tmp_path / "var")
    server = make_server(tmp_path, ManualClock(start=2_000_000_000.0))
    try:
        client = server.client()
        admin = (tmp_path / "var" / "admin.token").read_text().strip()
        for match in client.list_matches():
            assert client.verify(match.match_id, admin).ok, match.match_id
        cookoff = next(m for m in client.list_matches() if m.game == "cookoff")
        log = records(client, cookoff.match_id, admin)
        # The first resolution: one bot's submission (a batch), then the other's with its resolution.
        first = next(v for v, r in enumerate(log, start=1) if r.get("event", {}).get("type") == "submission_received")
        resolved = next(v for v, r in enumerate(log, start=1) if r.get("event", {}).get("type") == "harvest_resolved")
        error = refused(lambda: client.rollback(cookoff.match_id, admin, resolved, "mid-batch"))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and f"before it, {first}," in error.details()
        if cookoff.finished:
            error = refused(lambda: client.rollback(cookoff.match_id, admin, first, "a finished match"))
            assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and "fork" in error.details()
        reply = client.rollback(cookoff.match_id, admin, first, "one bot's move stands", reopen=cookoff.finished)
        assert reply.status.paused and reply.status.awaiting and not reply.status.finished
        assert client.verify(cookoff.match_id, admin).ok
    finally:
        server.stop()
    assert (RELEASE_10 / "var" / "matches.db").stat().st_mtime == FIXTURE_MTIME  # never modified
