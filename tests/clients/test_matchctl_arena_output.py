"""What matchctl's arena commands print, from responses made here (no server): the standings, matches
and audit of `tournament show`, the leaderboard's ratings, bots, and the JSON form."""

from __future__ import annotations

import json

import pytest

from clients import cli, cli_show
from clients.cli_arena import as_json, tournament_format
from matchserver.v1 import arena_pb2 as arena_pb


def a_tournament() -> arena_pb.Tournament:
    return arena_pb.Tournament(
        tournament_id="6f1c7e2a-1b2c-4d5e-8f90-123456789abc",
        name="spring",
        game="cookoff",
        format="round-robin",
        bots=["alpha", "beta", "gamma"],
        state="running",
        matches_total=3,
        matches_finished=2,
        standings=[
            arena_pb.Standing(rank=1, bot="alpha", points=1.5, played=2, wins=1, byes=0),
            arena_pb.Standing(rank=2, bot="beta", points=0.5, played=1, wins=0, byes=1),
            arena_pb.Standing(rank=2, bot="gamma", points=0.5, played=1, wins=0, byes=1),
        ],
        matches=[
            arena_pb.TournamentMatch(index=0, round=1, seats=["alpha", "beta"], match_id="m-one", state="finished"),
            arena_pb.TournamentMatch(
                index=1, round=2, seats=["gamma", "alpha"], match_id="m-two", state="voided", note="a bot crashed"
            ),
            arena_pb.TournamentMatch(index=2, round=3, seats=["beta", "gamma"], state="scheduled"),
        ],
        audit=["created by admin: seed 3", "match 0 finished: alpha beat beta (+1 alpha)"],
        organiser="admin",
    )


def test_tournament_show_prints_progress_standings_matches_notes_and_audit() -> None:
    lines = cli_show.tournament_lines(a_tournament())
    assert lines[0] == (
        "tournament 6f1c7e2a-1b2c-4d5e-8f90-123456789abc · spring · cookoff round-robin · running · organised by admin"
    )
    assert lines[1] == "2 of 3 matches finished"
    assert lines[2] == "" and lines[3].strip() == "standings"
    table = lines[4:]
    assert table[0].split() == ["rank", "bot", "points", "played", "wins", "byes"]
    assert [row.split() for row in table[2:5]] == [
        ["1", "alpha", "1.5", "2", "1", "0"],
        ["2", "beta", "0.5", "1", "0", "1"],
        ["2", "gamma", "0.5", "1", "0", "1"],
    ]
    matches = lines[lines.index("") + 1 :]
    matches = matches[matches.index("") + 1 :]
    assert matches[0].strip() == "matches" and matches[1].split() == ["#", "round", "seats", "state", "match"]
    assert [row.split() for row in matches[3:6]] == [
        ["0", "1", "alpha,", "beta", "finished", "m-one"],
        ["1", "2", "gamma,", "alpha", "voided", "m-two"],
        ["2", "3", "beta,", "gamma", "scheduled", "-"],
    ]
    assert lines[-6:-3] == ["notes:", "  #1: a bot crashed", ""]
    assert lines[-3:] == ["audit:", "  created by admin: seed 3", "  match 0 finished: alpha beat beta (+1 alpha)"]


def test_the_leaderboard_shows_mu_with_its_sigma_and_says_when_nothing_is_rated() -> None:
    board = arena_pb.LeaderboardResponse(
        game="mining",
        ratings=[
            arena_pb.Rating(rank=1, bot="digger", mu=29.61, sigma=7.17, ordinal=8.1, matches=4),
            arena_pb.Rating(rank=2, bot="mole", mu=25.0, sigma=8.333, ordinal=0.0, matches=1),
        ],
    )
    lines = cli_show.leaderboard_lines(board)
    assert lines[0].strip() == "mining leaderboard"
    assert lines[1].split() == ["rank", "bot", "ordinal", "mu", "±", "sigma", "matches"]
    assert [line.split() for line in lines[3:]] == [
        ["1", "digger", "8.1", "29.6", "±", "7.2", "4"],
        ["2", "mole", "0.0", "25.0", "±", "8.3", "1"],
    ]
    assert cli_show.leaderboard_lines(arena_pb.LeaderboardResponse(game="cookoff")) == [
        "no rated arena matches of cookoff yet"
    ]


def test_bots_show_state_auto_accept_and_key_generation() -> None:
    bots = [
        arena_pb.Bot(name="ann-bot", created_at=1_800_000_000, owner="admin", key_generation=2),
        arena_pb.Bot(name="bob-bot", revoked=True, auto_accept=True, owner="hk_1", key_generation=1),
    ]
    lines = cli_show.bots_table(bots)
    assert lines[0].split() == ["bot", "state", "auto-accept", "key", "owner", "created"]
    assert lines[2].split() == ["ann-bot", "active", "no", "2", "admin", "2027-01-15", "08:00", "UTC"]
    assert lines[3].split() == ["bob-bot", "revoked", "yes", "1", "hk_1"]
    assert cli_show.bots_table([]) == ["no bots registered (matchctl bot create NAME)"]


def test_json_keeps_the_proto_field_names_every_field_and_int64_as_numbers() -> None:
    value = as_json(arena_pb.CreateBotResponse(bot=arena_pb.Bot(name="x", key_generation=1), bot_key="msbk_x"))
    assert value == {
        "bot": {
            "name": "x",
            "created_at": 0.0,
            "revoked": False,
            "auto_accept": False,
            "owner": "",
            "key_generation": 1,
        },
        "bot_key": "msbk_x",
    }
    json.dumps(as_json(arena_pb.GetTournamentResponse(tournament=a_tournament())))  # plain JSON throughout


def test_cookoff_tournaments_default_to_round_robin_and_the_others_to_rotation() -> None:
    assert tournament_format("cookoff", None) == "round-robin"
    assert tournament_format("mining", None) == "rotation"
    assert tournament_format("last-gathering", None) == "rotation"
    assert tournament_format("cookoff", "rotation") == "rotation"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["bot", "create"], "usage: matchctl bot create NAME"),
        (["bot", "revoke", "x"], "needs --reason"),
        (["challenge"], "usage: matchctl challenge --game G"),
        (["challenge", "--game", "cookoff"], "usage: matchctl challenge --game G --bots A,B"),
        (["challenge", "answer", "c1", "--token", "msbk_x"], "one of --accept or --decline"),
        (["tournament", "void", "t1", "m1"], "--reason"),
        (["tournament", "create", "--game", "cookoff"], "usage: matchctl tournament create"),
        (["leaderboard", "--game", "nosuch"], "unknown game 'nosuch'"),
        (["verify", "m1", "--tournament", "t1"], "one of them"),
    ],
)
def test_an_arena_command_line_that_cannot_work_is_one_line_before_any_call(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Port 9 (discard) on loopback: nothing answers, so a call made would fail UNAVAILABLE (exit 1), not 2.
    assert cli.main(["--server", "127.0.0.1:9", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and said in err, err
