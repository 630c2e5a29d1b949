"""`make bench-peers` survives a peer's client dying in a window (boardgame.io once left a client 30 s without
an update, and that ended a 16-minute run): the peer's clients are started again and the window run once
more, said on the console. A client of ours or of a floor that dies still ends the run, and so does a peer
that fails twice. Real client processes (JSON lines on stdin and stdout, as the bench's are)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench.peer_procs import Client, Served, ask_all, close_all
from bench.peers import _once_more

ENDS = "import sys; sys.stdin.readline()"  # takes the command and exits without an answer
ANSWERS = "import json, sys; sys.stdin.readline(); print(json.dumps({'ops': 1}), flush=True); sys.stdin.read()"


def _client(script: str) -> Client:
    return Client(subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE))


def _window_of(clients: list[Client]) -> list[object]:
    return ask_all(clients, {"go": 1.0}, timeout=60)


def test_a_peers_client_that_dies_in_a_window_is_started_again_and_the_window_run_once_more(
    capsys: pytest.CaptureFixture[str],
) -> None:
    clients = [_client(ANSWERS), _client(ENDS)]

    def restart() -> None:
        close_all(clients)
        clients[:] = [_client(ANSWERS), _client(ANSWERS)]

    try:
        answers = _once_more(Served("colyseus", 0, ""), lambda: _window_of(clients), restart)
    finally:
        close_all(clients)
    assert answers == [{"ops": 1}, {"ops": 1}]
    said = capsys.readouterr().out
    assert "Colyseus: a bench client ended" in said and "window run once more" in said


@pytest.mark.parametrize("name", ["ours", "bare", "bare-durable"])
def test_a_client_of_ours_or_of_a_floor_that_dies_ends_the_run(name: str) -> None:
    clients = [_client(ENDS)]
    restarted: list[bool] = []
    try:
        with pytest.raises(RuntimeError, match="a bench client ended"):
            _once_more(Served(name, 0, ""), lambda: _window_of(clients), lambda: restarted.append(True))
    finally:
        close_all(clients)
    assert restarted == []


def test_a_peer_whose_client_dies_again_after_the_restart_ends_the_run() -> None:
    clients = [_client(ENDS)]

    def restart() -> None:
        close_all(clients)
        clients[:] = [_client(ENDS)]

    try:
        with pytest.raises(RuntimeError, match="a bench client ended"):
            _once_more(Served("bgio-memory", 0, ""), lambda: _window_of(clients), restart)
    finally:
        close_all(clients)
