"""`matchctl` found where you point it, and never a traceback: options, names, credentials, errors."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from clients import cli
from clients.cli_names import UsageError, resolve_match
from clients.credentials import Credentials
from tests.support.server import ServerThread


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_server_is_taken_before_or_after_the_subcommand_or_from_MATCHCTL_SERVER(
    server: ServerThread, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    var = ["--var", server.settings.var_dir]
    assert cli.main(["create", "duel", "--players", "ann,bob", "--server", server.address, *var]) == 0
    match_id = capsys.readouterr().out.strip()
    assert cli.main(["--server", f"127.0.0.1:{closed_port()}", *var, "list", "--server", server.address]) == 0
    assert match_id in capsys.readouterr().out  # the one after the subcommand wins
    assert cli.main(["play-bots", "--game", "mining", "--seed", "2", "--server", server.address, *var]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("won by bot")
    monkeypatch.setenv("MATCHCTL_SERVER", server.address)
    assert cli.main(["list", *var]) == 0 and match_id in capsys.readouterr().out
    monkeypatch.setenv("MATCHCTL_SERVER", f"127.0.0.1:{closed_port()}")
    assert cli.main(["list"]) == 1
    err = capsys.readouterr().err
    assert "no server answers at 127.0.0.1:" in err and "check that `matchserver` runs at that address" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_installed_command_prints_one_line_never_a_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "MATCHCTL_SERVER": f"127.0.0.1:{closed_port()}"}
    for argv, said in (
        (["play-bots", "--game", "nope"], "unknown game 'nope'; games: last-gathering, cookoff, mining"),
        (["list"], "check that `matchserver` runs at that address"),
        (["simulate", "--script", str(tmp_path / "missing.txt")], "No such file"),
        (["play-bots", "--game", "mining", "--config", "{not json"], "Expecting property name"),
    ):
        done = subprocess.run([sys.executable, "-m", "clients.cli", *argv], capture_output=True, text=True, env=env)
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
        assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_game_bot_and_seat_names_are_checked_before_a_match_is_created(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--server", server.address, "--var", server.settings.var_dir, "play-bots"]
    for argv, said in (
        (["--game", "nope"], "unknown game 'nope'"),
        (
            ["--game", "mining", "--bots", "greedy_bot,nobot"],
            "unknown bot nobot for mining; bots: random_bot, greedy_bot",
        ),
        (["--game", "cookoff", "--players", "ann,ann"], "given twice: ann"),
        (["--game", "cookoff", "--players", "ann,"], "none empty"),
        (["--game", "cookoff", "--count", "0"], "at least 1"),
    ):
        assert cli.main([*base, *argv]) == 2
        assert said in capsys.readouterr().err
    assert server.client().list_matches() == []  # nothing was created, so nothing is left behind


def test_credentials_kept_under_each_loopback_name_are_one_servers(
    server: ServerThread, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    port = server.address.rsplit(":", 1)[1]
    base = ["--var", server.settings.var_dir]
    assert cli.main([*base, "--server", f"localhost:{port}", "create", "duel", "--players", "ann,bob"]) == 0
    match_id = capsys.readouterr().out.strip()
    assert cli.main([*base, "--server", f"localhost:{port}", "join", match_id, "ann"]) == 0
    capsys.readouterr()
    # A file written by an earlier matchctl, under three names: every token survives the merge.
    path = Credentials().path
    saved = json.loads(path.read_text())
    entry = saved.pop(f"127.0.0.1:{port}")
    ann = entry["matches"][match_id]["players"].pop("ann")
    saved[f"localhost:{port}"] = entry
    saved[f"[::1]:{port}"] = {"matches": {match_id: {"players": {"ann": ann}}}, "admin": "kept-admin-token"}
    path.write_text(json.dumps(saved))
    merged = Credentials()
    for name in ("localhost", "127.0.0.1", "[::1]"):
        assert merged.player(f"{name}:{port}", match_id, "ann") == ann
        assert merged.host(f"{name}:{port}", match_id) == entry["matches"][match_id]["host"]
        assert merged.admin(f"{name}:{port}", "/nonexistent") == "kept-admin-token"
    assert cli.main(["--server", server.address, "state", match_id, "--as", "ann", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["viewer"] == "player:ann"


def test_a_match_is_named_by_a_unique_prefix_of_eight_hex_digits(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--server", server.address, "--var", server.settings.var_dir]
    assert cli.main([*base, "create", "duel", "--players", "ann,bob"]) == 0
    match_id = capsys.readouterr().out.strip()
    assert cli.main([*base, "state", match_id[:8], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["match"] == match_id
    assert cli.main([*base, "state", match_id[:7]]) == 2  # too short to resolve: said so, nothing sent
    assert "matchctl: a match prefix needs 8 or more hex digits; " in capsys.readouterr().err
    assert cli.main([*base, "state", match_id[:6], "--as", "ann"]) == 2  # not "join first"
    err = capsys.readouterr().err
    assert "a match prefix needs 8 or more hex digits" in err and "join" not in err
    other = "0" * 8 if not match_id.startswith("0") else "f" * 8
    assert cli.main([*base, "state", other]) == 2
    assert f"no match of yours starts with '{other}'" in capsys.readouterr().err
    with pytest.raises(UsageError, match="names 2 matches"):
        resolve_match("abcdef01", ["abcdef01-1111-4000-8000-000000000000", "abcdef01-2222-4000-8000-000000000000"])


def test_every_subcommand_has_help_with_examples_and_the_overview_lists_games_and_bots(
    capsys: pytest.CaptureFixture[str],
) -> None:
    commands = [*sorted(cli.COMMANDS), "simulate", "token"]
    for command in commands:
        with pytest.raises(SystemExit) as done:
            cli.main([command, "--help"])
        assert done.value.code == 0
        assert f"examples:\n  matchctl {command}" in capsys.readouterr().out, command
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert "cookoff          bots: random_bot, judge_bot" in out and "MATCHCTL_SERVER" in out


def test_simulate_takes_game_seed_and_players_from_a_transcripts_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "match.txt"
    script.write_text("# game=duel seed=3 players=ann,bob\nann: pick 3\nbob: pick 1\n")
    assert cli.main(["simulate", "--script", str(script)]) == 0
    assert json.loads(capsys.readouterr().out)["players"] == ["ann", "bob"]
    script.write_text("ann: pick 3\n")  # no header and no flags: said, not guessed
    assert cli.main(["simulate", "--script", str(script)]) == 2
    assert "simulate needs --game, --players and --seed" in capsys.readouterr().err


def test_the_board_says_when_the_match_is_paused(server: ServerThread, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--server", server.address, "--var", server.settings.var_dir]
    assert cli.main([*base, "create", "duel", "--players", "ann,bob"]) == 0
    match_id = capsys.readouterr().out.strip()
    assert cli.main([*base, "start", match_id, "--reason", "now"]) == 0  # it waits for its players until then
    assert cli.main([*base, "pause", match_id, "--reason", "a break"]) == 0
    capsys.readouterr()
    assert cli.main([*base, "state", match_id]) == 0
    board = capsys.readouterr().out
    assert "(the clock is stopped: paused)" in board and "awaiting:  ann, bob" in board


def test_as_a_name_that_is_no_seat_says_so_and_names_the_seats(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--server", server.address, "--var", server.settings.var_dir]
    assert cli.main([*base, "create", "duel", "--players", "ann,bob"]) == 0
    match_id = capsys.readouterr().out.strip()
    assert cli.main([*base, "state", match_id, "--as", "carl"]) == 2
    err = capsys.readouterr().err
    assert err == "matchctl: carl is not a player of this match (ann, bob); --as takes a seat, host or spectator\n"
    assert cli.main([*base, "state", match_id, "--as", "ann"]) == 2  # a seat, but not joined here
    err = capsys.readouterr().err
    assert err.startswith("matchctl: no token for ann on this match") and "--invitation CODE" in err, err
    assert "matchctl token player" in err and "[" not in err  # no Python list in a message


def test_every_refusal_is_one_line_with_the_matchctl_prefix(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--server", server.address, "--var", server.settings.var_dir]
    assert cli.main([*base, "create", "duel", "--players", "ann,bob"]) == 0
    match_id = capsys.readouterr().out.strip()
    for argv in (
        ["verify"],
        ["token", "player", match_id],
        ["host-key", "create"],
        ["end-phase", match_id, "--as", "spectator"],
        ["rollback", match_id, "--to", "1", "--reason", "r", "--as", "spectator"],
        ["fork", match_id, "--at", "1", "--as", "spectator"],
        ["pause", match_id, "--as", "spectator"],
    ):
        code = cli.main([*base, *argv])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith("matchctl: ") and err.count("\n") == 1, (argv, err)
