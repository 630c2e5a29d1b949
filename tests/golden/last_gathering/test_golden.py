"""Golden transcript: a full 4-player match replays to exactly the recorded results."""

from __future__ import annotations

import json
from pathlib import Path

from engine.last_gathering import GAME
from engine.match import LocalMatch
from engine.transcript import Step, build_config, simulate, write_script

HERE = Path(__file__).parent


def header() -> tuple[int, list[str], list[str]]:
    lines = (HERE / "match.txt").read_text().splitlines()
    fields = dict(word.split("=", 1) for word in lines[0].lstrip("# ").split() if "=" in word)
    return int(fields["seed"]), fields["players"].split(","), lines


def test_the_golden_match_replays_to_the_expected_results() -> None:
    seed, players, lines = header()
    expected = json.loads((HERE / "expected.json").read_text())
    result = simulate(GAME, players, seed, lines)
    assert json.loads(json.dumps(result)) == expected
    assert expected["finished"] is True and len(expected["results"]) == 4
    assert all("regions" in row and "lake" in row for row in expected["results"])
    assert "---" in lines  # missed phases exercise the defaults (LG-9)


def test_writing_the_replayed_match_reproduces_the_transcript() -> None:
    seed, players, lines = header()
    match = LocalMatch(GAME, build_config(GAME, players, None), seed)
    steps: list[Step] = []
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line == "---":
            steps.append(Step(GAME.status(match.state).deadline or 0.0, None))
            match.expire()
        elif line.startswith("@"):
            match.advance(float(line[1:].strip().lstrip("+")))
        else:
            player, text = (part.strip() for part in line.split(":", 1))
            command = GAME.parse(match.state, player, text)
            steps.append(Step(match.now, player, command))
            match.submit(player, command)
    assert match.finished
    assert write_script(GAME, steps) == [line for line in lines if not line.startswith("#")]
