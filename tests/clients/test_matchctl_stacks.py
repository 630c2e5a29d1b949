"""`kill -USR1` on a long-lived matchctl (a watch, a bridge) writes every thread's stack to its stderr and
leaves it running: a hung one says where it waits without being stopped (the bridge tests ask a bridge that
did not end for its stacks before they kill it). A real `matchctl watch` on a real server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.support.server import ServerThread
from tests.support.waiting import wait_until

MATCHCTL = Path(sys.executable).parent / "matchctl"


def test_usr1_prints_every_threads_stack_and_the_watch_goes_on(server: ServerThread, tmp_path: Path) -> None:
    match_id = server.client().create("duel", ["ann", "bob"], seed=3).match_id
    env = {k: v for k, v in os.environ.items() if not k.startswith("MATCHSERVER_")}
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        watch = subprocess.Popen(
            [str(MATCHCTL), "--server", server.address, "watch", match_id], stdout=stdout, stderr=stderr, env=env
        )
    try:
        wait_until(lambda: out.read_text().strip(), "matchctl watch has printed the match's first record")
        watch.send_signal(signal.SIGUSR1)
        # The main thread's stack, where it waits in our code (written a thread at a time: wait for all of it)
        wait_until(lambda: _main_thread_stack(err.read_text()), "matchctl printed its threads' stacks")
        assert "clients/client.py" in _main_thread_stack(err.read_text()), err.read_text()
        assert watch.poll() is None, err.read_text()  # still watching
    finally:
        watch.terminate()
        watch.wait(60)


def _main_thread_stack(stderr: str) -> str:
    """The stack faulthandler wrote for the thread that took the signal (the main one), once written whole:
    most recent call first, so it ends with the program's own module ("" until then)."""
    _, found, rest = stderr.partition("Current thread")
    return rest if found and " in <module>" in rest else ""
