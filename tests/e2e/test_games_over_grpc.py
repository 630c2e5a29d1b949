"""Every landed game, end to end: example bots play a whole match over gRPC against a real server on a
real SQLite file; the server is killed and restarted and the match is intact; every version's state
equals the fold of its events; verify re-runs every decision; typed protobuf commands work too."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest

from clients import cli
from engine.contract import Viewer
from engine.match import fold
from engine.registry import get_game, shipped
from matchserver.v1 import matchserver_pb2 as pb
from server.clock import ManualClock
from tests.conftest import make_server

GAMES = shipped()


@pytest.mark.slow
@pytest.mark.parametrize("game_name", GAMES)
def test_bots_play_a_whole_match_over_grpc_that_survives_a_restart(
    game_name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = ManualClock()
    server = make_server(tmp_path, clock)
    code = cli.main(
        [
            "--server",
            server.address,
            "--var",
            server.settings.var_dir,
            "play-bots",
            "--game",
            game_name,
            "--seed",
            "7",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["finished"] is True
    ranks = sorted(row["rank"] for row in out["results"])
    assert ranks[0] == 1 and len(ranks) == get_game(game_name).default_seats
    match_id = out["match"]
    host = cli.Credentials().host(server.address, match_id)
    assert host
    client = server.client()
    before = client.state(match_id, host)
    history = client.history(match_id, host)
    server.stop()

    again = make_server(tmp_path, clock)  # a new process would do the same: rebuild from the events
    client = again.client()
    after = client.state(match_id, host)
    assert (after.version, after.view, after.results) == (before.version, before.view, before.results)
    assert after.status.finished

    game = get_game(game_name)
    records = [json.loads(event.json) for event in history]
    state = game.initial_state(records[0]["config"], records[0]["seed"])
    for version, record in enumerate(records, start=1):
        if record["kind"] == "game":
            state = fold(game, state, [record["event"]])
        assert client.state(match_id, host, at=version).view == game.view(state, Viewer.host()), version
    report = client.verify(match_id, host)
    assert report.ok, (report.first_bad_version, report.problem, report.recorded_json, report.recomputed_json)
    assert client.audit(match_id, host), "every game explains its resolutions"
    public = client.audit(match_id)  # a spectator's audit: only what was public
    assert public and len(public) <= len(client.audit(match_id, host))
    with pytest.raises(grpc.RpcError) as info:
        client.submit(match_id, client.join(match_id, after.players[0], host), text="end early")
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # the match is over
    again.stop()


def test_typed_protobuf_commands_reach_each_game(tmp_path: Path) -> None:
    server = make_server(tmp_path, ManualClock())
    client = server.client()
    lg = client.create("last-gathering", ["a", "b", "c", "d"], seed=1)
    tokens = [client.join(lg.match_id, seat) for seat in "abcd"]  # the match starts once every seat is claimed
    token = tokens[0]
    typed = pb.GameCommand()
    typed.last_gathering.submit.frame_bid.frame = "F2"
    typed.last_gathering.submit.frame_bid.bid = 1
    reply = client.submit(lg.match_id, token, typed=typed)
    assert reply.version > lg.version
    mismatched = pb.GameCommand()
    mismatched.mining.orders.bully = True
    with pytest.raises(grpc.RpcError) as info:
        client.submit(lg.match_id, token, typed=mismatched)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "last-gathering" in info.value.details()
    with pytest.raises(grpc.RpcError) as info:
        client.submit(lg.match_id, token, typed=pb.GameCommand())
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    server.stop()


def test_host_set_cookoff_judges_and_trees_stay_out_of_the_players_configuration(tmp_path: Path) -> None:
    from engine.cookoff import GAME as COOKOFF

    server = make_server(tmp_path, ManualClock())
    client = server.client()
    judges = [
        {"family": "flavour", "want": "sour"},
        {"family": "size", "want": "large"},
        {"family": "cook", "want": "raw"},
    ]
    assert COOKOFF.initial_state({**COOKOFF.default_config(["ann", "bob"]), "judges": judges}, 3)
    created = client.create("cookoff", ["ann", "bob"], seed=3, config={"judges": judges})
    ann = client.join(created.match_id, "ann")
    for token in (ann, None):
        header = json.loads(client.history(created.match_id, token)[0].json)
        assert header["config"]["judges"] == "hidden until the match is over"
    header = json.loads(client.history(created.match_id, created.host_token)[0].json)
    assert header["config"]["judges"] == judges
    server.stop()


def test_the_cookoff_tree_schedule_never_reaches_a_player_through_history_or_audit(tmp_path: Path) -> None:
    server = make_server(tmp_path, ManualClock())
    client = server.client()
    created = client.create("cookoff", ["ann", "bob"], seed=9)
    ann, _ = client.join(created.match_id, "ann"), client.join(created.match_id, "bob")
    host_types = {event.type for event in client.history(created.match_id, created.host_token)}
    assert "match_prepared" in host_types  # the host's record holds the whole schedule
    for token in (ann, None):
        assert "match_prepared" not in {event.type for event in client.history(created.match_id, token)}
        assert "match_prepared" not in {entry.type for entry in client.audit(created.match_id, token)}
        trees_now = {tree["berry"] for tree in client.state(created.match_id, token).view["trees"]}
        later = [e for e in client.history(created.match_id, token) if e.type == "trees_revealed"]
        assert len(later) == 1 and trees_now  # only round 1's trees have been revealed
    server.stop()
