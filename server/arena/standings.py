"""Tournament standings from finished matches: points for every bot beaten or tied, then a ranking."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Standing:
    rank: int
    bot: str
    points: float
    played: int
    wins: int  # matches the bot finished first in, shared firsts included
    byes: int


def match_points(ranks: Mapping[str, int]) -> dict[str, float]:
    """Points from one finished match (bot -> rank, 1 best, ties share a rank).

    A bot scores 1 per bot it beat (a strictly worse rank) and 0.5 per bot it tied with, so with two players
    a win is 1, a draw 0.5 each and a loss 0; every match hands out one point per pair of bots.
    """
    return {
        bot: sum(1.0 if other_rank > rank else 0.5 if other_rank == rank else 0.0 for other_rank in _others(ranks, bot))
        for bot, rank in ranks.items()
    }


def standings(
    bots: Sequence[str], results: Iterable[Mapping[str, int]], byes: Mapping[str, int] | None = None
) -> list[Standing]:
    """Every listed bot (played 0 if it has no result), by points descending then name.

    Ranking is competition style: equal points share a rank and the next rank skips (1, 1, 3). A bye is only
    counted (`byes`), it scores nothing. A result naming a bot not in `bots` is a ValueError.
    """
    points = dict.fromkeys(bots, 0.0)
    played = dict.fromkeys(bots, 0)
    wins = dict.fromkeys(bots, 0)
    for ranks in results:
        strangers = sorted(bot for bot in ranks if bot not in points)
        if strangers:
            raise ValueError(f"a result names bots that are not in the tournament: {', '.join(strangers)}")
        for bot, scored in match_points(ranks).items():
            points[bot] += scored
            played[bot] += 1
            wins[bot] += int(ranks[bot] == 1)
    order = sorted(points, key=lambda bot: (-points[bot], bot))
    rows: list[Standing] = []
    for position, bot in enumerate(order, start=1):
        shares_rank = bool(rows) and rows[-1].points == points[bot]
        rank = rows[-1].rank if shares_rank else position
        rows.append(Standing(rank, bot, points[bot], played[bot], wins[bot], (byes or {}).get(bot, 0)))
    return rows


def standings_json(rows: Iterable[Standing]) -> list[dict[str, Any]]:
    """JSON-plain dicts with the Standing's field names as keys."""
    return [asdict(row) for row in rows]


def _others(ranks: Mapping[str, int], bot: str) -> list[int]:
    return [rank for other, rank in ranks.items() if other != bot]
