"""Issue 27 in the arena: two bots that are a few lines of POSIX sh (clients/examples/echo_bot.sh), each
run by `matchctl bridge -- ...` with only its bot key, and two Python bots (clients/examples/arena_bot.py)
play a tournament to its end; VerifyTournament re-derives it from its log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from matchserver.v1 import arena_pb2 as apb
from matchserver.v1 import matchserver_pb2 as pb
from tests.e2e.arena.support import Arena, auth
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parents[3]
MATCHCTL = Path(sys.executable).parent / "matchctl"
ECHO_BOT = ROOT / "clients" / "examples" / "echo_bot.sh"
ARENA_BOT = ROOT / "clients" / "examples" / "arena_bot.py"
BRIDGED, PYTHON = ["ann", "bob"], ["cid", "dan"]
COOKOFF_SHORT = '{"rounds": 3, "judge_reveal_after": [0, 1, 2]}'  # a short game: the judges' reveals moved to fit
PLAYED = 300.0  # a bound on a hang (a tournament on two loaded cores), not a speed requirement


@pytest.fixture
def arena(server: ServerThread) -> Iterator[Arena]:
    arena = Arena(server)
    yield arena
    arena.close()


@pytest.mark.slow
def test_two_bridged_shell_bots_and_two_python_bots_play_a_tournament_to_its_end(
    server: ServerThread, arena: Arena, tmp_path: Path
) -> None:
    """The server's clock never moves: every phase ends by the bots' own moves, the shell bots' included."""
    keys = {name: arena.bot(name) for name in BRIDGED + PYTHON}
    made = arena.tournament(
        "mining", BRIDGED + PYTHON, format="rotation", rounds=2, table_size=4, seed=5, config_json='{"rounds": 2}'
    )
    assert made.matches_total == 2
    tournament = made.tournament_id
    env = {k: v for k, v in os.environ.items() if not k.startswith("MATCHSERVER_")}
    var = tmp_path / "matchctl-var"
    bridge = [str(MATCHCTL), "--server", server.address, "bridge", "--until-tournament", tournament]
    python = [sys.executable, str(ARENA_BOT), server.address, "--until-tournament", tournament]
    commands = {name: [*bridge, "--", "sh", str(ECHO_BOT)] for name in BRIDGED} | dict.fromkeys(PYTHON, python)
    processes: dict[str, subprocess.Popen[bytes]] = {}
    outputs = {name: tmp_path / f"{name}.out" for name in commands}
    for name, command in commands.items():
        bot_env = {**env, "MATCHSERVER_BOT_KEY": keys[name], "MATCHSERVER_VAR": str(var), "PYTHONPATH": str(ROOT)}
        with outputs[name].open("wb") as out:
            processes[name] = subprocess.Popen(command, env=bot_env, stdout=out, stderr=subprocess.STDOUT)

    def said() -> str:
        return "\n".join(f"--- {name}\n{path.read_text()[-3000:]}" for name, path in outputs.items())

    try:
        wait_until(
            lambda: arena.get(tournament).state == "finished", "the tournament finishes", timeout=PLAYED, poll=0.2
        )
        codes = {name: process.wait(PLAYED) for name, process in processes.items()}  # --until-tournament: exit 0
    except (AssertionError, subprocess.TimeoutExpired):
        raise AssertionError(said()) from None
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait(30)
    assert codes == dict.fromkeys(commands, 0), said()

    done = arena.get(tournament)
    assert done.matches_finished == 2 and all(m.state == "finished" for m in done.matches)
    for match in done.matches:
        request = pb.HistoryRequest(match_id=match.match_id)
        history = arena.matches.History(request, metadata=auth(arena.admin)).events
        causes = [json.loads(event.json).get("cause") or {} for event in history]
        assert not any(cause.get("timeout") for cause in causes)  # the shell bots moved: no deadline passed
        for seat in set(match.seats) & set(BRIDGED):
            log = var / "bot-logs" / match.match_id / f"{seat}.log"
            assert "answering: " in log.read_text(), said()  # its program played the seat, its stderr kept
    verified = arena.stub.VerifyTournament(apb.VerifyTournamentRequest(tournament_id=tournament), metadata=auth(None))
    assert verified.ok, verified.problem
    assert verified.checked_matches == len(done.matches)


@pytest.mark.slow
def test_a_bridged_bot_accepts_a_challenge_plays_it_and_stops_when_told(
    server: ServerThread, arena: Arena, tmp_path: Path
) -> None:
    """Bots that answer their own challenges: the bridge accepts (its default), plays the match, and on
    SIGTERM stops, exit 0, as an arena bot is stopped."""
    for name in BRIDGED:
        arena.bot(name, auto_accept=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MATCHSERVER_")}
    env["MATCHSERVER_VAR"] = str(tmp_path / "matchctl-var")
    outputs = {name: tmp_path / f"{name}.out" for name in BRIDGED}
    processes: dict[str, subprocess.Popen[bytes]] = {}
    for name in BRIDGED:
        with outputs[name].open("wb") as out:
            processes[name] = subprocess.Popen(
                [str(MATCHCTL), "--server", server.address, "bridge", "--", "sh", str(ECHO_BOT)],
                env={**env, "MATCHSERVER_BOT_KEY": arena.keys[name]},
                stdout=out,
                stderr=subprocess.STDOUT,
            )
    try:
        request = apb.CreateChallengeRequest(game="cookoff", bots=BRIDGED, config_json=COOKOFF_SHORT)
        challenge = arena.stub.CreateChallenge(request, metadata=auth(arena.admin)).challenge
        accepted = f"challenge {challenge.challenge_id}: accepted"
        over = "the match is over"
        wait_until(
            lambda: all(accepted in path.read_text() and over in path.read_text() for path in outputs.values()),
            "both bots accept the challenge and play its match to the end",
            timeout=PLAYED,
        )
        for process in processes.values():
            process.terminate()
        codes = {name: process.wait(60) for name, process in processes.items()}
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait(30)
    said = "\n".join(path.read_text() for path in outputs.values())
    assert codes == dict.fromkeys(BRIDGED, 0), said
    matches = {line.split()[-3] for line in said.splitlines() if "seated in cookoff match" in line}
    assert len(matches) == 1, said
    assert arena.state(matches.pop(), None).status.finished
