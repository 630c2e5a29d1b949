"""Golden transcripts of Cookoff.

`match.txt`: a whole match made by the example bots (judge_bot vs random_bot) on the default clocks,
with `@ +N` clock advances (some past a phase's base time, so reserve is spent) and a `---` where bob
lets the final dish choice run out. Under the current rules (version 2, revised CK-6) his reserve runs
out there and he loses on time: it replays to exactly expected.json. Under rules version 1 (CK-P4,
withdrawn) he was judged on his latest dish: the same script replays to exactly expected-v1.json (the
expected result before the revision, unchanged). Writing the replay back out reproduces the script.

`timeloss.txt`: a short match where bob spends his reserve and his clock runs out through `@ +N` while
ann keeps playing: ann wins on time (CK-7).

Regenerate (only when a rules change is intended): `.venv/bin/python tests/golden/cookoff/test_ck_golden.py --write`
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from clients.bots.cookoff import judge_bot, random_bot
from engine.contract import Viewer
from engine.cookoff import GAME, RULES_VERSIONS
from engine.match import LocalMatch
from engine.transcript import Step, play_script, script_header, script_lines, simulate, write_script

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "match.txt"
EXPECTED = HERE / "expected.json"
EXPECTED_V1 = HERE / "expected-v1.json"
TIMELOSS = HERE / "timeloss.txt"
SEED = 2026
PLAYERS = ("ann", "bob")


def test_golden_transcript_replays_to_the_expected_result() -> None:
    lines = SCRIPT.read_text().splitlines()
    seed, players = script_header(lines)
    result = simulate(GAME, players, seed, lines)
    assert result == json.loads(EXPECTED.read_text())
    assert result["finished"] and {j["winner"] for j in result["judges"]} <= {*players, None}
    assert any(line.startswith("@ +") for line in lines) and "---" in lines
    # Revised CK-6: bob lets the final choice run out, so his reserve runs out there and he loses the DM.
    assert result["decision"] == "time" and result["lost_on_time"] == ["bob"] and result["winner"] == "ann"


def test_ckp4_golden_transcript_under_rules_version_1_replays_to_the_old_result() -> None:
    """CK-P4 (withdrawn, rules version 1): the same script under the old rules: bob is judged on his latest
    dish, exactly the result recorded before the revision."""
    lines = SCRIPT.read_text().splitlines()
    seed, players = script_header(lines)
    result = simulate(RULES_VERSIONS["1"], players, seed, lines)
    assert result == json.loads(EXPECTED_V1.read_text())
    assert result["decision"] == "two judges" and result["chosen"] == {"ann": 3, "bob": 6}


def test_writing_the_replayed_match_back_out_reproduces_the_script() -> None:
    lines = SCRIPT.read_text().splitlines()
    seed, players = script_header(lines)
    steps: list[Step] = []
    match = play_script(GAME, LocalMatch(GAME, GAME.default_config(players), seed), lines, steps)
    assert match.finished
    assert write_script(GAME, steps) == script_lines(lines)


def test_a_player_loses_on_reserve_time_while_the_other_keeps_playing() -> None:
    """CK-7: bob's reserve runs out through `@ +N`; the match ends at once and ann wins."""
    lines = TIMELOSS.read_text().splitlines()
    seed, players = script_header(lines)
    result = simulate(GAME, players, seed, lines)
    assert result["finished"] and result["winner"] == "ann" and result["decision"] == "time"
    assert result["lost_on_time"] == ["bob"]
    assert [(r["player"], r["rank"]) for r in result["results"]] == [("ann", 1), ("bob", 2)]


# ---------------------------------------------------------------- regeneration


def _play(seed: int) -> tuple[LocalMatch, list[Step]]:
    match = LocalMatch(GAME, GAME.default_config(PLAYERS), seed)
    rng = random.Random(seed)
    bots = {"ann": judge_bot, "bob": random_bot}
    steps: list[Step] = []
    while not match.finished:
        state = match.state
        awaiting = sorted(GAME.status(state).awaiting, key=PLAYERS.index)
        if state.phase.value == "final_choice" and "bob" in awaiting:
            for player in [p for p in awaiting if p != "bob"]:
                text = bots[player](GAME.view(state, Viewer.of(player)), player, rng)
                assert text is not None
                command = GAME.parse(match.state, player, text)
                match.submit(player, command)
                steps.append(Step(match.now, player, command))
            steps.append(Step(GAME.status(match.state).deadline or match.now, None))
            match.expire()  # bob lets the final choice run out: he loses on time (revised CK-6)
            continue
        for player in awaiting:
            due = GAME.status(match.state).deadline or match.now
            gap = rng.choice([0, 2, 5, 9, 15, 30, 48, 55, 62, 70])  # sometimes past the base time
            gap = max(0, min(gap, int(due - match.now) - 20))
            match.advance(gap)
            text = bots[player](GAME.view(match.state, Viewer.of(player)), player, rng)
            assert text is not None
            command = GAME.parse(match.state, player, text)
            match.submit(player, command)
            steps.append(Step(match.now, player, command))
    return match, steps


def _write() -> None:
    for seed in range(SEED, SEED + 200):
        _match, steps = _play(seed)
        if any(step.player is None for step in steps):
            break
    header = [
        f"# cookoff golden: seed={seed} players={','.join(PLAYERS)}",
        "# made by tests/golden/cookoff/test_ck_golden.py --write (bots: ann judge_bot, bob random_bot)",
    ]
    lines = write_script(GAME, steps)
    SCRIPT.write_text("\n".join(header + lines) + "\n")
    result = simulate(GAME, list(PLAYERS), seed, lines)
    EXPECTED.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(f"seed {seed}: {len(lines)} lines, winner {result['winner']} ({result['decision']})")


if __name__ == "__main__":
    if "--write" in sys.argv:
        _write()
