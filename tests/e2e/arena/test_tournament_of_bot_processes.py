"""Issue 16's proof: a real server and five example bots (clients/examples/arena_bot.py), each its own
process holding only its bot key, play a tournament of each game to the end; the standings agree with
the matches' own results and the ratings with openskill recomputed here from the same ranks. Then a bot
that crashes mid-tournament is played by the game's defaults, and the tournament still finishes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce

from matchserver.v1 import arena_pb2 as apb
from matchserver.v1 import matchserver_pb2 as pb
from server.clock import ManualClock
from tests.e2e.arena.support import Arena, auth, ranks_of
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parents[3]
ARENA_BOT = ROOT / "clients" / "examples" / "arena_bot.py"
BOTS = ["ann", "bob", "cid", "dan", "eve"]
PLAYED = 300.0  # a bound on a hang (a tournament on two loaded cores), not a speed requirement


class BotProcesses:
    def __init__(self, server: ServerThread, keys: dict[str, str], log_dir: Path) -> None:
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.logs: dict[str, Path] = {}
        env = {k: v for k, v in os.environ.items() if not k.startswith("MATCHSERVER_")}
        env["PYTHONPATH"] = str(ROOT)
        for name, key in keys.items():
            self.logs[name] = log_dir / f"{name}.log"
            with self.logs[name].open("wb") as out:
                self.processes[name] = subprocess.Popen(
                    [sys.executable, str(ARENA_BOT), server.address, "--strategy", "greedy"],
                    env={**env, "MATCHSERVER_BOT_KEY": key},  # the bot key only: no admin token, no seat token
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )

    def kill(self, name: str) -> None:
        self.processes[name].send_signal(signal.SIGKILL)
        self.processes[name].wait(30)

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()

    def output(self) -> str:
        return "\n".join(f"--- {name}\n{path.read_text()[-2000:]}" for name, path in self.logs.items())


@pytest.fixture
def arena(server: ServerThread) -> Iterator[Arena]:
    arena = Arena(server)
    yield arena
    arena.close()


def _points(ranks: dict[str, int]) -> dict[str, float]:
    return {
        b: sum(1.0 if r < o else 0.5 if r == o else 0.0 for c, o in ranks.items() if c != b) for b, r in ranks.items()
    }


def _check_standings_and_ratings(arena: Arena, tournament: apb.Tournament) -> None:
    points = dict.fromkeys(tournament.bots, 0.0)
    model, rated = PlackettLuce(), {}
    finished = sorted(tournament.matches, key=lambda m: m.finished_version)  # the order results were recorded
    for match in finished:
        assert match.state == "finished", match
        ranks = ranks_of(arena, match.match_id)  # the match's own result, read from the match
        assert set(ranks) == set(match.seats) and json.loads(match.ranks_json) == ranks
        for bot, gained in _points(ranks).items():
            points[bot] += gained
        bots = sorted(ranks)
        teams = model.rate([[rated.get(b) or model.rating(name=b)] for b in bots], ranks=[ranks[b] for b in bots])
        rated.update({b: team[0] for b, team in zip(bots, teams, strict=True)})
    standings = {row.bot: row.points for row in tournament.standings}
    assert standings == points
    by_points = sorted(points.values(), reverse=True)
    assert [row.rank for row in tournament.standings] == [
        by_points.index(row.points) + 1 for row in tournament.standings
    ]
    board = arena.stub.Leaderboard(apb.LeaderboardRequest(game=tournament.game), metadata=auth(None)).ratings
    assert {r.bot: (r.mu, r.sigma, r.matches) for r in board} == {
        b: (pytest.approx(r.mu), pytest.approx(r.sigma), sum(b in m.seats for m in tournament.matches))
        for b, r in rated.items()
    }


# One tournament of each game, with its draw and matches_total. Mining stays in the quick run (`make
# test-quick`): about 7 s, against 18 s for Cookoff's round robin of ten matches and 19 s for Last Gathering;
# those two run under `slow`, and `make test` runs all three.
TOURNAMENTS = [
    pytest.param(
        "cookoff",
        {"format": "round-robin", "games_per_pair": 1, "seed": 1},
        10,
        id="cookoff",
        marks=pytest.mark.slow,
    ),
    pytest.param(
        "last-gathering",
        {"format": "rotation", "rounds": 5, "table_size": 4, "seed": 2},
        5,
        id="last-gathering",
        marks=pytest.mark.slow,
    ),
    pytest.param("mining", {"format": "rotation", "rounds": 5, "table_size": 4, "seed": 3}, 5, id="mining"),
]


@pytest.mark.parametrize(("game", "draw", "matches_total"), TOURNAMENTS)
def test_five_bot_processes_play_a_tournament_of_each_game_to_the_end(
    server: ServerThread, arena: Arena, tmp_path: Path, game: str, draw: dict[str, Any], matches_total: int
) -> None:
    """The server's clock never moves here: no deadline fires, so every phase ends by the bots' own moves."""
    keys = {name: arena.bot(name) for name in BOTS}
    bots = BotProcesses(server, keys, tmp_path)
    try:
        made = arena.tournament(game, BOTS, **draw)
        assert made.matches_total == matches_total

        def finished() -> bool:
            return arena.get(made.tournament_id).state == "finished"

        try:
            wait_until(finished, f"the {game} tournament finishes", timeout=PLAYED, poll=0.5)
        except AssertionError:
            raise AssertionError(bots.output()) from None
        assert all(process.poll() is None for process in bots.processes.values()), bots.output()
    finally:
        bots.stop()
    tournament = arena.get(made.tournament_id)
    _check_standings_and_ratings(arena, tournament)
    verified = arena.stub.VerifyTournament(
        apb.VerifyTournamentRequest(tournament_id=tournament.tournament_id), metadata=auth(None)
    )
    assert verified.ok, verified.problem
    assert verified.checked_matches == len(tournament.matches), verified.problem


@pytest.mark.slow
def test_a_bot_that_crashes_mid_tournament_is_played_by_defaults_and_the_tournament_finishes(
    server: ServerThread, arena: Arena, clock: ManualClock, tmp_path: Path
) -> None:
    keys = {name: arena.bot(name) for name in BOTS[:3]}
    bots = BotProcesses(server, keys, tmp_path)
    try:
        made = arena.tournament("cookoff", BOTS[:3], format="round-robin", games_per_pair=1, seed=4)
        first = next(m for m in made.matches if m.state == "playing")
        crashed = first.seats[0]
        wait_until(lambda: arena.state(first.match_id, None).version > 3, "the bots start playing")
        bots.kill(crashed)

        def only_the_crashed_bot_is_awaited() -> bool:
            """Move the clock past a deadline only when every live bot has moved: their phases never time out."""
            tournament = arena.get(made.tournament_id)
            if tournament.state == "finished":
                return True
            for match in tournament.matches:
                if match.state != "playing":
                    continue
                status = arena.state(match.match_id, None).status
                owing = set(status.awaiting) - set(status.submitted)
                if crashed in match.seats and owing == {crashed}:
                    clock.advance(3600)  # the crashed bot never answers: its phase ends by its deadline
                    return False
            return False

        wait_until(only_the_crashed_bot_is_awaited, "the tournament finishes without the crashed bot", timeout=PLAYED)
    finally:
        bots.stop()
    done = arena.get(made.tournament_id)
    assert done.matches_finished == 3
    timeouts = {}
    for match in done.matches:
        history = arena.matches.History(pb.HistoryRequest(match_id=match.match_id), metadata=auth(arena.admin)).events
        causes = [json.loads(event.json).get("cause") or {} for event in history]
        timeouts[frozenset(match.seats)] = sum(bool(cause.get("timeout")) for cause in causes)
    assert all((crashed in seats) == (count > 0) for seats, count in timeouts.items()), timeouts  # recorded defaults
    _check_standings_and_ratings(arena, done)
