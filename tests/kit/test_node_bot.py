"""clients/examples/node/bot.js, the Node reference bot (issue 27): one `node bot.js` process per seat, each
with its own seat token, plays a whole match on a real server over the Play stream to its end."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.registry import get_game
from server.app import Settings
from server.clock import ManualClock
from server.streams import StreamLimits
from tests.kit.seats import EXAMPLES, batches
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

NODE_BOT = EXAMPLES / "node"
BOT_TIMEOUT = 120.0  # a bound on a hang, not a speed requirement
INSTALL_TIMEOUT = 600.0  # npm ci from the registry, on a slow network
MOVE = re.compile(r"^(\S+): move at turn (\d+) \(.*\): (.+)$")


def tool(name: str) -> str:
    """The path of `name`; without it the test is skipped here, but fails in CI (as PostgreSQL does)."""
    found = shutil.which(name)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is required in CI to test clients/examples/node and is not on PATH")
        pytest.skip(f"no {name} on PATH: the Node bot is not tested here")
    return found


@pytest.fixture(scope="module")
def node() -> str:
    """`node`, with the bot's dependencies installed from its package-lock.json when they are missing."""
    node = tool("node")
    if not (NODE_BOT / "node_modules").is_dir():
        npm = tool("npm")
        command = [npm, "ci", "--prefix", str(NODE_BOT), "--no-audit", "--no-fund"]
        ran = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        assert ran.returncode == 0, f"npm ci failed:\n{ran.stdout}\n{ran.stderr}"
    return node


def bot_env(**more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MATCH")}
    return {**env, **more}


@pytest.mark.parametrize(
    "game",
    [
        "duel",
        pytest.param("cookoff", marks=pytest.mark.slow),
        pytest.param("last-gathering", marks=pytest.mark.slow),
        pytest.param("mining", marks=pytest.mark.slow),
    ],
)
def test_node_bots_play_every_seat_of_a_match_to_its_end(server: ServerThread, node: str, game: str) -> None:
    """`server`'s clock never moves (tests/conftest.py): no deadline passes, only the bots' moves end phases."""
    client = server.client()
    players = [f"p{i}" for i in range(get_game(game).default_seats)]
    created = client.create(game, players, seed=27)
    tokens = {p: client.join(created.match_id, p) for p in players}
    processes = {
        p: subprocess.Popen(
            [node, str(NODE_BOT / "bot.js")],
            env=bot_env(
                MATCHSERVER_ADDRESS=server.address, MATCH_ID=created.match_id, MATCH_TOKEN=tokens[p], MATCH_SEAT=p
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p in players
    }
    outputs: dict[str, tuple[str, str]] = {}
    try:
        for player, process in processes.items():
            outputs[player] = process.communicate(timeout=BOT_TIMEOUT)
            assert process.returncode == 0, f"{player}'s bot exited {process.returncode}:\n{outputs[player]}"
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()

    final = client.state(created.match_id, created.host_token)
    assert final.status.finished and final.results["results"]
    submitted = dict.fromkeys(players, 0)
    for cause, _versions in batches(client, created.match_id, created.host_token):
        if cause.get("actor") in submitted:
            assert not cause.get("timeout"), cause
            submitted[cause["actor"]] += 1
    for player, (out, err) in outputs.items():
        lines = out.splitlines()
        moves = [m for m in map(MOVE.match, lines) if m]
        assert moves and all(m.group(1) == player for m in moves), out
        assert len(moves) == len(lines) - 1, out  # one line per move, then the results
        assert lines[-1].startswith(f"{player}: the match is over at version {final.version}: {{"), out
        assert "refused" not in err, f"{player}'s bot had a move refused:\n{err}"
        assert len(moves) == submitted[player], (out, submitted)  # each move printed was applied, once


@pytest.fixture
def short_lived_streams(tmp_path: Path) -> Iterator[ServerThread]:
    """A server whose streams end themselves (UNAVAILABLE, with the resume trailer) at 0.3 s of age."""
    settings = Settings(
        address="127.0.0.1:0",
        var_dir=str(tmp_path / "var"),
        clock=ManualClock(),
        tick_interval=0.05,
        streams=StreamLimits(max_age=0.3),
    )
    running = ServerThread(settings).start()
    yield running
    running.stop()


class Lines:
    """A child's stderr, kept line by line by a thread, so a test can wait for a line."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        self.lines: list[str] = []
        stream = process.stderr
        self.thread = threading.Thread(target=lambda: self.lines.extend(stream), daemon=True)
        self.thread.start()

    def text(self) -> str:
        return "".join(self.lines)


@pytest.mark.slow
def test_a_node_bot_resumes_a_stream_the_server_ends_and_plays_on_without_a_double_move(
    short_lived_streams: ServerThread, node: str
) -> None:
    server = short_lived_streams
    client = server.client()
    created = client.create("duel", ["p0", "p1"], seed=28)
    tokens = {p: client.join(created.match_id, p) for p in ("p0", "p1")}

    def start(player: str) -> subprocess.Popen[str]:
        env = bot_env(MATCHSERVER_ADDRESS=server.address, MATCH_ID=created.match_id, MATCH_TOKEN=tokens[player])
        command = [node, str(NODE_BOT / "bot.js")]
        return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    first = start("p0")
    logged = Lines(first)
    try:
        # p0 moves, then its stream reaches its age and is resumed before p1 has even started.
        wait_until(lambda: "matchserver-resume-from" in logged.text(), "p0's bot resumed its stream", BOT_TIMEOUT)
        second = start("p1")
        try:
            out1, err1 = second.communicate(timeout=BOT_TIMEOUT)
        finally:
            if second.poll() is None:
                second.kill()
                second.wait()
        first.wait(BOT_TIMEOUT)
        out0 = first.stdout.read() if first.stdout else ""
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    logged.thread.join(BOT_TIMEOUT)
    err0 = logged.text()
    assert first.returncode == 0 and second.returncode == 0, (out0, err0, out1, err1)
    final = client.state(created.match_id, created.host_token)
    assert final.status.finished
    resumed = [line for line in err0.splitlines() if "matchserver-resume-from" in line]
    assert resumed and all("UNAVAILABLE" in line and "StreamLimits.max_age" in line for line in resumed), err0
    assert "refused" not in err0 + err1
    for player, out in (("p0", out0), ("p1", out1)):
        moves = [m for m in map(MOVE.match, out.splitlines()) if m]
        assert [m.group(1) for m in moves] == [player] * 3, out  # three rounds, one move each, never two
