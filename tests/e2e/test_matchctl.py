"""`matchctl` against a real server: tokens are saved and used, so a host never pastes one."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest

from clients import cli
from tests.support.server import ServerThread


def run(capsys: pytest.CaptureFixture[str], server: ServerThread, *args: str) -> tuple[int, str]:
    code = cli.main(["--server", server.address, "--var", server.settings.var_dir, *args])
    return code, capsys.readouterr().out


def test_a_host_and_players_drive_a_match_from_the_command_line(
    server: ServerThread, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out = run(capsys, server, "create", "duel", "--players", "ann,bob", "--seed", "3")
    assert code == 0
    match_id = out.strip()
    assert run(capsys, server, "join", match_id, "ann")[0] == 0
    assert run(capsys, server, "join", match_id, "bob")[0] == 0
    assert run(capsys, server, "submit", match_id, "--as", "ann", "pick", "3")[0] == 0
    code, out = run(capsys, server, "state", match_id, "--as", "bob", "--json")
    assert code == 0 and json.loads(out)["view"]["my_picks"] == {}
    code, out = run(capsys, server, "state", match_id, "--json")  # the host, by the saved host token
    assert json.loads(out)["viewer"] == "host" and json.loads(out)["view"]["my_picks"] == {"ann": 3}
    assert run(capsys, server, "submit", match_id, "--as", "bob", "pick", "1")[0] == 0
    code, out = run(capsys, server, "history", match_id, "--as", "spectator")
    assert code == 0 and "Resolved" in out and '"number"' not in out.split("Resolved")[0]
    code, out = run(capsys, server, "transcript", match_id)
    assert out.splitlines()[1:] == ["ann: pick 3", "bob: pick 1"]
    code, out = run(capsys, server, "list")
    assert match_id in out
    code, _ = run(capsys, server, "submit", match_id, "--as", "ann", "pick", "x")
    assert code == 1


def test_the_admin_token_under_var_lets_the_server_machine_act_as_host(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = run(capsys, server, "create", "duel", "--players", "ann,bob")
    match_id = out.strip()
    Path(cli.Credentials().path).unlink()  # forget the host token: only var/admin.token is left
    _, out = run(capsys, server, "state", match_id, "--json")
    assert json.loads(out)["viewer"] == "host"
    assert run(capsys, server, "start", match_id, "--reason", "test")[0] == 0
    assert run(capsys, server, "end-phase", match_id, "--reason", "test")[0] == 0


def test_watch_follows_a_match_to_its_end(server: ServerThread, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, server, "create", "duel", "--players", "ann,bob")
    match_id = out.strip()
    for player in ("ann", "bob"):
        run(capsys, server, "join", match_id, player)
    for _ in range(3):
        run(capsys, server, "submit", match_id, "--as", "ann", "pick", "2")
        run(capsys, server, "submit", match_id, "--as", "bob", "pick", "1")
    code, out = run(capsys, server, "watch", match_id, "--as", "spectator", "--until-finished")
    lines = out.splitlines()
    assert code == 0 and "Finished" in lines[-1]
    assert [int(line.split()[0]) for line in lines] == list(range(1, len(lines) + 1))


def test_a_token_given_by_hand_is_kept_and_used(server: ServerThread, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = run(capsys, server, "create", "duel", "--players", "ann,bob")
    match_id = out.strip()
    host = cli.Credentials().host(server.address, match_id)
    assert host
    Path(cli.Credentials().path).unlink()
    assert run(capsys, server, "--var", "/nonexistent", "token", "host", match_id, host)[0] == 0
    _, out = run(capsys, server, "--var", "/nonexistent", "state", match_id, "--json")
    assert json.loads(out)["viewer"] == "host"


def test_matchctl_manages_host_keys_invitations_and_reissues(
    server: ServerThread, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out = run(capsys, server, "host-key", "create", "club night")
    assert code == 0 and "shown once" in out
    key = out.strip().splitlines()[-1]
    assert key.startswith("mshk_")
    assert run(capsys, server, "token", "host-key", key)[0] == 0  # later commands create with the key
    code, out = run(capsys, server, "create", "duel", "--players", "ann,bob")
    match_id = out.strip()
    code, out = run(capsys, server, "host-key", "list")
    assert "club night" in out and "1 live matches" in out
    code, invitation = run(capsys, server, "invite", match_id, "ann")
    assert code == 0
    assert run(capsys, server, "join", match_id, "ann", "--invitation", invitation.strip())[0] == 0
    code, out = run(capsys, server, "state", match_id, "--as", "ann", "--json")
    assert json.loads(out)["viewer"] == "player:ann"
    ann = cli.Credentials().player(server.address, match_id, "ann")
    assert ann
    monkeypatch.setattr("builtins.input", lambda prompt: "n")  # the host is asked before a re-issue...
    assert run(capsys, server, "join", match_id, "ann", "--reissue")[0] == 1
    code, out = run(capsys, server, "state", match_id, "--as", "ann", "--json")
    assert code == 0  # ...and said no: ann's token still acts, and is the one kept
    assert cli.Credentials().player(server.address, match_id, "ann") == ann
    assert server.client().state(match_id, ann).viewer == "player:ann"
    assert run(capsys, server, "join", match_id, "ann", "--reissue", "--yes")[0] == 0
    assert cli.Credentials().player(server.address, match_id, "ann") != ann
    with pytest.raises(grpc.RpcError):  # the old token stopped working
        server.client().state(match_id, ann)
    key_id = next(line.split()[0] for line in run(capsys, server, "host-key", "list")[1].splitlines())
    code, out = run(capsys, server, "host-key", "revoke", key_id, "--reason", "club closed")
    assert code == 0 and "revoked" in out
    code, _ = run(capsys, server, "create", "duel", "--players", "ann,bob")
    assert code == 1  # the saved key no longer creates matches
    code, out = run(capsys, server, "state", match_id, "--json")  # the match's own host token still acts
    assert code == 0 and json.loads(out)["viewer"] == "host"
