"""Writes match.txt and expected.json: a full 4-player match by the example bots, with missed phases.

Run from the repository root: .venv/bin/python tests/golden/last_gathering/make_golden.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from clients.bots.last_gathering import greedy_bot, random_bot
from engine.contract import Viewer
from engine.last_gathering import GAME
from engine.match import LocalMatch
from engine.transcript import Step, simulate, write_script

HERE = Path(__file__).parent
SEED = 20261129
PLAYERS = ("Ann", "Bob", "Cy", "Di")
BOTS = {"Ann": greedy_bot, "Bob": random_bot, "Cy": greedy_bot, "Di": random_bot}
# (phase text, player) pairs where the player sits the phase out, so the deadline applies defaults.
MISSES = {
    ("frame round 1", "Di"),
    ("step 3: auction 3 and placement 2", "Bob"),
    ("step 9: auction 9 and placement 8", "Cy"),
}
MISSES |= {("step 16: placement 15", "Di"), ("step 12: auction 12 and placement 11", "Ann")}


def record() -> list[str]:
    rng = random.Random(SEED)
    match = LocalMatch(GAME, GAME.default_config(list(PLAYERS)), SEED)
    steps: list[Step] = []
    while not match.finished:
        acted = False
        status = GAME.status(match.state)
        for player in sorted(status.awaiting):
            if (status.phase, player) in MISSES:
                continue
            text = BOTS[player](GAME.view(match.state, Viewer.of(player)), player, rng)
            if text is None:
                continue
            command = GAME.parse(match.state, player, text)
            steps.append(Step(match.now, player, command))
            match.submit(player, command)
            acted = True
            if GAME.status(match.state).phase != status.phase:
                break
        if not acted:
            deadline = GAME.status(match.state).deadline
            assert deadline is not None
            steps.append(Step(deadline, None))
            match.expire()
    header = f"# last-gathering seed={SEED} players={','.join(PLAYERS)} (bots: Ann, Cy greedy; Bob, Di random)"
    return [header, *write_script(GAME, steps)]


def main() -> None:
    lines = record()
    (HERE / "match.txt").write_text("\n".join(lines) + "\n")
    result = simulate(GAME, PLAYERS, SEED, lines)
    (HERE / "expected.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
