"""`matchctl cancel`: the host ends a match with no result, on the record, for good."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest

from clients import cli
from server.clock import ManualClock
from tests.conftest import make_server
from tests.support.server import ServerThread


def test_a_cancelled_match_is_over_takes_no_submission_has_no_deadline_and_still_verifies(
    server: ServerThread, clock: ManualClock, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base = ["--server", server.address, "--var", server.settings.var_dir]
    assert cli.main([*base, "create", "duel", "--players", "ann,bob", "--seed", "4"]) == 0
    match_id = capsys.readouterr().out.strip()
    for player in ("ann", "bob"):
        assert cli.main([*base, "join", match_id, player]) == 0
    assert cli.main([*base, "submit", match_id, "--as", "ann", "pick", "2"]) == 0
    assert cli.main([*base, "cancel", match_id[:8], "--as", "ann", "--reason", "not mine to end"]) == 1
    assert "PERMISSION_DENIED" in capsys.readouterr().err  # a player cannot cancel
    assert cli.main([*base, "cancel", match_id[:8], "--reason", "a seat was double-booked"]) == 0
    assert "cancel: recorded as version" in capsys.readouterr().out

    assert cli.main([*base, "state", match_id, "--json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["finished"] is True and state["deadline"] is None and state["awaiting"] == []
    assert state["results"] == []  # over with no result (and no scores of an unfinished game)
    assert cli.main([*base, "submit", match_id, "--as", "bob", "pick", "1"]) == 1
    assert "cancelled by the host" in capsys.readouterr().err
    for again in (["cancel", match_id, "--reason", "twice"], ["rollback", match_id, "--to", "5", "--reason", "undo"]):
        assert cli.main([*base, *again]) == 1
        capsys.readouterr()
    version = server.client().state(match_id, server.admin_token).version
    clock.advance(3600)  # the round's deadline passes: nothing is written for a cancelled match
    assert server.client().state(match_id, server.admin_token).version == version

    assert cli.main([*base, "watch", match_id, "--as", "spectator"]) == 0  # ends: the match is over
    assert capsys.readouterr().out.splitlines()[-1].split()[2:5] == ["host", "host:", "cancel"]
    assert cli.main([*base, "watch", match_id, "--from", str(version)]) == 0  # from its end: nothing to wait for
    assert "the match is over" in capsys.readouterr().err
    assert cli.main([*base, "audit", match_id]) == 0
    assert "host: cancel: a seat was double-booked" in capsys.readouterr().out
    assert cli.main([*base, "verify", match_id]) == 0
    assert ": OK (" in capsys.readouterr().out
    assert cli.main([*base, "list"]) == 0 and "finished" in capsys.readouterr().out

    bob = cli.Credentials().player(server.address, match_id, "bob")
    assert bob
    server.stop()  # a restarted server rebuilds the cancel from the log
    again = make_server(tmp_path, clock)
    try:
        client = again.client()
        assert client.state(match_id, again.admin_token).status.finished
        with pytest.raises(grpc.RpcError, match="cancelled by the host"):
            client.submit(match_id, bob, text="pick 1")
    finally:
        again.stop()
