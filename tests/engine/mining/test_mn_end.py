"""MN-5: the end of the match (conversion, Tokens of Life, Elimination Candidates, garnets earned)."""

from __future__ import annotations

import pytest

from engine.mining import rules
from engine.mining.state import Player


def _p(name: str, gold: int, crystals: tuple[int, int, int, int] = (0, 0, 0, 0)) -> Player:
    return Player(name, gold, crystals, 10)


def test_mn5_sets_of_one_crystal_of_each_colour_convert_to_gold_until_no_longer_possible():
    """MN-5 and Scoring: each set of one crystal of every colour makes 1 gold."""
    players, _, trace = rules.finish((_p("A", 5, (3, 2, 4, 7)), _p("B", 1)))
    assert (players[0].gold, players[0].crystals) == (7, (1, 0, 2, 5))
    assert "MN-5: A converts 2 sets of one crystal of each colour into 2 gold" in trace


def test_mn5_single_most_gold_gets_two_tokens_of_life():
    """MN-5: most gold: 2 Tokens of Life."""
    _, outcome, _ = rules.finish((_p("A", 9), _p("B", 5), _p("C", 5)))
    assert outcome["tokens"] == {"A": 2, "B": 0, "C": 0}


def test_mn5_two_tied_for_most_gold_get_one_token_each():
    """MN-5 and Clarification: two tied for first: 1 Token of Life each."""
    _, outcome, _ = rules.finish((_p("A", 9), _p("B", 9), _p("C", 5)))
    assert outcome["tokens"] == {"A": 1, "B": 1, "C": 0}


def test_mn5_three_or_more_tied_for_most_gold_get_no_tokens():
    """MN-5 and Clarification: only two can tie for first; three or more: no ToLs."""
    _, outcome, trace = rules.finish((_p("A", 9), _p("B", 9), _p("C", 9), _p("D", 1)))
    assert outcome["tokens"] == {"A": 0, "B": 0, "C": 0, "D": 0}
    assert any("no Tokens of Life" in line for line in trace)


def test_mn5_least_gold_is_the_elimination_candidate_and_ties_name_everyone_tied():
    """MN-5: least gold is the Elimination Candidate; ties: every tied player is named, the host settles."""
    _, outcome, _ = rules.finish((_p("A", 9), _p("B", 2), _p("C", 4)))
    assert outcome["candidates"] == ["B"]
    _, outcome, trace = rules.finish((_p("A", 9), _p("B", 2), _p("C", 2)))
    assert outcome["candidates"] == ["B", "C"]
    assert any("the host settles it" in line for line in trace)


@pytest.mark.parametrize(("gold", "earned"), [(-3, 0), (39, 0), (40, 1), (79, 1), (80, 2), (125, 3)])
def test_mn5_garnets_earned_are_floor_gold_over_40_and_none_below_40(gold, earned):
    """MN-5: a garnet for every 40 gold; none below 40 (negative gold earns none)."""
    players, outcome, _ = rules.finish((_p("A", gold), _p("B", 0)))
    assert outcome["garnets_earned"]["A"] == earned
    assert players[0].garnets == 10 + earned


def test_mn5_conversion_happens_before_tokens_are_given():
    """MN-5: gold counted for Tokens of Life includes the converted sets."""
    _, outcome, _ = rules.finish((_p("A", 9, (1, 1, 1, 1)), _p("B", 10)))
    assert outcome["tokens"] == {"A": 1, "B": 1}
