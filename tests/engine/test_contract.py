"""The shared decider machinery: seeded draws, generic checks, the command codec, transcripts."""

from __future__ import annotations

import pytest

from engine import codec
from engine.contract import Viewer
from engine.errors import AlreadySubmitted, MalformedCommand, NotYourTurn, RuleViolation
from engine.match import LocalMatch, is_due
from engine.rng import rng_for
from engine.transcript import ScriptError, Step, simulate, write_script
from tests.support.duel import GAME, Pick

CONFIG = {"players": ["ann", "bob"], "duration": 60}


def test_the_same_seed_and_version_draw_the_same_values() -> None:
    assert [rng_for(5, 3).random() for _ in range(2)] == [rng_for(5, 3).random() for _ in range(2)]
    assert rng_for(5, 3).random() != rng_for(5, 4).random()
    assert rng_for(5, 3).random() != rng_for(6, 3).random()


def test_commands_round_trip_through_json() -> None:
    assert codec.from_json(GAME.command_types, codec.to_json(Pick(2))) == Pick(2)
    with pytest.raises(MalformedCommand):
        codec.from_json(GAME.command_types, {"type": "Nope"})


def test_generic_checks_refuse_strangers_repeats_and_finished_matches() -> None:
    match = LocalMatch(GAME, CONFIG, seed=1)
    with pytest.raises(NotYourTurn, match="not a player"):
        match.submit("eve", Pick(1))
    match.submit("ann", Pick(1))
    with pytest.raises(AlreadySubmitted, match="binding"):
        match.submit("ann", Pick(2))
    with pytest.raises(RuleViolation, match="DUEL-1"):
        match.submit("bob", Pick(7))
    for _ in range(3):
        match.expire()
    assert match.finished
    with pytest.raises(NotYourTurn, match="over"):
        match.submit("bob", Pick(1))


def test_a_timeout_applies_at_the_deadline_with_recorded_random_defaults() -> None:
    first = LocalMatch(GAME, CONFIG, seed=9)
    second = LocalMatch(GAME, CONFIG, seed=9)
    assert not is_due(GAME, first.state, 59.0) and is_due(GAME, first.state, 60.0)
    assert first.advance(61) == second.advance(61)
    defaulted = [event for event in first.events if event["type"] == "Defaulted"]
    assert len(defaulted) == 2 and all(1 <= event["number"] <= 3 for event in defaulted)
    assert first.now == 61


def test_a_transcript_plays_and_writes_back_the_same_lines() -> None:
    lines = ["# duel", "ann: pick 3", "bob: pick 1", "ann: pick 2", "---", "@ +5", "bob: pick 3", "ann: pick 3"]
    result = simulate(GAME, ["ann", "bob"], 4, lines)
    assert result["finished"] is True
    scores = {row["player"]: row["score"] for row in result["results"]}
    assert scores["ann"] >= 2 and scores["bob"] >= 1  # ann won round 1; round 3 was a tie (both score)
    steps = [Step(0, "ann", Pick(3)), Step(0, "bob", Pick(1)), Step(60, None), Step(65, "bob", Pick(3))]
    assert write_script(GAME, steps) == ["ann: pick 3", "bob: pick 1", "---", "@ +5", "bob: pick 3"]


def test_a_bad_script_line_names_its_number() -> None:
    with pytest.raises(ScriptError, match="line 2"):
        simulate(GAME, ["ann", "bob"], 4, ["ann: pick 1", "bob: pick ten"])


def test_views_hide_a_sealed_pick_from_the_other_player_and_spectators() -> None:
    match = LocalMatch(GAME, CONFIG, seed=1)
    match.submit("ann", Pick(3))
    assert GAME.view(match.state, Viewer.of("ann"))["my_picks"] == {"ann": 3}
    assert GAME.view(match.state, Viewer.of("bob"))["my_picks"] == {}
    assert GAME.view(match.state, Viewer.spectator())["my_picks"] == {}
