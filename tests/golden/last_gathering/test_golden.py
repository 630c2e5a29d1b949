"""Golden transcript: a full 4-player match replays to exactly the recorded results."""

from __future__ import annotations

import json
from pathlib import Path

from engine.last_gathering import GAME
from engine.match import LocalMatch
from engine.transcript import Step, build_config, play_script, script_header, script_lines, simulate, write_script

HERE = Path(__file__).parent


def header() -> tuple[int, list[str], list[str]]:
    lines = (HERE / "match.txt").read_text().splitlines()
    seed, players = script_header(lines)
    return seed, players, lines


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
    steps: list[Step] = []
    match = play_script(GAME, LocalMatch(GAME, build_config(GAME, players, None), seed), lines, steps)
    assert match.finished
    assert write_script(GAME, steps) == script_lines(lines)
