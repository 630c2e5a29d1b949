"""Audit and rollback through a real server and a real SQLite file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import grpc
import pytest

from clients import cli
from clients.client import MatchClient
from engine.contract import Viewer
from engine.match import fold
from tests.support import duel
from tests.support.duel import seat_duel
from tests.support.server import ServerThread


def play_round(client: MatchClient, match_id: str, ann: str, bob: str, a: int, b: int) -> None:
    client.submit(match_id, ann, text=f"pick {a}")
    client.submit(match_id, bob, text=f"pick {b}")


def scores(client: MatchClient, match_id: str, token: str | None = None) -> dict[str, int]:
    return dict(client.state(match_id, token).view["scores"])


def test_state_at_every_version_equals_the_fold_of_its_events(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=21)
    for a, b in ((3, 1), (1, 2), (2, 2)):
        play_round(client, match_id, ann, bob, a, b)
    records = [json.loads(e.json) for e in client.history(match_id, host)]
    game = duel.GAME
    initial = game.initial_state(records[0]["config"], records[0]["seed"])
    events = []
    for version, record in enumerate(records, start=1):
        if record["kind"] == "game":
            events.append(record["event"])
        expected = game.view(fold(game, initial, events), Viewer.host())
        assert client.state(match_id, host, at=version).view == expected, version


def test_a_player_view_at_a_version_before_the_reveal_holds_no_hidden_value(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=21)
    client.submit(match_id, ann, text="pick 3")
    sealed_at = client.state(match_id, host).version
    client.submit(match_id, bob, text="pick 1")  # resolves: the picks are public from here
    assert client.state(match_id, bob, at=sealed_at).view["my_picks"] == {}
    audit = client.audit(match_id, bob, at=sealed_at)
    assert all("3" not in line for entry in audit for line in entry.lines)


def test_rollback_then_different_submissions_give_a_different_outcome_and_keep_both_branches(
    server: ServerThread,
) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=21)
    client.submit(match_id, ann, text="pick 3")
    mid_resolution = client.state(match_id, host).version
    client.submit(match_id, bob, text="pick 1")
    assert scores(client, match_id) == {"ann": 1, "bob": 0}
    stream = client.subscribe(match_id, None, from_version=client.state(match_id, host).version)
    reply = client.rollback(match_id, host, mid_resolution, "bob's pick was mistyped")
    update = next(stream)
    stream.cancel()
    assert update.HasField("rolled_back_to") and update.rolled_back_to == mid_resolution
    assert reply.status.awaiting == ["bob"] and reply.status.paused
    client.host_action(match_id, host, "resume", "bob picks again")
    client.submit(match_id, bob, text="pick 3")  # bob now ties: both score
    assert scores(client, match_id) == {"ann": 1, "bob": 1}
    history = client.history(match_id, host)
    retracted = [event for event in history if event.retracted]
    assert [json.loads(e.json)["event"]["type"] for e in retracted][:2] == ["Picked", "Resolved"]
    resolved = [json.loads(e.json)["event"]["winners"] for e in history if e.type == "Resolved"]
    assert resolved == [["ann"], ["ann", "bob"]]  # both branches stay in the log
    audit = client.audit(match_id, host)
    rollback = [entry for entry in audit if entry.kind == "rollback"]
    assert rollback[0].actor == "host" and "rolled back to version" in rollback[0].lines[0]
    assert any(entry.retracted and entry.type == "Resolved" for entry in audit)
    assert client.verify(match_id, host).ok


def test_a_rollback_cannot_reach_before_the_match_nor_be_done_by_a_player(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=21)
    play_round(client, match_id, ann, bob, 1, 2)
    for call, code in (
        (lambda: client.rollback(match_id, ann, 3, "mine"), grpc.StatusCode.PERMISSION_DENIED),
        (lambda: client.rollback(match_id, host, 1, "before the start"), grpc.StatusCode.INVALID_ARGUMENT),
        (lambda: client.rollback(match_id, host, 0, "before creation"), grpc.StatusCode.INVALID_ARGUMENT),
        (lambda: client.rollback(match_id, host, 4, ""), grpc.StatusCode.INVALID_ARGUMENT),
    ):
        with pytest.raises(grpc.RpcError) as info:
            call()
        assert info.value.code() == code


def test_a_fork_plays_on_independently(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=21)
    play_round(client, match_id, ann, bob, 3, 1)
    at = client.state(match_id, host).version
    forked = client.fork(match_id, host, at, "what if bob had picked 3?")
    fork_ann, fork_bob = client.join(forked.match_id, "ann"), client.join(forked.match_id, "bob")
    assert scores(client, forked.match_id) == {"ann": 1, "bob": 0}
    play_round(client, forked.match_id, fork_ann, fork_bob, 1, 3)
    play_round(client, match_id, ann, bob, 3, 1)
    assert scores(client, forked.match_id) == {"ann": 1, "bob": 1}
    assert scores(client, match_id) == {"ann": 2, "bob": 0}
    header = json.loads(client.history(forked.match_id, forked.host_token)[0].json)
    assert header["origin"] == {"match_id": match_id, "version": at}
    assert client.verify(forked.match_id, forked.host_token).ok
    noted = [e.lines[0] for e in client.audit(match_id, host) if e.kind == "host"]
    assert noted == [f"host: fork at version {at} as match {forked.match_id}: what if bob had picked 3?"]


def test_the_host_settles_a_tie_after_the_end_as_an_audited_record(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=21)
    for _ in range(3):
        play_round(client, match_id, ann, bob, 2, 2)
    assert client.state(match_id, host).status.finished
    client.host_action(match_id, host, "settle", "tied on points: ann goes through on the earlier submission")
    assert [e.lines[0] for e in client.audit(match_id) if e.kind == "host"] == [
        "host: settle: tied on points: ann goes through on the earlier submission"
    ]
    with pytest.raises(grpc.RpcError) as info:
        client.host_action(match_id, host, "pause")
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_verify_reports_the_first_event_a_patched_rule_would_change(
    server: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=21)
    play_round(client, match_id, ann, bob, 3, 1)
    assert client.verify(match_id, host).ok
    original = duel.Duel._resolve

    def lowest_wins(self: duel.Duel, state: duel.DuelState, picks: dict[str, int], ctx):  # type: ignore[no-untyped-def]
        return original(self, state, {player: 4 - number for player, number in picks.items()}, ctx)

    monkeypatch.setattr(duel.Duel, "_resolve", lowest_wins)
    report = client.verify(match_id, host)
    assert not report.ok
    resolved_version = next(e.version for e in client.history(match_id, host) if e.type == "Resolved")
    assert report.first_bad_version == resolved_version
    assert json.loads(report.recorded_json)["winners"] == ["ann"]
    assert json.loads(report.recomputed_json)["winners"] == ["bob"]


def test_verify_finds_a_row_altered_directly_in_the_sqlite_file(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=21)
    play_round(client, match_id, ann, bob, 3, 1)
    path = Path(server.settings.var_dir) / "matches.db"
    picked = next(e.version for e in client.history(match_id, host) if e.type == "Picked")
    with sqlite3.connect(path) as db:
        (table,) = db.execute("select name from sqlite_master where type='table' and name like '%events'").fetchone()
        state = db.execute(f"select state from {table} where originator_version=?", (picked,)).fetchone()[0]
        edited = state.replace(b'"number":3', b'"number":1')
        assert edited != state
        db.execute(f"update {table} set state=? where originator_version=?", (edited, picked))
    report = client.verify(match_id, host)
    assert not report.ok and report.first_bad_version == picked and "hash" in report.problem
    code = cli.main(["--server", server.address, "--var", server.settings.var_dir, "verify", "--all"])
    assert code == 1
    assert f"DIFFERS at version {picked}" in capsys.readouterr().out


def test_verify_all_exits_zero_when_everything_verifies(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    client = server.client()
    for _ in range(2):
        match_id, _, ann, bob = seat_duel(client, seed=21)
        play_round(client, match_id, ann, bob, 2, 1)
    code = cli.main(["--server", server.address, "--var", server.settings.var_dir, "verify", "--all"])
    out = capsys.readouterr().out
    assert code == 0 and out.count(": OK (") == 2 and "[2/2]" in out
    assert "identities: OK" in out and "arena: OK" in out  # the server's own streams too


@pytest.mark.slow
def test_a_cookoff_players_view_at_any_version_shows_only_the_judges_revealed_by_then(
    server: ServerThread,
) -> None:
    """Over the server, at every version of a whole bot match: no judge appears before its reveal."""
    import random

    from clients.bots.cookoff import judge_bot, random_bot
    from clients.play import BotSeat, play

    client = server.client()
    judges = [
        {"family": "size", "want": "large"},
        {"family": "flavour", "want": "sour"},
        {"family": "cook", "want": "raw"},
    ]
    created = client.create("cookoff", ["ann", "bob"], seed=5, config={"judges": judges})
    seats = {
        "ann": BotSeat("ann", client.join(created.match_id, "ann"), judge_bot, random.Random(1)),
        "bob": BotSeat("bob", client.join(created.match_id, "bob"), random_bot, random.Random(2)),
    }
    final = play(client, created.match_id, created.host_token, seats)
    revealed_at = [e.version for e in client.history(created.match_id) if e.type == "judge_revealed"]
    assert len(revealed_at) == 3
    for version in range(1, final.version + 1):
        shown = sum(1 for at in revealed_at if at <= version)
        for token in (seats["ann"].token, None):
            view = client.state(created.match_id, token, at=version).view
            wants = [judge["want"] for judge in view["judges"] if judge.get("want")]
            assert wants == [judge["want"] for judge in judges[:shown]], (version, wants)


def test_a_rollback_cannot_reroll_the_dice_of_a_default(server: ServerThread) -> None:
    """Draws are keyed on the game events in force, so a host cannot fish for another random outcome."""
    client = server.client()
    match_id, host, _ann, _bob = seat_duel(client, seed=21)
    before = client.state(match_id, host).version
    client.force_phase_end(match_id, host, "both away")
    first = [json.loads(e.json)["event"]["number"] for e in client.history(match_id, host) if e.type == "Defaulted"]
    client.rollback(match_id, host, before, "let us try that again")
    client.force_phase_end(match_id, host, "both away again")
    events = client.history(match_id, host)
    again = [json.loads(e.json)["event"]["number"] for e in events if e.type == "Defaulted" and not e.retracted]
    assert len(first) == 2 and again == first
