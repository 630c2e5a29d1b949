"""`matchctl bridge` over a real server (issue 27): a bot that is a few lines of POSIX sh
(clients/examples/echo_bot.sh) plays every seat of a match of each game and of the duel to its end, each
seat its own `matchctl bridge` process; a program that crashes mid-match is started again and the match
finishes; its stderr lands in the seat's log, which `matchctl bot log` prints; a refused answer is offered
back with "refused" (three times at most); a turn left unanswered is played by the deadline."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from clients import bridge
from clients.credentials import Credentials
from server.clock import ManualClock
from tests.kit.seats import PLAYERS
from tests.support.duel import seat_duel
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
MATCHCTL = Path(sys.executable).parent / "matchctl"
ECHO_BOT = ROOT / "clients" / "examples" / "echo_bot.sh"
PLAYED = 240.0  # a bound on a hang (a whole match on two loaded cores), not a speed requirement
pytestmark = pytest.mark.slow  # every test runs matchctl processes playing a match: a second or more

LINE_FIELDS = {"game", "seat", "match_id", "version", "match_version", "view", "phase", "awaiting", "deadline"}
LINE_FIELDS |= {"time_left", "reserve", "forms", "example"}


class Bridges:
    """`matchctl bridge MATCH --as SEAT -- PROGRAM` for each seat, as processes; their output in files."""

    def __init__(self, server: ServerThread, tmp: Path) -> None:
        self.server, self.tmp = server, tmp
        self.var = tmp / "matchctl-var"
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MATCHSERVER_")}
        return {**env, "MATCHSERVER_VAR": str(self.var)}  # where the bridge keeps its logs

    def start(self, match_id: str, seat: str, program: list[str], *options: str) -> None:
        argv = [str(MATCHCTL), "--server", self.server.address, "bridge", match_id, "--as", seat, *options]
        with (self.tmp / f"{seat}.out").open("wb") as out:
            self.processes[seat] = subprocess.Popen(
                [*argv, "--", *program], env=self.env(), stdout=out, stderr=subprocess.STDOUT
            )

    def matchctl(self, *args: str) -> subprocess.CompletedProcess[str]:
        argv = [str(MATCHCTL), "--server", self.server.address, *args]
        return subprocess.run(argv, env=self.env(), capture_output=True, text=True, timeout=60)

    def wait(self) -> dict[str, int]:
        codes = {}
        for seat, process in self.processes.items():
            try:
                codes[seat] = process.wait(PLAYED)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGUSR1)  # matchctl writes every thread's stack to its output
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(5)  # (time for the stacks to be written; it is not expected to end)
                process.kill()
                raise AssertionError(
                    f"{seat}'s bridge did not end; its threads' stacks end its output\n{self.output()}"
                ) from None
        return codes

    def output(self) -> str:
        return "\n".join(f"--- {seat}\n{(self.tmp / f'{seat}.out').read_text()[-12000:]}" for seat in self.processes)

    def log(self, match_id: str, seat: str) -> str:
        return (self.var / "bot-logs" / match_id / f"{seat}.log").read_text()

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
                process.wait(30)


@pytest.fixture
def bridges(server: ServerThread, tmp_path: Path) -> Any:
    running = Bridges(server, tmp_path)
    yield running
    running.stop()


def seated(server: ServerThread, game: str, players: tuple[str, ...], seed: int, config: Any = None) -> str:
    """A match with every seat joined, the tokens kept where matchctl finds them (`matchctl join` would)."""
    client = server.client()
    match_id = client.create(game, list(players), seed=seed, config=config).match_id
    credentials = Credentials()
    for player in players:
        credentials.set_player(server.address, match_id, player, client.join(match_id, player))
    return match_id


def duel(server: ServerThread, seed: int) -> str:
    client = server.client()
    match_id, _host, ann, bob = seat_duel(client, seed=seed)
    credentials = Credentials()
    credentials.set_player(server.address, match_id, "ann", ann)
    credentials.set_player(server.address, match_id, "bob", bob)
    return match_id


def script(tmp: Path, name: str, text: str) -> list[str]:
    path = tmp / name
    path.write_text(text)
    return ["sh", str(path)]


def lines_read(log: str) -> list[dict[str, Any]]:
    """The turns a program that copies its stdin to stderr was given, from its log."""
    return [json.loads(line) for line in log.splitlines() if line.startswith("{")]


def finished(server: ServerThread, match_id: str) -> bool:
    return bool(server.client().state(match_id, server.admin_token).status.finished)


GAMES = [
    pytest.param("duel", ("ann", "bob"), id="duel"),
    pytest.param("cookoff", PLAYERS["cookoff"], id="cookoff"),
    pytest.param("last-gathering", PLAYERS["last-gathering"], id="last-gathering"),
    pytest.param("mining", PLAYERS["mining"], id="mining"),
]


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_the_echo_bot_bridged_in_every_seat_plays_a_match_to_its_end(
    server: ServerThread, bridges: Bridges, game: str, players: tuple[str, ...]
) -> None:
    """The server's clock never moves: every phase ends by the echoed examples alone."""
    match_id = duel(server, seed=1) if game == "duel" else seated(server, game, players, seed=1)
    for player in players:
        bridges.start(match_id, player, ["sh", str(ECHO_BOT)], "--verbose")  # (a failure shows every turn)
    codes = bridges.wait()
    assert codes == dict.fromkeys(players, 0), bridges.output()
    assert finished(server, match_id)
    history = server.client().history(match_id, server.admin_token)
    causes = [json.loads(event.json).get("cause") or {} for event in history]
    assert not any(cause.get("timeout") for cause in causes)  # no deadline passed
    for player in players:
        log = bridges.log(match_id, player)
        assert "answering: " in log and "-- bridge: started" in log, log  # the bot's stderr, kept
        assert log.count("-- bridge: started") == 1  # one process for the whole match


def test_the_line_protocol_and_a_refused_answer_offered_back_with_refused(
    server: ServerThread, bridges: Bridges, tmp_path: Path
) -> None:
    """ann's program answers `pick 9` (against DUEL-1) unless the line says its last answer was refused."""
    match_id = duel(server, seed=2)
    stubborn = script(
        tmp_path,
        "stubborn.sh",
        """while IFS= read -r turn; do
    printf '%s\\n' "$turn" >&2
    case $turn in *'"refused": '*) echo "pick 1" ;; *) echo "pick 9" ;; esac
done
""",
    )
    bridges.start(match_id, "ann", stubborn, "--verbose")
    bridges.start(match_id, "bob", ["sh", str(ECHO_BOT)])
    assert bridges.wait() == {"ann": 0, "bob": 0}, bridges.output()
    turns = lines_read(bridges.log(match_id, "ann"))
    assert len(turns) == 6  # three rounds: each turn, then the same turn with "refused"
    for asked, again in zip(turns[::2], turns[1::2], strict=True):
        assert set(asked) == LINE_FIELDS and set(again) == LINE_FIELDS | {"refused"}
        assert again["refused"].startswith("FAILED_PRECONDITION: ") and "(DUEL-1)" in again["refused"]
        assert {k: v for k, v in again.items() if k != "refused"} == asked  # the same turn, offered back
        assert asked["game"] == "duel" and asked["seat"] == "ann" and asked["match_id"] == match_id
        assert asked["awaiting"] == ["ann", "bob"] or asked["awaiting"] == ["ann"]
        assert asked["time_left"] == pytest.approx(60.0) and asked["deadline"] is not None
        assert asked["match_version"] >= asked["version"] and asked["view"]["my_picks"] == {}
        assert asked["forms"] == ["pick N (1 to 3)"] and asked["example"] == "pick 1"
        assert list(asked)[-1] == "example"  # last, for line tools
    assert [t["phase"] for t in turns[::2]] == ["round 1", "round 2", "round 3"]
    assert [t["view"]["round"] for t in turns[::2]] == [1, 2, 3]
    out = (tmp_path / "ann.out").read_text()
    assert out.count("'pick 9' refused, FAILED_PRECONDITION") == 3 and out.count("accepted as 'pick 1'") == 3, out
    history = server.client().history(match_id, server.admin_token)
    picks = [json.loads(e.json)["event"] for e in history if e.type == "Picked"]
    assert [p["number"] for p in picks if p["player"] == "ann"] == [1, 1, 1]


def deadlines_for_ann(server: ServerThread, match_id: str, clock: ManualClock, given_up: Any) -> Any:
    """A condition that moves the clock past ann's deadline once bob has picked and ann's bridge has given
    up on the round (`given_up()` counts the rounds it gave up on); true once the match is over."""

    passed: set[str] = set()  # the rounds whose deadline was passed (once each: the server may lag behind)

    def moved() -> bool:
        if finished(server, match_id):
            return True
        status = server.client().state(match_id, server.admin_token).status
        due = set(status.awaiting) == {"ann"} and given_up() >= int(status.phase.split()[-1])
        if due and status.phase not in passed:
            passed.add(status.phase)
            clock.advance(status.deadline - clock.now() + 1)  # just past it: the next deadline counts from it
        return False

    return moved


def test_a_refused_answer_is_offered_back_three_times_then_the_turn_is_left_to_the_deadline(
    server: ServerThread, bridges: Bridges, tmp_path: Path, clock: ManualClock
) -> None:
    match_id = duel(server, seed=3)
    wrong = script(
        tmp_path, "wrong.sh", "while IFS= read -r turn; do printf '%s\\n' \"$turn\" >&2; echo 'pick 7'; done\n"
    )
    bridges.start(match_id, "ann", wrong)
    bridges.start(match_id, "bob", ["sh", str(ECHO_BOT)])
    out = tmp_path / "ann.out"
    given_up = deadlines_for_ann(server, match_id, clock, lambda: out.read_text().count("; waiting"))
    wait_until(given_up, "the match ends by ann's deadlines", timeout=PLAYED)
    assert bridges.wait() == {"ann": 0, "bob": 0}, bridges.output()
    turns = lines_read(bridges.log(match_id, "ann"))
    assert [("refused" in t) for t in turns] == [False, True, True, True] * 3  # each turn: asked, then 3 offers
    assert all(t["refused"].startswith("FAILED_PRECONDITION: pick 1, 2 or 3, not 7") for t in turns if "refused" in t)
    history = server.client().history(match_id, server.admin_token)
    assert [e.type for e in history].count("Defaulted") == 3 and "Picked" in [e.type for e in history]


def test_a_turn_the_program_does_not_answer_is_left_to_the_deadline(
    server: ServerThread, bridges: Bridges, tmp_path: Path, clock: ManualClock
) -> None:
    match_id = duel(server, seed=4)
    silent = script(tmp_path, "silent.sh", "while IFS= read -r turn; do echo 'thinking' >&2; done\n")
    bridges.start(match_id, "ann", silent, "--timeout", "0.5")
    bridges.start(match_id, "bob", ["sh", str(ECHO_BOT)])
    out = tmp_path / "ann.out"
    given_up = deadlines_for_ann(server, match_id, clock, lambda: out.read_text().count("no answer to the turn"))
    wait_until(given_up, "the match ends by ann's deadlines", timeout=PLAYED)
    assert bridges.wait() == {"ann": 0, "bob": 0}, bridges.output()
    said = out.read_text()
    assert said.count("no answer to the turn") == 3 and "the deadline will play the game's default" in said, said
    assert bridges.log(match_id, "ann").count("thinking") == 3
    history = server.client().history(match_id, server.admin_token)
    assert [e.type for e in history].count("Defaulted") == 3


def test_a_program_that_crashes_mid_match_is_started_again_and_its_stderr_is_in_the_bot_log(
    server: ServerThread, bridges: Bridges, tmp_path: Path
) -> None:
    """ann's program dies at its second turn, once; started again, it is given that turn again."""
    match_id = duel(server, seed=5)
    crashed = tmp_path / "crashed-once"
    crashing = script(
        tmp_path,
        "crashing.sh",
        f"""n=0
while IFS= read -r turn; do
    n=$((n + 1))
    if [ "$n" = 2 ] && [ ! -e '{crashed}' ]; then
        : > '{crashed}'
        echo "ann's bot: crashing at its second turn" >&2
        exit 3
    fi
    echo "ann's bot: turn $n" >&2
    echo "pick 3"
done
""",
    )
    bridges.start(match_id, "ann", crashing)
    bridges.start(match_id, "bob", ["sh", str(ECHO_BOT)])
    assert bridges.wait() == {"ann": 0, "bob": 0}, bridges.output()
    assert finished(server, match_id)
    history = server.client().history(match_id, server.admin_token)
    assert [e.type for e in history].count(
        "Picked"
    ) == 6  # every turn answered: the crashed one by the program started again

    log = bridges.log(match_id, "ann")
    assert log.count("-- bridge: started") == 2 and "the program exited (3); starting it again" in log, log
    assert "ann's bot: crashing at its second turn" in log and "ann's bot: turn 1" in log
    assert log.index("crashing") < log.rindex("ann's bot: turn 1")  # the new process's first turn: the open one

    shown = bridges.matchctl("bot", "log", match_id, "--as", "ann")
    assert shown.returncode == 0 and shown.stdout == log, shown.stderr
    both = bridges.matchctl("bot", "log", match_id[:8])  # a prefix; every seat's log, each under its name
    assert both.returncode == 0, both.stderr
    assert re.findall(r"^==> (\w+) <==$", both.stdout, re.M) == ["ann", "bob"] and log in both.stdout
    missing = bridges.matchctl("bot", "log", match_id, "--as", "cat")
    assert missing.returncode == 2 and missing.stderr.startswith("matchctl: no bot log for cat"), missing.stderr
    assert "seats logged here: ann, bob" in missing.stderr


def test_bridge_without_a_program_or_a_seat_says_how_to_run_it(bridges: Bridges, server: ServerThread) -> None:
    match_id = duel(server, seed=6)
    for args, said in (
        (["bridge", match_id, "--as", "ann"], "usage: matchctl bridge MATCH --as SEAT -- PROGRAM ARGS"),
        (["bridge", match_id, "--", "sh", str(ECHO_BOT)], "bridge MATCH needs --as SEAT"),
        (["bridge", "--", "sh", str(ECHO_BOT)], "an arena bot needs its bot key in $MATCHSERVER_BOT_KEY"),
    ):
        ran = bridges.matchctl(*args)
        assert ran.returncode == 2 and ran.stderr.startswith(f"matchctl: {said}"), ran.stderr
        assert len(ran.stderr.strip().splitlines()) == 1


def test_a_bridge_told_to_stop_stops_its_program(server: ServerThread, bridges: Bridges, tmp_path: Path) -> None:
    """SIGTERM (or Ctrl-C) mid-match: the program and everything it started are stopped with the bridge."""
    match_id = duel(server, seed=7)
    silent = script(tmp_path, "silent.sh", "sleep 600 &\nwhile IFS= read -r turn; do echo 'thinking' >&2; done\n")
    bridges.start(match_id, "ann", silent)
    log = bridges.var / "bot-logs" / match_id / "ann.log"
    wait_until(lambda: log.exists() and "thinking" in log.read_text(), "ann's program reads its first turn")
    pid = int(re.findall(r"\(pid (\d+),", log.read_text())[0])
    bridges.processes["ann"].terminate()
    assert bridges.processes["ann"].wait(60) == 130  # interrupted, as after Ctrl-C
    assert "-- bridge: stopped" in log.read_text()
    wait_until(lambda: gone(pid), "the program's process group is gone: the sh and the sleep it started")


def gone(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_echo_bot_in_bots_md_is_the_committed_one() -> None:
    """docs/BOTS.md shows the loop of clients/examples/echo_bot.sh, and the line it shows is what the
    bridge writes (every field, `example` last)."""
    text = (ROOT / "docs" / "BOTS.md").read_text()
    section = text[text.index("## Any program as a bot: matchctl bridge") : text.index("## The arena")]
    shown = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert shown[-1] in ECHO_BOT.read_text()
    line = json.loads(" ".join(re.findall(r"```json\n(.*?)```", section, re.S)[0].splitlines()))
    assert set(line) == LINE_FIELDS and list(line)[-1] == "example"


class SlowToLeave(bridge.SeatBridge):
    """A seat bridge whose stream reader takes a moment to leave once the stream has ended: as a reader does
    on loaded cores, woken by the stream's end but not yet run."""

    def _read(self, session: Any, messages: Any) -> None:
        super()._read(session, messages)
        threading.Event().wait(0.5)


def test_a_seat_bridge_returns_only_once_its_stream_reader_has_left(
    server: ServerThread, bridges: Bridges, tmp_path: Path
) -> None:
    """A bridge said the match was over and never exited (once in 22 runs of this file on loaded cores):
    its stream reader, still inside the gRPC call as the process exited, was frozen holding the call's lock,
    and gRPC's finalizer of the call waited for that lock for good. A seat bridge's `run` now returns only
    once its reader has left. Ann is bridged in this process (the reader slow to leave), bob by matchctl."""
    client = server.client()
    match_id, _host, ann, bob = seat_duel(client, seed=3)
    Credentials().set_player(server.address, match_id, "bob", bob)
    bridges.start(match_id, "bob", ["sh", str(ECHO_BOT)])
    program = bridge.Program(["sh", str(ECHO_BOT)], tmp_path / "ann.log")
    said: list[str] = []
    seat = SlowToLeave(client, match_id, ann, program, seat="ann", say=said.append)
    try:
        ended = seat.run()
    finally:
        program.close()
    assert ended is not None and ended.version > 0, said
    readers = [thread for thread in threading.enumerate() if thread.name == bridge.READER and thread.is_alive()]
    assert readers == [], said
    assert bridges.wait() == {"bob": 0}, bridges.output()
