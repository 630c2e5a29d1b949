"""Tournament draws: who sits at which table, in which seat, in every round.

A plan is JSON-plain: a list of rounds `{"round": r, "tables": [[bot, ...], ...], "byes": [bot, ...]}`, r from 1,
each table listing bot names in seat order (seat 1 first). A draw is a pure function of its arguments: its only
randomness is `random.Random(seed)`, and nothing iterates over a set without sorting it first.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from itertools import combinations, product
from typing import Any

Round = dict[str, Any]
# A cycle of rounds as (tables, byes), each table a mutable list of bots.
Cycle = list[tuple[list[list[str]], list[str]]]

# Seeded candidates tried per rotation round, and whole cycles per rotation cycle: the one whose pairs have
# met least evenly is kept (a round's best can corner the cycle's last rounds; another cycle may not).
MATCHING_ATTEMPTS = 16
CYCLE_ATTEMPTS = 8
CYCLE_ATTEMPT_ROUNDS = 96  # fewer whole-cycle attempts for many bots: a cycle of 40 rounds is drawn twice


def round_robin(bots: Sequence[str], games_per_pair: int, seed: int) -> list[Round]:
    """Tables of 2 (Cookoff) where every pair meets exactly `games_per_pair` times.

    The circle method over a seeded shuffle of the bots gives one cycle (a bye per round when the count is
    odd); the cycle is repeated `games_per_pair` times with every table's seats swapped in odd repeats, so
    a pair's games alternate who sits first. Seats in the first cycle are chosen greedily (the bot with
    fewer first seats so far takes seat 1, seeded coin on a tie), then evened out exactly: over the plan
    each bot's seat-1 and seat-2 counts differ by at most 1.
    """
    names = _checked_bots(bots)
    if games_per_pair < 1:
        raise ValueError(f"games per pair must be at least 1, got {games_per_pair}")
    rng = random.Random(seed)
    cycle = _circle_cycle(names, rng)
    _orient_greedily(cycle, rng)
    _even_out_first_seats(cycle, names)
    plan: list[Round] = []
    for repeat in range(games_per_pair):
        for tables, byes in cycle:
            seated = [list(table) if repeat % 2 == 0 else table[::-1] for table in tables]
            plan.append({"round": len(plan) + 1, "tables": seated, "byes": list(byes)})
    return plan


def rotation(bots: Sequence[str], rounds: int, table_size: int, seed: int) -> list[Round]:
    """Tables of exactly `table_size` (Last Gathering, mining); the bots left over sit out the round.

    Rounds come in cycles of n = len(bots) (a last cycle is drawn whole and cut short). Think of a round as
    n slots, one per (table, seat position) and one per bye: within a cycle each bot takes a bye
    `byes per round` times and each seat position `tables` times. A cycle is drawn in two steps, each of
    which always succeeds:

    1. Who sits out and who sits together, round by round: the byes go to the bots with the fewest so far
       (those below the level of the fewest-but-one sit out, the rest come from that level), and of
       `MATCHING_ATTEMPTS` seeded candidates the one adding least to the sum over pairs of squared meeting
       counts is kept (the first found on a tie).
    2. Seat positions, for the whole cycle: split each bot's games in the cycle, in round order, into runs
       of `table_size`. Tables and runs then form a bipartite graph that is `table_size`-regular (a table
       seats that many bots, a run holds that many games), so by Konig's theorem it splits into
       `table_size` perfect matchings, found one after another with Kuhn's augmenting paths over seeded
       orders; matching p gives seat position p. Every table gets each position once, every run each
       position once: a bot's count of one position never differs from another's by more than 1, and
       all are equal at the end of a cycle.

    Matching bots to slots round by round within the remaining quotas, as first planned, can reach a round
    where the bots due a bye leave no fair seating (e.g. 11 bots at tables of 6, or 15 at tables of 8).
    """
    names = _checked_bots(bots)
    if not 2 <= table_size <= len(names):
        raise ValueError(f"table size must be between 2 and the number of bots ({len(names)}), got {table_size}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    rng = random.Random(seed)
    tables = len(names) // table_size
    byes_per_round = len(names) - tables * table_size
    meetings = dict.fromkeys(combinations(sorted(names), 2), 0)
    bye_counts = dict.fromkeys(names, 0)
    plan: list[Round] = []
    while len(plan) < rounds:
        best: tuple[int, Cycle, dict[tuple[str, str], int], dict[str, int]] | None = None
        for _ in range(max(1, min(CYCLE_ATTEMPTS, CYCLE_ATTEMPT_ROUNDS // len(names)))):
            cycle_meetings, cycle_byes = dict(meetings), dict(bye_counts)
            cycle = [
                _draw_round(names, tables, table_size, byes_per_round, cycle_byes, cycle_meetings, rng) for _ in names
            ]
            spread = sum(count * count for count in cycle_meetings.values())
            if best is None or spread < best[0]:
                best = (spread, cycle, cycle_meetings, cycle_byes)
        assert best is not None
        _, cycle, meetings, bye_counts = best
        _assign_seat_positions(cycle, names, table_size, rng)
        for seated, byes in cycle[: rounds - len(plan)]:
            plan.append({"round": len(plan) + 1, "tables": seated, "byes": byes})
    return plan


def plan_matches(plan: list[Round]) -> list[dict[str, Any]]:
    """The plan's tables flattened in order: `{"index": i (from 0), "round": r, "table": t (from 1), "seats"}`."""
    matches: list[dict[str, Any]] = []
    for round_ in plan:
        for table_number, seats in enumerate(round_["tables"], start=1):
            matches.append(
                {"index": len(matches), "round": round_["round"], "table": table_number, "seats": list(seats)}
            )
    return matches


def _checked_bots(bots: Sequence[str]) -> list[str]:
    names = list(bots)
    if len(names) < 2:
        raise ValueError(f"a tournament needs at least 2 bots, got {len(names)}")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"bot names must be unique; listed more than once: {', '.join(repeated)}")
    return names


# round_robin's helpers.


def _circle_cycle(names: list[str], rng: random.Random) -> Cycle:
    order: list[str | None] = list(names)
    rng.shuffle(order)
    if len(order) % 2:
        order.append(None)  # whoever meets None sits the round out
    size = len(order)
    cycle: Cycle = []
    for shift in range(size - 1):
        ring = order[1:]
        arrangement = [order[0], *ring[shift:], *ring[:shift]]
        tables: list[list[str]] = []
        byes: list[str] = []
        for index in range(size // 2):
            first, second = arrangement[index], arrangement[size - 1 - index]
            if first is not None and second is not None:
                tables.append([first, second])
            else:
                byes.extend(bot for bot in (first, second) if bot is not None)
        cycle.append((tables, byes))
    return cycle


def _orient_greedily(cycle: Cycle, rng: random.Random) -> None:
    lead: dict[str, int] = {}  # seat-1 games minus seat-2 games so far
    for tables, _ in cycle:
        for table in tables:
            first, second = table
            lead_first, lead_second = lead.get(first, 0), lead.get(second, 0)
            if lead_first > lead_second or (lead_first == lead_second and rng.random() < 0.5):
                table.reverse()
            lead[table[0]] = lead.get(table[0], 0) + 1
            lead[table[1]] = lead.get(table[1], 0) - 1


def _even_out_first_seats(cycle: Cycle, names: list[str]) -> None:
    """Swap seats along paths until every bot's seat-1 and seat-2 counts in the cycle differ by at most 1.

    A bot u leading by 2 or more reaches, through tables where the earlier bot sat first, some bot v that
    trails (the set reachable from u has no table leading out, so its leads sum to at most 0); swapping
    every table on that path takes 2 from u's lead and gives 2 to v's, and the sum of squared leads falls.
    A bot trailing by 2 or more is the mirror image. The greedy draw rarely leaves anything to do.
    """
    tables = [table for round_tables, _ in cycle for table in round_tables]
    while True:
        lead = dict.fromkeys(names, 0)
        for first, second in tables:
            lead[first] += 1
            lead[second] -= 1
        ahead = max(names, key=lambda bot: lead[bot])
        behind = min(names, key=lambda bot: lead[bot])
        if lead[ahead] >= 2:
            path = _seat_path(tables, ahead, {bot for bot in names if lead[bot] < 0}, forward=True)
        elif lead[behind] <= -2:
            path = _seat_path(tables, behind, {bot for bot in names if lead[bot] > 0}, forward=False)
        else:
            return
        for table in path:
            table.reverse()


def _seat_path(tables: list[list[str]], start: str, goals: set[str], *, forward: bool) -> list[list[str]]:
    """Tables on a shortest path from start along seat 1 -> seat 2 (or back, if not forward) to one of goals."""
    came_by: dict[str, list[str] | None] = {start: None}
    queue = deque([start])
    while queue:
        bot = queue.popleft()
        if bot in goals:
            path: list[list[str]] = []
            while (table := came_by[bot]) is not None:
                path.append(table)
                bot = table[0] if forward else table[1]
            return path
        for table in tables:
            here, there = (table[0], table[1]) if forward else (table[1], table[0])
            if here == bot and there not in came_by:
                came_by[there] = table
                queue.append(there)
    raise AssertionError("a leading bot always reaches a trailing one")  # see _even_out_first_seats


# rotation's helpers.


def _draw_round(
    names: list[str],
    tables: int,
    table_size: int,
    byes_per_round: int,
    bye_counts: dict[str, int],
    meetings: dict[tuple[str, str], int],
    rng: random.Random,
) -> tuple[list[list[str]], list[str]]:
    """One round's tables (seat order still arbitrary) and byes; counts the meetings and byes it adds.

    The best of the seeded candidates is then improved by swapping two bots (of two tables, or a table
    and the byes when both may sit out) while that lowers the cost: the swaps find what sampling misses.
    """
    may_sit_out: set[str] = set()
    due: list[str] = []
    if byes_per_round:
        level = sorted(bye_counts.values())[byes_per_round - 1]
        due = [bot for bot in names if bye_counts[bot] < level]
        may_sit_out = {bot for bot in names if bye_counts[bot] == level}
    level_bots = [bot for bot in names if bot in may_sit_out]
    best: list[list[str]] = []
    best_cost = 0
    for _ in range(MATCHING_ATTEMPTS):
        on_bye = set(due + rng.sample(level_bots, byes_per_round - len(due)))
        players = [bot for bot in names if bot not in on_bye]
        rng.shuffle(players)
        groups = [players[table * table_size : (table + 1) * table_size] for table in range(tables)]
        candidate = [*groups, sorted(on_bye, key=names.index)]  # the byes ride along as a last group
        cost = sum(_table_cost(group, meetings) for group in groups)
        if not best or cost < best_cost:
            best, best_cost = candidate, cost
    _improve_by_swaps(best, may_sit_out, meetings)
    seated, byes = best[:tables], best[tables]
    for table in seated:
        for pair in combinations(sorted(table), 2):
            meetings[pair] += 1
    for bot in byes:
        bye_counts[bot] += 1
    return seated, sorted(byes, key=names.index)  # byes in the caller's order


def _table_cost(table: list[str], meetings: dict[tuple[str, str], int]) -> int:
    """What seating the table adds to the sum over pairs of squared meeting counts."""
    return sum(2 * meetings[pair] + 1 for pair in combinations(sorted(table), 2))


def _improve_by_swaps(groups: list[list[str]], may_sit_out: set[str], meetings: dict[tuple[str, str], int]) -> None:
    """Swap bots between groups (the last one is the byes) while a swap lowers the cost; in place."""
    byes_group = len(groups) - 1
    met: dict[str, dict[str, int]] = {bot: {} for group in groups for bot in group}
    for (one, other), count in meetings.items():
        if one in met and other in met:
            met[one][other] = met[other][one] = count

    def gain(group: int, leaving: str, joining: str) -> int:
        """How much the group's cost falls when `joining` takes `leaving`'s place (half of it: enough to compare)."""
        if group == byes_group:
            return 0
        leaving_met, joining_met = met[leaving], met[joining]
        return sum(leaving_met[bot] - joining_met[bot] for bot in groups[group] if bot != leaving)

    improved = True
    while improved:
        improved = False
        for first, second in combinations(range(len(groups)), 2):
            for i, j in product(range(len(groups[first])), range(len(groups[second]))):
                one, other = groups[first][i], groups[second][j]
                if second == byes_group and (one not in may_sit_out or other not in may_sit_out):
                    continue  # the byes' level rule: only bots at the level may trade a bye
                if gain(first, one, other) + gain(second, other, one) > 0:
                    groups[first][i], groups[second][j] = other, one
                    improved = True


def _assign_seat_positions(cycle: Cycle, names: list[str], table_size: int, rng: random.Random) -> None:
    """Reorder every table of a whole cycle into seat order (see rotation's step 2)."""
    table_list = [table for seated, _ in cycle for table in seated]
    games = dict.fromkeys(names, 0)
    runs: list[list[tuple[str, int]]] = []  # per table, the (bot, run) of each of its bots
    for table in table_list:
        runs.append([(bot, games[bot] // table_size) for bot in table])
        for bot in table:
            games[bot] += 1
    unseated = [set(table_runs) for table_runs in runs]
    seat_order: list[list[str]] = [[] for _ in table_list]
    for _ in range(table_size):
        for table_index, (bot, run) in enumerate(_perfect_matching(unseated, rng)):
            unseated[table_index].discard((bot, run))
            seat_order[table_index].append(bot)
    for table, ordered in zip(table_list, seat_order, strict=True):
        table[:] = ordered


def _perfect_matching(options: list[set[tuple[str, int]]], rng: random.Random) -> list[tuple[str, int]]:
    """One option per table, no option twice: Kuhn's augmenting paths over seeded orders.

    Each path is searched breadth first rather than by recursion: a long cycle has thousands of tables.
    """
    table_order = list(range(len(options)))
    rng.shuffle(table_order)
    choices = [rng.sample(sorted(table_options), len(table_options)) for table_options in options]
    holder: dict[tuple[str, int], int] = {}  # option -> the table it is matched to
    chosen: dict[int, tuple[str, int]] = {}  # table -> its option

    def augment(start: int) -> bool:
        reached_from: dict[tuple[str, int], int] = {}  # option -> the table whose search reached it
        queue = deque([start])
        visited = {start}
        while queue:
            table_index = queue.popleft()
            for option in choices[table_index]:
                if option in reached_from:
                    continue
                reached_from[option] = table_index
                owner = holder.get(option)
                if owner is None:  # free: shift every option along the path back to start
                    while True:
                        table_index = reached_from[option]
                        previous = chosen.get(table_index)
                        holder[option], chosen[table_index] = table_index, option
                        if table_index == start or previous is None:
                            return True
                        option = previous
                if owner not in visited:
                    visited.add(owner)
                    queue.append(owner)
        return False

    for table_index in table_order:
        if not augment(table_index):
            raise AssertionError("a regular bipartite graph has a perfect matching")  # see rotation's step 2
    return [chosen[table_index] for table_index in range(len(options))]
