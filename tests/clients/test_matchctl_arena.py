"""`matchctl` in the arena, against a real server: bot accounts, a tournament played by run_bot bots,
its standings, the leaderboard, verification, a voided match; every failure one line."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest

from clients import cli
from clients.client import MatchClient
from tests.support.arena_bots import play_tournament
from tests.support.server import ServerThread


def base(server: ServerThread) -> list[str]:
    return ["--server", server.address, "--var", server.settings.var_dir]


def run(server: ServerThread, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main([*base(server), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    """A failure is one line on stderr, never a traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("matchctl: "), err
    assert "Traceback" not in err
    return lines[0]


def create_bots(server: ServerThread, capsys: pytest.CaptureFixture[str], *names: str) -> dict[str, str]:
    keys = {}
    for name in names:
        code, out, _ = run(server, capsys, "bot", "create", name, "--json")
        assert code == 0, out
        keys[name] = json.loads(out)["bot_key"]
    return keys


def test_bot_create_shows_the_key_once_list_shows_bots_rotate_replaces_the_key_revoke_ends_it(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(server, capsys, "bot", "create", "ann-bot")
    assert code == 0
    said, key = out.strip().splitlines()
    assert "shown once" in said and "ann-bot" in said
    assert key.startswith("msbk_")

    code, out, _ = run(server, capsys, "bot", "create", "bob-bot", "--auto-accept", "--json")
    created = json.loads(out)
    assert code == 0 and set(created) == {"bot", "bot_key"}
    assert created["bot"]["name"] == "bob-bot" and created["bot"]["auto_accept"] is True
    assert created["bot"]["key_generation"] == 1 and created["bot_key"].startswith("msbk_")

    code, out, _ = run(server, capsys, "bot", "list")
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}  # a heading, a rule, then bots
    assert rows["ann-bot"][1:4] == ["active", "no", "1"] and rows["bob-bot"][1:4] == ["active", "yes", "1"]

    code, out, _ = run(server, capsys, "bot", "rotate", "ann-bot", "--reason", "the key leaked")
    said, new_key = out.strip().splitlines()
    assert code == 0 and "key generation 2" in said and "shown once" in said
    assert new_key.startswith("msbk_") and new_key != key
    client = MatchClient(server.address)
    with pytest.raises(grpc.RpcError) as refused:  # the old key stopped working at once
        next(iter(client.bot_events(key)))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED

    code, _, err = run(server, capsys, "bot", "revoke", "ann-bot")
    assert code == 2 and "--reason" in one_line_error(err)
    code, out, _ = run(server, capsys, "bot", "revoke", "ann-bot", "--reason", "left the club")
    assert code == 0 and out.startswith("revoked bot ann-bot")
    code, out, _ = run(server, capsys, "bot", "list", "--json")
    bots = {bot["name"]: bot for bot in json.loads(out)["bots"]}
    assert bots["ann-bot"]["revoked"] is True and bots["ann-bot"]["key_generation"] == 2
    assert bots["bob-bot"]["revoked"] is False

    code, _, err = run(server, capsys, "bot", "create", "Not A Name")
    assert code == 1 and "INVALID_ARGUMENT" in one_line_error(err)
    code, _, err = run(server, capsys, "bot", "create", "bob-bot")
    assert code == 1 and one_line_error(err)  # taken


def test_a_tournament_is_created_played_by_bots_shown_rated_verified_and_a_match_voided(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = create_bots(server, capsys, "alpha", "beta", "gamma")
    code, out, err = run(
        server, capsys, "tournament", "create", "--game", "cookoff", "--bots", "alpha,beta,gamma", "--seed", "3"
    )
    assert code == 0, err
    tournament_id = out.strip()
    assert "cookoff round-robin, 3 bots, 3 matches" in err  # the default format of cookoff

    play_tournament(server.address, keys, tournament_id)

    code, out, _ = run(server, capsys, "tournament", "show", tournament_id)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith(f"tournament {tournament_id} · cookoff round-robin · finished")
    assert lines[1] == "3 of 3 matches finished"
    assert lines[3].strip() == "standings" and lines[4].split() == ["rank", "bot", "points", "played", "wins", "byes"]
    standings = [line.split() for line in lines[6:9]]
    assert sorted(row[1] for row in standings) == ["alpha", "beta", "gamma"]
    assert all(row[3:] and row[3] == "2" and row[5] == "1" for row in standings)  # 2 played, 1 bye each
    assert sum(float(row[2]) for row in standings) == 3  # one point per match, shared on a draw
    assert "matches" in [line.strip() for line in lines] and "audit:" in lines

    code, out, _ = run(server, capsys, "tournament", "show", tournament_id, "--json")
    shown = json.loads(out)["tournament"]
    assert shown["tournament_id"] == tournament_id and shown["state"] == "finished"
    assert [m["state"] for m in shown["matches"]] == ["finished"] * 3
    first = shown["matches"][0]["match_id"]

    code, out, _ = run(server, capsys, "tournament", "list")
    assert code == 0 and any(tournament_id in line and "3/3" in line for line in out.splitlines())

    code, out, _ = run(server, capsys, "leaderboard", "--game", "cookoff")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].strip() == "cookoff leaderboard"
    rated = {line.split()[1]: line for line in lines[3:]}
    assert set(rated) == {"alpha", "beta", "gamma"} and all(" ± " in line for line in rated.values())
    assert all(line.split()[-1] == "2" for line in rated.values())  # two rated matches each

    code, out, _ = run(server, capsys, "verify", "--tournament", tournament_id)
    assert code == 0 and out.startswith(f"{tournament_id}: ok")

    code, _, err = run(server, capsys, "tournament", "void", tournament_id, first)
    assert code == 2 and "--reason" in one_line_error(err)
    code, out, _ = run(server, capsys, "tournament", "void", tournament_id, first, "--reason", "a bot crashed")
    assert code == 0 and out.startswith(f"voided {first} in tournament {tournament_id}: a bot crashed")
    code, out, _ = run(server, capsys, "tournament", "show", tournament_id, "--json")
    voided = json.loads(out)["tournament"]["matches"][0]
    assert voided["state"] == "voided" and "a bot crashed" in voided["note"]
    code, out, _ = run(server, capsys, "leaderboard", "--game", "cookoff", "--json")
    played = sorted(rating["matches"] for rating in json.loads(out)["ratings"])
    assert played == [1, 1, 2]  # the voided match no longer rates its two bots
    code, out, _ = run(server, capsys, "verify", "--tournament", tournament_id, "--json")
    assert code == 0 and json.loads(out)["ok"] is True


def test_arena_failures_are_one_line(server: ServerThread, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = "00000000-0000-4000-8000-000000000000"
    code, _, err = run(server, capsys, "tournament", "show", missing)
    assert code == 1 and "NOT_FOUND" in one_line_error(err)
    code, _, err = run(server, capsys, "verify", "--tournament", missing)
    assert code == 1 and "NOT_FOUND" in one_line_error(err)
    code, _, err = run(server, capsys, "tournament", "create", "--game", "cookoff", "--bots", "nobody,noone")
    assert code == 1 and one_line_error(err)
    code, _, err = run(server, capsys, "leaderboard", "--game", "chess")
    assert code == 2 and "unknown game 'chess'" in one_line_error(err)
    code, _, err = run(server, capsys, "tournament", "create", "--game", "cookoff", "--bots", "a,,b")
    assert code == 2 and "none empty" in one_line_error(err)
    code, _, err = run(server, capsys, "tournament", "show")
    assert code == 2 and "usage: matchctl tournament show TOURNAMENT" in one_line_error(err)
    code, _, err = run(server, capsys, "challenge", "answer", "some-id", "--accept")
    assert code == 2 and "--token" in one_line_error(err)
    code, _, err = run(server, capsys, "verify", "--tournament", missing, "--all")
    assert code == 2 and one_line_error(err)
    bad = tmp_path / "config.json"
    bad.write_text("[1, 2]")
    code, _, err = run(server, capsys, "challenge", "--game", "cookoff", "--bots", "a,b", "--config", str(bad))
    assert code == 2 and "--config must be a JSON object" in one_line_error(err)
