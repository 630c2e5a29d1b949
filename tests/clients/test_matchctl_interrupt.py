"""Ctrl-C stops `matchctl watch` cleanly even when it lands inside the making of the stream's gRPC call,
before the call object has its state, or inside the stream's wait for its next message as that wait lets go
of the call's lock: windows a real Ctrl-C hits now and then (each failed the example bots' test once), here
hit every time (tests/support/interrupt.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.interrupt import interrupted_inside_a_call, interrupted_while_waiting
from tests.support.server import ServerThread

ROOT = Path(__file__).resolve().parents[2]
RUN_MATCHCTL = "from clients.cli import main\nsys.exit(main(sys.argv[1:]))\n"
INTERRUPT_INSIDE_A_CALL = interrupted_inside_a_call(RUN_MATCHCTL)
INTERRUPT_WHILE_WAITING = interrupted_while_waiting(RUN_MATCHCTL)


@pytest.mark.parametrize("program", [INTERRUPT_INSIDE_A_CALL, INTERRUPT_WHILE_WAITING], ids=["making", "waiting"])
def test_watch_interrupted_inside_a_grpc_call_stops_with_no_traceback(server: ServerThread, program: str) -> None:
    match_id = server.client().create("duel", ["ann", "bob"], seed=3).match_id
    env = {k: v for k, v in os.environ.items() if not k.startswith("MATCHSERVER_")} | {"PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", program, "--server", server.address, "watch", match_id]
    ran = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, cwd=ROOT)
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr


def test_an_arena_bridge_interrupted_while_it_waits_for_a_notice_says_where_to_resume(server: ServerThread) -> None:
    """`matchctl bridge -- PROGRAM` (an arena bot) spends its life waiting for the bot's next notice: Ctrl-C
    landing there as the wait lets go of the call's lock still ends it as a Ctrl-C does, saying where to resume."""
    key = server.client().create_bot("ann-bot").bot_key
    env = {k: v for k, v in os.environ.items() if not k.startswith("MATCHSERVER_")}
    env |= {"PYTHONPATH": str(ROOT), "MATCHSERVER_BOT_KEY": key}
    command = [sys.executable, "-c", INTERRUPT_WHILE_WAITING, "--server", server.address, "bridge", "--", "true"]
    ran = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, cwd=ROOT)
    assert ran.returncode == 0 and "Traceback" not in ran.stderr and "unexpected" not in ran.stderr, ran.stderr
    assert "resume with --after 0" in ran.stdout + ran.stderr, ran.stdout + ran.stderr
