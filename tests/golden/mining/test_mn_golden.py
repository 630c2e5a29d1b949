"""Golden transcript of a whole 5-player mining match, made by the example bots (with missed deadlines,
a replaced submission, a bare 'end early' and a clock jump): it replays to exactly expected.json, and
writing the replay back out reproduces the script.

Regenerate (only when a rules change is intended): `.venv/bin/python tests/golden/mining/test_mn_golden.py --write`
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from clients.bots.mining import greedy_bot, random_bot
from engine.contract import Viewer
from engine.match import LocalMatch
from engine.mining import GAME
from engine.transcript import Step, play_script, script_header, script_lines, simulate, write_script

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "match.txt"
EXPECTED = HERE / "expected.json"
SEED = 2026
PLAYERS = ("Ann", "Bea", "Cal", "Dov", "Eli")


def test_golden_transcript_replays_to_the_expected_result():
    lines = SCRIPT.read_text().splitlines()
    seed, players = script_header(lines)
    assert simulate(GAME, players, seed, lines) == json.loads(EXPECTED.read_text())


def test_writing_the_replayed_match_back_out_reproduces_the_script():
    lines = SCRIPT.read_text().splitlines()
    seed, players = script_header(lines)
    steps: list[Step] = []
    match = play_script(GAME, LocalMatch(GAME, GAME.default_config(players), seed), lines, steps)
    assert match.finished
    assert write_script(GAME, steps) == script_lines(lines)


def test_golden_match_exercises_defaults_and_a_full_five_player_game():
    expected = json.loads(EXPECTED.read_text())
    assert expected["finished"] and len(expected["players"]) == 5
    assert "---" in script_lines(SCRIPT.read_text().splitlines())


def generate() -> tuple[list[str], dict[str, object]]:
    bots = {"Ann": greedy_bot, "Bea": random_bot, "Cal": greedy_bot, "Dov": random_bot, "Eli": greedy_bot}
    missed = {("setup", "Dov"), (3, "Eli"), (5, "Bea"), (5, "Cal")}  # these deadlines pass (MN-P1)
    match = LocalMatch(GAME, GAME.default_config(PLAYERS), SEED)
    rng = random.Random(SEED)
    steps: list[Step] = []
    while not match.finished:
        key: object = "setup" if match.state.phase == "setup" else match.state.round
        if key in (2, 6):
            match.advance(3600)  # players take an hour to answer
        for player in PLAYERS:
            if (key, player) in missed:
                continue
            text = bots[player](GAME.view(match.state, Viewer.of(player)), player, rng)
            if text is None:
                continue
            if key == 4 and player == "Ann":  # LG-10: submit, then ask to end early on its own
                first = GAME.parse(match.state, player, text.replace("; end early", ""))
                match.submit(player, first)
                steps.append(Step(match.now, player, first))
                text = "end early"
            command = GAME.parse(match.state, player, text)
            match.submit(player, command)
            steps.append(Step(match.now, player, command))
        current = "setup" if match.state.phase == "setup" else match.state.round
        if current == key and not match.finished:
            steps.append(Step(GAME.status(match.state).deadline or match.now, None))
            match.expire()
    header = f"# mining golden: seed={SEED} players={','.join(PLAYERS)}"
    lines = [header, "# made by tests/golden/mining/test_mn_golden.py --write (bots: greedy, random)"]
    lines += write_script(GAME, steps)
    return lines, simulate(GAME, PLAYERS, SEED, lines)


if __name__ == "__main__" and "--write" in sys.argv:
    script, result = generate()
    SCRIPT.write_text("\n".join(script) + "\n")
    EXPECTED.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(f"wrote {SCRIPT} ({len(script)} lines) and {EXPECTED}")
