"""Ratings: the same numbers a caller gets from openskill directly, in leaderboard order."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest
from openskill.models import PlackettLuce

from server.arena.ratings import ratings


def direct(results: list[Mapping[str, int]]) -> dict[str, Any]:
    """The recomputation ratings' docstring describes, written out independently."""
    model = PlackettLuce()
    current: dict[str, Any] = {}
    for ranks in results:
        bots = list(ranks)
        teams = [[current[bot] if bot in current else model.rating()] for bot in bots]
        for bot, [rating] in zip(bots, model.rate(teams, ranks=[ranks[bot] for bot in bots]), strict=True):
            current[bot] = rating
    return current


def random_results(seed: int) -> list[Mapping[str, int]]:
    rng = random.Random(seed)
    bots = [f"bot{index}" for index in range(7)]
    results: list[Mapping[str, int]] = []
    for _ in range(30):
        seated = rng.sample(bots, rng.randint(2, 6))
        results.append({bot: rng.randint(1, len(seated)) for bot in seated})  # ties included
    return results


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ratings_match_openskill_computed_directly(seed: int) -> None:
    results = random_results(seed)
    expected = direct(results)
    rows = ratings(results)
    assert sorted(row.bot for row in rows) == sorted(expected)
    for row in rows:
        assert row.mu == pytest.approx(expected[row.bot].mu)
        assert row.sigma == pytest.approx(expected[row.bot].sigma)
        assert row.ordinal == pytest.approx(expected[row.bot].mu - 3 * expected[row.bot].sigma)
        assert row.matches == sum(row.bot in ranks for ranks in results)


def test_ratings_sorted_by_ordinal_then_name() -> None:
    rows = ratings([{"ann": 1, "bob": 2}, {"ann": 1, "cat": 2}, {"bob": 1, "cat": 2}, {"dan": 1, "eve": 1}])
    assert [row.bot for row in rows] == ["ann", "bob", "dan", "eve", "cat"]
    assert [row.ordinal for row in rows] == sorted((row.ordinal for row in rows), reverse=True)
    assert rows[2].ordinal == rows[3].ordinal  # dan and eve drew: the name decides


def test_a_three_way_tie_shares_the_rank() -> None:
    rows = ratings([{"ann": 1, "bob": 1, "cat": 1, "dan": 4}])
    by_bot = {row.bot: row for row in rows}
    assert by_bot["ann"].mu == pytest.approx(by_bot["bob"].mu) == pytest.approx(by_bot["cat"].mu)
    assert by_bot["ann"].mu > 25 > by_bot["dan"].mu
    assert [row.bot for row in rows] == ["ann", "bob", "cat", "dan"]


def test_team_order_within_a_match_does_not_matter() -> None:
    forward = ratings([{"ann": 1, "bob": 2, "cat": 2}])
    backward = ratings([{"cat": 2, "bob": 2, "ann": 1}])
    for one, other in zip(forward, backward, strict=True):
        assert (one.bot, one.mu, one.sigma) == (other.bot, pytest.approx(other.mu), pytest.approx(other.sigma))


def test_unseen_bots_are_not_listed_and_lone_bots_refused() -> None:
    assert ratings([]) == []
    with pytest.raises(ValueError, match="at least 2 bots"):
        ratings([{"ann": 1}])
