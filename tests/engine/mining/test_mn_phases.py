"""Phases, submissions, deadlines (LG-10 for mining, MN-P1 defaults), configuration and events."""

from __future__ import annotations

import dataclasses

import pytest
from mn_helpers import ALL_ONE, SETUP_A, ctx, json_plain, new_match

from engine.errors import InvalidConfig, RuleViolation
from engine.mining import GAME
from engine.mining.config import DAY
from engine.mining.text import parse


def test_default_config_has_five_players_seven_rounds_the_fifteen_spaces_and_day_long_phases():
    conf = GAME.default_config(["A", "B", "C", "D", "E"])
    assert conf["rounds"] == 7 and len(conf["spaces"]) == 15
    assert conf["setup_seconds"] == conf["round_seconds"] == DAY == 86400
    assert conf["starting_garnets"] == 10
    assert conf["spaces"][12] == {"space": 13, "gold": 7, "red": 0, "blue": 0, "yellow": 0, "green": 0, "bonus": None}
    assert conf["spaces"][14]["bonus"] == "thief"
    assert json_plain(conf)


@pytest.mark.parametrize("count", [2, 5, 8])
def test_two_to_eight_players_are_allowed(count):
    names = [f"P{i}" for i in range(count)]
    assert GAME.players(GAME.initial_state(GAME.default_config(names), 1)) == tuple(names)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"players": ["A"]}, "2 to 8"),
        ({"players": [f"P{i}" for i in range(9)]}, "2 to 8"),
        ({"players": ["A", "A"]}, "distinct"),
        ({"rounds": 0}, "rounds"),
        ({"round_seconds": "day"}, "round_seconds"),
        ({"spaces": [{"gold": 1}] * 4}, "at least 5"),
        ({"spaces": [{"gold": 1, "bonus": "wizard"}] * 5}, "bonus"),
        ({"colour": "red"}, "unknown configuration keys"),
    ],
)
def test_invalid_config_is_refused_with_a_clear_message(override, message):
    conf = GAME.default_config(["A", "B"])
    conf.update(override)
    with pytest.raises(InvalidConfig, match=message):
        GAME.initial_state(conf, 1)


def test_a_host_may_replace_the_spaces_table():
    table = [{"space": i, "gold": 1, "red": 0, "blue": 0, "yellow": 0, "green": 0, "bonus": None} for i in range(1, 7)]
    match = new_match(("A", "B"), spaces=table, starting_garnets=0, rounds=2)
    match.expire()
    assert [p["gold"] for p in match.events[-1]["piles"]] == [2] * 6
    match.expire()
    match.expire()
    assert match.finished


def test_setup_needs_five_different_spaces_and_names_the_miners_left_out():
    """Setup: five miners on five different spaces; missing ones are named."""
    state = new_match(("A", "B")).state
    with pytest.raises(RuleViolation, match="no starting space for Prospector, Thief"):
        GAME.decide(state, "A", parse("start b 1; start c 2; start s 4", True), ctx())
    with pytest.raises(RuleViolation, match="different space"):
        GAME.decide(state, "A", parse("start b 1; start c 1; start p 3; start s 4; start t 5", True), ctx())
    with pytest.raises(RuleViolation, match="spaces are 1 to 15"):
        GAME.decide(state, "A", parse("start b 16; start c 1; start p 3; start s 4; start t 5", True), ctx())


def test_round_orders_missing_moves_are_refused_naming_the_miners_left_out():
    match = new_match(("A", "B"))
    match.expire()
    with pytest.raises(RuleViolation, match="no move for Claimer, Scout"):
        match.submit_text("A", "move b 1; move p 2; move t 3")


@pytest.mark.parametrize("order", ["move b 4", "move b 0", "move s 6", "move c -1"])
def test_a_move_outside_1_to_3_or_scout_1_to_5_is_refused(order):
    match = new_match(("A", "B"))
    match.expire()
    moves = {"b": "move b 1", "c": "move c 1", "p": "move p 1", "s": "move s 1", "t": "move t 1"}
    moves[order.split()[1]] = order
    before = (match.state, len(match.events))
    with pytest.raises(RuleViolation, match="moves 1 to"):
        match.submit_text("A", "; ".join(moves.values()))
    assert (match.state, len(match.events)) == before  # a refused command changes nothing


def test_the_scout_may_move_five():
    match = new_match(("A", "B"))
    match.expire()
    events = match.submit_text("A", "move b 3; move c 3; move p 3; move s 5; move t 3")
    assert events[0]["moves"]["s"] == 5


def test_orders_in_the_setup_phase_and_a_setup_in_a_round_are_refused():
    match = new_match(("A", "B"))
    with pytest.raises(RuleViolation, match="set-up is open"):
        match.submit_text("A", ALL_ONE)
    match.expire()
    with pytest.raises(RuleViolation, match="round 1 is open"):
        match.submit_text("A", SETUP_A)


def test_lg10_mining_phase_ends_only_when_everyone_submitted_and_asked_to_end_early():
    """LG-10 (mining): a phase ends when every player has submitted and asked to end early, or at its
    deadline."""
    match = new_match(("A", "B"))
    match.submit_text("A", SETUP_A + "; end early")
    match.submit_text("B", SETUP_A)  # submitted, but no end early: the phase stays open
    assert GAME.status(match.state).phase == "setup"
    assert GAME.status(match.state).submitted == {"A", "B"}
    events = match.submit_text("B", "end early")
    assert [e["type"] for e in events] == ["setup_submitted", "setup_resolved", "round_opened"]


def test_lg10_mining_a_submission_may_be_replaced_until_the_phase_ends_and_the_last_counts():
    """LG-10 (mining): a submission may be replaced until the phase ends; the last one counts."""
    match = new_match(("A", "B"))
    match.submit_text("A", SETUP_A)
    match.submit_text("A", "start b 11; start c 12; start p 13; start s 14; start t 15")
    match.expire()
    assert [m.space for m in match.state.player("A").miners] == [11, 12, 13, 14, 15]


def test_lg10_mining_end_early_alone_keeps_the_submission_and_needs_one():
    """LG-10: 'end early' alone asks to end the phase early with the submission already made."""
    match = new_match(("A", "B"))
    with pytest.raises(RuleViolation, match="before asking to end early"):
        match.submit_text("A", "end early")
    match.submit_text("A", SETUP_A)
    event = match.submit_text("A", "end early")[0]
    assert event["starts"] == {"b": 1, "c": 2, "p": 3, "s": 4, "t": 5} and event["end_early"]


def test_mn_p1_missed_setup_places_miners_on_random_distinct_spaces_recorded_in_the_event():
    """MN-P1: a missed set-up places the five miners on random distinct spaces drawn from ctx.rng and
    recorded in setup_resolved, so replay never draws."""
    match = new_match(("A", "B", "C"))
    match.submit_text("A", SETUP_A)
    match.expire()
    resolved = next(e for e in match.events if e["type"] == "setup_resolved")
    assert resolved["defaulted"] == ["B", "C"]
    for name in ("B", "C"):
        spaces = list(resolved["starts"][name].values())
        assert len(set(spaces)) == 5 and all(1 <= s <= 15 for s in spaces)
        assert [m.space for m in match.state.player(name).miners] == spaces
    assert any(line.startswith("MN-P1: B missed the set-up") for line in resolved["trace"])
    replayed = GAME.initial_state(GAME.default_config(["A", "B", "C"]), 3)
    for event in match.events:
        replayed = GAME.evolve(replayed, event)
    assert replayed == match.state


def test_mn_p1_missed_round_orders_move_every_miner_one_with_no_bully_and_no_upgrades():
    """MN-P1: a player who misses a round's deadline moves every miner 1 space, no bully, no upgrades."""
    match = new_match(("A", "B"))
    match.submit_text("A", SETUP_A)
    match.submit_text("B", "start b 6; start c 7; start p 8; start s 9; start t 10")
    match.expire()
    match.submit_text("A", "move b 3; move c 3; move p 3; move s 3; move t 3; bully 1")
    match.expire()
    resolved = next(e for e in match.events if e["type"] == "round_resolved")
    assert resolved["defaulted"] == ["B"]
    assert resolved["orders"]["B"] == {
        "moves": {"b": 1, "c": 1, "p": 1, "s": 1, "t": 1},
        "upgrades": [],
        "bully": False,
        "end_early": False,
    }
    assert [m.space for m in match.state.player("B").miners] == [7, 8, 9, 10, 11]
    assert any(line.startswith("MN-P1: B missed round 1") for line in resolved["trace"])


def test_a_phase_deadline_is_the_opening_time_plus_the_configured_duration():
    match = new_match(("A", "B"), setup_seconds=60, round_seconds=30)
    assert GAME.status(match.state).deadline == 60
    match.advance(61)
    assert GAME.status(match.state).deadline == 60 + 30
    assert GAME.status(match.state).phase == "round 1 of 7"


def test_a_full_match_to_the_end_has_json_plain_events_and_replays_to_the_same_state():
    """Events are JSON-plain; evolve over the stored events rebuilds the same state."""
    match = new_match(seed=11)
    while not match.finished:
        match.expire()
    assert all(json_plain(e) and isinstance(e["type"], str) for e in match.events)
    assert [e["type"] for e in match.events][-2:] == ["round_resolved", "match_finished"]
    replayed = GAME.initial_state(GAME.default_config(["A", "B", "C", "D", "E"]), 11)
    for event in match.events:
        replayed = GAME.evolve(replayed, event)
    assert dataclasses.replace(replayed, last_resolution=None) == dataclasses.replace(match.state, last_resolution=None)
    assert GAME.status(match.state).finished
    with pytest.raises(RuleViolation):
        match.submit_text("A", ALL_ONE)


def test_results_give_gold_crystals_garnets_tokens_rank_and_elimination_candidates():
    """Transcripts: the result JSON names each player's gold, crystals, garnets, tokens of life, rank,
    and the elimination candidate(s)."""
    match = new_match(seed=5)
    before = GAME.results(match.state)
    assert all(row["rank"] is None for row in before["results"])
    while not match.finished:
        match.expire()
    out = GAME.results(match.state)
    assert json_plain(out)
    row = out["results"][0]
    assert set(row) >= {"player", "rank", "score", "gold", "crystals", "garnets", "tokens_of_life"}
    assert row["rank"] == 1 and row["score"] == row["gold"]
    assert out["elimination_candidates"] and all(
        r["elimination_candidate"] == (r["player"] in out["elimination_candidates"]) for r in out["results"]
    )
