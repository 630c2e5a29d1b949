"""The tournament draws: every property the server and the players rely on, over many sizes and seeds."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from itertools import combinations
from typing import Any

import pytest

from server.arena.draw import plan_matches, rotation, round_robin

Plan = list[dict[str, Any]]


def names(count: int) -> list[str]:
    return [f"bot{index}" for index in range(count)]


def pairs_met(plan: Plan, bots: list[str]) -> Counter[tuple[str, str]]:
    met: Counter[tuple[str, str]] = Counter(dict.fromkeys(combinations(sorted(bots), 2), 0))
    for round_ in plan:
        for table in round_["tables"]:
            met.update(combinations(sorted(table), 2))
    return met


def assert_everyone_once_per_round(plan: Plan, bots: list[str]) -> None:
    for number, round_ in enumerate(plan, start=1):
        assert round_["round"] == number
        seen = [bot for table in round_["tables"] for bot in table] + round_["byes"]
        assert sorted(seen) == sorted(bots), round_


def assert_byes_even_after_every_round(plan: Plan, bots: list[str]) -> None:
    byes = Counter(dict.fromkeys(bots, 0))
    for round_ in plan:
        byes.update(round_["byes"])
        assert max(byes.values()) - min(byes.values()) <= 1, round_


# round_robin (Cookoff)

ROUND_ROBIN_CASES = [(count, games, seed) for count in range(2, 10) for games in (1, 2, 3) for seed in (0, 1, 2)]


@pytest.mark.parametrize(("count", "games", "seed"), ROUND_ROBIN_CASES)
def test_round_robin_meets_every_pair_alternating_seats(count: int, games: int, seed: int) -> None:
    bots = names(count)
    plan = round_robin(bots, games, seed)
    assert len(plan) == games * (count if count % 2 else count - 1)
    assert_everyone_once_per_round(plan, bots)
    assert_byes_even_after_every_round(plan, bots)
    seatings: dict[tuple[str, str], list[str]] = {}  # pair -> who sat first in each of its games
    first_seats, second_seats = Counter[str](), Counter[str]()
    for round_ in plan:
        assert all(len(table) == 2 for table in round_["tables"])
        assert len(round_["byes"]) == count % 2
        for first, second in round_["tables"]:
            pair = (first, second) if first < second else (second, first)
            seatings.setdefault(pair, []).append(first)
            first_seats[first] += 1
            second_seats[second] += 1
    assert sorted(seatings) == list(combinations(sorted(bots), 2))
    for firsts in seatings.values():
        assert len(firsts) == games
        assert all(firsts[index] != firsts[index + 1] for index in range(games - 1)), firsts
    for bot in bots:
        assert abs(first_seats[bot] - second_seats[bot]) <= 1, (bot, first_seats, second_seats)


def test_round_robin_is_deterministic_and_seeded() -> None:
    for count in range(4, 10):
        assert round_robin(names(count), 2, 7) == round_robin(names(count), 2, 7)
        assert round_robin(names(count), 2, 7) != round_robin(names(count), 2, 8)


# rotation (Last Gathering, mining)

SIZES = [(count, table_size) for count in range(3, 9) for table_size in range(2, count + 1)]


@cache
def two_cycles(count: int, table_size: int) -> Plan:
    return rotation(names(count), 2 * count, table_size, seed=count * 10 + table_size)


@pytest.mark.parametrize(("count", "table_size"), SIZES)
def test_rotation_seats_everyone_at_full_tables(count: int, table_size: int) -> None:
    bots = names(count)
    plan = two_cycles(count, table_size)
    assert len(plan) == 2 * count
    assert_everyone_once_per_round(plan, bots)
    for round_ in plan:
        assert len(round_["tables"]) == count // table_size
        assert all(len(table) == table_size for table in round_["tables"])
        assert len(round_["byes"]) == count % table_size


@pytest.mark.parametrize(("count", "table_size"), SIZES)
def test_rotation_byes_go_to_the_fewest(count: int, table_size: int) -> None:
    assert_byes_even_after_every_round(two_cycles(count, table_size), names(count))


def assert_seat_positions_fair(plan: Plan, bots: list[str], table_size: int) -> None:
    """Spread <= 1 after every round (one table or many), all equal at every cycle's end."""
    counts = {bot: [0] * table_size for bot in bots}
    for number, round_ in enumerate(plan, start=1):
        for table in round_["tables"]:
            for position, bot in enumerate(table):
                counts[bot][position] += 1
        for bot in bots:
            assert max(counts[bot]) - min(counts[bot]) <= 1, (number, bot, counts[bot])
            if number % len(bots) == 0:
                assert len(set(counts[bot])) == 1, (number, bot, counts[bot])


@pytest.mark.parametrize(("count", "table_size"), SIZES)
def test_rotation_seat_positions_even_out(count: int, table_size: int) -> None:
    assert_seat_positions_fair(two_cycles(count, table_size), names(count), table_size)


def naive_spread(bots: list[str], rounds: int, table_size: int, seed: int) -> int:
    """Pair-meeting spread of a draw that just shuffles the bots each round."""
    rng = random.Random(seed)
    plan: Plan = []
    for _ in range(rounds):
        order = rng.sample(bots, len(bots))
        plan.append(
            {
                "tables": [order[start : start + table_size] for start in range(0, len(bots), table_size)][
                    : len(bots) // table_size
                ]
            }
        )
    met = pairs_met(plan, bots)
    return max(met.values()) - min(met.values())


@pytest.mark.parametrize(("count", "table_size"), SIZES)
def test_rotation_pairs_meet_evenly(count: int, table_size: int) -> None:
    bots = names(count)
    met = pairs_met(two_cycles(count, table_size), bots)
    spread = max(met.values()) - min(met.values())
    naive = [naive_spread(bots, 2 * count, table_size, seed) for seed in range(20)]
    assert spread <= 2, met
    assert spread <= sum(naive) / len(naive)


def test_rotation_sizes_where_round_by_round_quotas_get_stuck() -> None:
    """11 bots at tables of 6, 15 at 8: many byes per round, one table; a last cycle cut short."""
    for count, table_size in ((11, 6), (15, 8), (10, 4)):
        bots = names(count)
        plan = rotation(bots, count + 3, table_size, seed=0)
        assert len(plan) == count + 3
        assert_everyone_once_per_round(plan, bots)
        assert_byes_even_after_every_round(plan, bots)
        assert_seat_positions_fair(plan, bots, table_size)


def test_rotation_is_deterministic_and_seeded() -> None:
    for count in range(4, 9):
        for table_size in range(2, count + 1):
            first = rotation(names(count), 3, table_size, seed=1)
            assert first == rotation(names(count), 3, table_size, seed=1)
            assert first != rotation(names(count), 3, table_size, seed=2), (count, table_size)


# plan_matches and validation


def test_plan_matches_flattens_tables_in_order() -> None:
    plan = rotation(names(7), 3, 3, seed=4)
    matches = plan_matches(plan)
    assert [match["index"] for match in matches] == list(range(6))
    assert [(match["round"], match["table"]) for match in matches] == [(r, t) for r in (1, 2, 3) for t in (1, 2)]
    assert [match["seats"] for match in matches] == [table for round_ in plan for table in round_["tables"]]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: round_robin(["solo"], 1, 0), "at least 2 bots"),
        (lambda: round_robin(["a", "b", "a"], 1, 0), "listed more than once: a"),
        (lambda: round_robin(["a", "b"], 0, 0), "games per pair"),
        (lambda: rotation(["a"], 2, 2, 0), "at least 2 bots"),
        (lambda: rotation(["a", "b", "b"], 2, 2, 0), "listed more than once: b"),
        (lambda: rotation(["a", "b", "c"], 2, 4, 0), "table size"),
        (lambda: rotation(["a", "b", "c"], 2, 1, 0), "table size"),
        (lambda: rotation(["a", "b", "c"], 0, 2, 0), "rounds"),
    ],
)
def test_bad_arguments_are_explained(call: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
