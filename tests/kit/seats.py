"""Example bots of clients/examples/ playing every seat of a match on a real server, as processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clients.client import MatchClient
from tests.support.server import ServerThread

EXAMPLES = Path(__file__).resolve().parents[2] / "clients" / "examples"
PLAYERS = {
    "last-gathering": ("ann", "bob", "cat", "dan"),
    "cookoff": ("ann", "bob"),
    "mining": ("ann", "bob", "cat", "dan", "eve"),
}
BOT_TIMEOUT = 120.0  # a bound on a hang, not a speed requirement


@dataclass
class PlayedMatch:
    match_id: str
    host_token: str
    tokens: dict[str, str]
    outputs: dict[str, str]


def example_bot(game: str) -> Path:
    return EXAMPLES / f"{game.replace('-', '_')}_bot.py"


def play_with_example_bots(
    server: ServerThread,
    game: str,
    seed: int,
    bot: Path | None = None,
    cwd: Path | None = None,
    pythonpath: str | None = None,
) -> PlayedMatch:
    """Create a match, fill every seat as the admin, and run the example bot once per seat until each
    process exits (the match is over). The server's clock is a ManualClock that never moves, so no
    deadline can end a phase: only the bots' submissions can."""
    client = server.client()
    players = list(PLAYERS[game])
    created = client.create(game, players, seed=seed)
    tokens = {p: client.join(created.match_id, p) for p in players}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = pythonpath if pythonpath is not None else str(EXAMPLES.parents[1])
    processes = {
        p: subprocess.Popen(
            [sys.executable, str(bot or example_bot(game)), server.address, created.match_id, p],
            env={**env, "MATCH_TOKEN": tokens[p]},
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for p in players
    }
    outputs: dict[str, str] = {}
    try:
        for player, process in processes.items():
            outputs[player], _ = process.communicate(timeout=BOT_TIMEOUT)
            assert process.returncode == 0, f"{player}'s bot exited {process.returncode}:\n{outputs[player][-2000:]}"
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    return PlayedMatch(created.match_id, created.host_token, tokens, outputs)


def batches(client: MatchClient, match_id: str, host_token: str) -> list[tuple[dict[str, Any], list[int]]]:
    """The match's game batches as its host sees them: (cause, versions); the cause is on the first record."""
    out: list[tuple[dict[str, Any], list[int]]] = []
    for event in client.history(match_id, host_token):
        record = json.loads(event.json)
        if event.kind != "game":
            continue
        if "cause" in record or not out:
            out.append((record.get("cause", {}), []))
        out[-1][1].append(event.version)
    return out
