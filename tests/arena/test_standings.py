"""Match points and standings: what a tournament's table shows."""

from __future__ import annotations

import json

import pytest

from server.arena.standings import Standing, match_points, standings, standings_json


def test_two_player_points_are_win_draw_loss() -> None:
    assert match_points({"ann": 1, "bob": 2}) == {"ann": 1.0, "bob": 0.0}
    assert match_points({"ann": 1, "bob": 1}) == {"ann": 0.5, "bob": 0.5}


def test_multiplayer_points_count_bots_beaten_and_tied() -> None:
    points = match_points({"ann": 2, "bob": 1, "cat": 2, "dan": 4})
    assert points == {"bob": 3.0, "ann": 1.5, "cat": 1.5, "dan": 0.0}
    assert sum(points.values()) == 6  # one point per pair of bots


def test_standings_rank_by_points_then_name_sharing_ranks() -> None:
    # A cycle of wins, then a three-way draw (a shared first is a win for each).
    results = [{"cat": 1, "ann": 2}, {"bob": 1, "cat": 2}, {"ann": 1, "bob": 2}, {"ann": 1, "bob": 1, "cat": 1}]
    rows = standings(["dan", "cat", "bob", "ann"], results, byes={"dan": 2, "ann": 1})
    assert rows == [
        Standing(rank=1, bot="ann", points=2.0, played=3, wins=2, byes=1),
        Standing(rank=1, bot="bob", points=2.0, played=3, wins=2, byes=0),
        Standing(rank=1, bot="cat", points=2.0, played=3, wins=2, byes=0),
        Standing(rank=4, bot="dan", points=0.0, played=0, wins=0, byes=2),
    ]


def test_competition_ranking_skips_after_a_tie() -> None:
    results = [{"ann": 1, "bob": 2}, {"cat": 1, "dan": 2}, {"ann": 1, "dan": 2}]
    assert [(row.rank, row.bot) for row in standings(["dan", "cat", "bob", "ann"], results)] == [
        (1, "ann"),
        (2, "cat"),
        (3, "bob"),
        (3, "dan"),
    ]


def test_a_result_for_an_unknown_bot_is_refused() -> None:
    with pytest.raises(ValueError, match="not in the tournament: eve"):
        standings(["ann", "bob"], [{"ann": 1, "eve": 2}])


def test_standings_are_json_plain_with_the_fields_names() -> None:
    rows = standings(["ann", "bob", "cat"], [{"ann": 1, "bob": 2, "cat": 2}], byes={"cat": 1})
    plain = json.loads(json.dumps(standings_json(rows)))
    assert plain[0] == {"rank": 1, "bot": "ann", "points": 2.0, "played": 1, "wins": 1, "byes": 0}
