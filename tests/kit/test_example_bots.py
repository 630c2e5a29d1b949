"""clients/examples/: each example bot plays every seat of a match on a real server to its end, and every
phase ends through a seat's own accepted submission (never a deadline or the host)."""

from __future__ import annotations

import ast
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.kit.seats import EXAMPLES, PLAYERS, batches, example_bot, play_with_example_bots
from tests.kit.views import schema_errors
from tests.support.interrupt import interrupted_inside_a_call, interrupted_while_waiting
from tests.support.server import ServerThread


def test_each_example_bot_imports_only_the_generated_stubs_and_the_standard_library() -> None:
    import sys

    # arena_bot.py is the arena's example: it plays with clients.bots through clients.botloop, by design.
    bots = sorted(bot for bot in EXAMPLES.glob("*_bot.py") if bot.name != "arena_bot.py")
    assert [b.name for b in bots] == ["cookoff_bot.py", "last_gathering_bot.py", "mining_bot.py"]
    for bot in bots:
        tree = ast.parse(bot.read_text())
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        others = {m for m in imported if m.split(".")[0] not in sys.stdlib_module_names | {"grpc"}}
        assert others <= {"matchserver.v1"}, f"{bot.name} imports {others}"
        # Short: the game's choices, the stream loop, and a command line (--help, a line once connected, Ctrl-C:
        # a signal handler's few lines, since 2026-12-07, which took the cap from 100 lines to 105).
        assert len(bot.read_text().splitlines()) <= 105, f"{bot.name} is no longer a short example"


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_an_example_bot_plays_every_seat_to_the_end_and_each_phase_ends_by_a_submission(
    server: ServerThread, game: str
) -> None:
    """`server`'s clock (tests/conftest.py) never moves here: no deadline passes, so only submissions end phases."""
    played = play_with_example_bots(server, game, seed=21)
    client = server.client()
    seats = set(PLAYERS[game])
    final = client.state(played.match_id, played.host_token)
    assert final.status.finished and final.results["results"]
    for player, output in played.outputs.items():
        assert output.rstrip().endswith(f"{player}: the match is over"), output[-500:]
        assert "refused" not in output, f"{player}'s bot had a submission refused:\n{output}"

    phases_ended = 0
    submitters: set[str] = set()
    game_batches = batches(client, played.match_id, played.host_token)
    assert [cause.get("actor") == "server" for cause, _ in game_batches].count(True) == 1
    assert game_batches[0][0].get("actor") == "server"  # the game's opening records
    start = client.state(played.match_id, played.host_token, at=game_batches[0][1][-1])
    for cause, versions in game_batches[1:]:
        actor = cause.get("actor")
        assert actor in seats and cause.get("text") and not cause.get("timeout"), f"batch {versions}: {cause}"
        submitters.add(actor)
        before = client.state(played.match_id, played.host_token, at=versions[0] - 1)
        after = client.state(played.match_id, played.host_token, at=versions[-1])
        if after.status.phase == before.status.phase and not after.status.finished:
            continue
        # This batch, caused by `actor`'s accepted submission, ended the phase: everyone it awaited had
        # submitted during it (each bot's own submission is what let the phase end).
        phases_ended += 1
        awaited = set(start.status.awaiting)
        assert awaited and awaited <= submitters, f"{before.status.phase}: awaited {awaited}, submitted {submitters}"
        submitters, start = set(), after
    assert phases_ended >= {"last-gathering": 16, "cookoff": 75, "mining": 8}[game]

    for player, token in played.tokens.items():  # the views over the wire match the schemas too
        view = client.state(played.match_id, token).view
        assert not schema_errors(game, "player", view), player
    assert not schema_errors(game, "spectator", client.state(played.match_id, None).view)


ROOT = EXAMPLES.parents[1]
ALL_EXAMPLES = sorted(EXAMPLES.glob("*.py"))
WAIT = 60.0  # a bound on a hang, not a speed requirement


def bot_env(**more: str) -> dict[str, str]:
    # Without PYTHONUNBUFFERED (set on some machines) a bot's stdout to a pipe is buffered, as a user's is.
    dropped = ("PYTHONPATH", "MATCH_TOKEN", "MATCHSERVER_BOT_KEY", "PYTHONUNBUFFERED")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    return {**env, "PYTHONPATH": str(ROOT), **more}


@pytest.mark.parametrize("bot", ALL_EXAMPLES, ids=[bot.name for bot in ALL_EXAMPLES])
def test_every_example_answers_help(bot: Path) -> None:
    command = [sys.executable, str(bot), "--help"]
    ran = subprocess.run(command, capture_output=True, text=True, env=bot_env(), timeout=WAIT)
    assert ran.returncode == 0 and ran.stdout.startswith("usage: "), ran.stdout + ran.stderr
    assert "Traceback" not in ran.stderr and "server" in ran.stdout
    assert not any(word.isupper() and word.strip("[]") in ("AFTER", "CA") for word in ran.stdout.split())  # words


class Lines:
    """A child's stdout, read line by line in a thread, so that waiting for a line has a bound."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        assert process.stdout is not None
        out = process.stdout
        threading.Thread(target=lambda: [self.lines.put(line) for line in out], daemon=True).start()

    def first(self, word: str) -> str:
        while True:
            try:
                line = self.lines.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(f"no line with {word!r} came") from None
            if word in line:
                return line


def run_until_connected_then_interrupt(
    command: list[str], env: dict[str, str], then: str | None = None
) -> tuple[str, int, str]:
    """Start an example, wait for its connected line (and, given `then`, a later line holding it), send Ctrl-C
    (SIGINT to its process group, as a terminal does); the connected line, the exit code and its stderr."""
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        lines = Lines(process)
        line = lines.first("connected")
        if then is not None:  # stdout is a pipe here: the line comes only if the bot flushed it
            lines.first(then)
        os.killpg(process.pid, signal.SIGINT)
        code = process.wait(WAIT)
        assert process.stderr is not None
        return line, code, process.stderr.read()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(WAIT)


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_a_game_example_says_it_connected_and_stops_on_ctrl_c(server: ServerThread, game: str) -> None:
    """The bot submits its first move; the match then waits on its other seats (nobody plays them), so the bot
    is mid-match when interrupted, and what it printed before is out (a pipe, not a terminal, holds stdout)."""
    client = server.client()
    players = list(PLAYERS[game])
    match_id = client.create(game, players, seed=3).match_id
    token = client.join(match_id, players[0])
    for other in players[1:]:  # every seat taken, so the match has begun and the bot has a move to make
        client.join(match_id, other)
    command = [sys.executable, str(example_bot(game)), server.address, match_id, players[0]]
    line, code, err = run_until_connected_then_interrupt(command, bot_env(MATCH_TOKEN=token), then=f"{players[0]} at ")
    assert line.startswith(f"{players[0]}: connected to {server.address}"), line
    assert code == 0 and "Traceback" not in err, err
    assert err.strip().endswith(f"{players[0]}: stopped"), err


# Runs an example file with Ctrl-C landing inside the making of its Subscribe call, or inside its wait for
# the stream's next message as that wait lets go of the call's lock (tests/support/interrupt.py).
RUN_THE_EXAMPLE = 'import runpy\nsys.argv = sys.argv[1:]\nrunpy.run_path(sys.argv[0], run_name="__main__")\n'
INTERRUPT_INSIDE_A_CALL = interrupted_inside_a_call(RUN_THE_EXAMPLE)
INTERRUPT_WHILE_WAITING = interrupted_while_waiting(RUN_THE_EXAMPLE)


@pytest.mark.parametrize("program", [INTERRUPT_INSIDE_A_CALL, INTERRUPT_WHILE_WAITING], ids=["making", "waiting"])
@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_a_game_example_interrupted_inside_a_grpc_call_still_stops_cleanly(
    server: ServerThread, game: str, program: str
) -> None:
    """Ctrl-C where gRPC's own code turns it into another error, or leaves a half-made call behind: the bot
    still says it stopped and exits 0, with no traceback."""
    client = server.client()
    players = list(PLAYERS[game])
    match_id = client.create(game, players, seed=3).match_id
    token = client.join(match_id, players[0])
    command = [sys.executable, "-c", program, str(example_bot(game)), server.address, match_id]
    ran = subprocess.run(
        [*command, players[0]], capture_output=True, text=True, env=bot_env(MATCH_TOKEN=token), timeout=WAIT
    )
    assert ran.stdout.startswith(f"{players[0]}: connected to {server.address}"), ran.stdout + ran.stderr
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr
    assert ran.stderr.strip() == f"{players[0]}: stopped", ran.stderr


def test_the_arena_example_says_it_connected_and_stops_on_ctrl_c(server: ServerThread) -> None:
    key = server.client().create_bot("ann-bot").bot_key
    command = [sys.executable, str(EXAMPLES / "arena_bot.py"), server.address]
    line, code, err = run_until_connected_then_interrupt(command, bot_env(MATCHSERVER_BOT_KEY=key))
    assert line.startswith(f"connected to {server.address}"), line
    assert code == 0 and "Traceback" not in err, err
    assert "resume with --after" in err, err
