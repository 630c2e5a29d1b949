"""Bot ratings: finished matches folded through openskill's Plackett-Luce model."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating


@dataclass(frozen=True)
class Rating:
    bot: str
    mu: float
    sigma: float
    ordinal: float  # mu - 3 * sigma: the conservative estimate a leaderboard sorts by
    matches: int


def ratings(results: Iterable[Mapping[str, int]]) -> list[Rating]:
    """Ratings of every bot seen in `results` (each a finished match, bot -> rank, ties share a rank).

    Sorted by ordinal descending, then bot name. To recompute it with openskill directly:

        model = PlackettLuce()  # its defaults
        current = {}  # bot -> rating, model.rating() the first time a bot is seen
        for ranks in results:  # in the order given
            bots = list(ranks)  # the mapping's own order
            teams = [[current[bot] if bot in current else model.rating()] for bot in bots]  # each bot a team of one
            rated = model.rate(teams, ranks=[ranks[bot] for bot in bots])
            for bot, [rating] in zip(bots, rated):
                current[bot] = rating
        # then mu, sigma = current[bot].mu, current[bot].sigma; ordinal = mu - 3 * sigma

    The order of bots within one match changes nothing beyond float rounding (openskill sorts by rank).
    A match of fewer than two bots is a ValueError (there is nothing to rate).
    """
    current: dict[str, Rating] = {}
    for step in rating_steps(results):
        current.update(step)
    return sorted(current.values(), key=lambda rating: (-rating.ordinal, rating.bot))


def rating_steps(results: Iterable[Mapping[str, int]]) -> Iterator[dict[str, Rating]]:
    """After each match of `results` in turn, the ratings of its bots (what `ratings` folds): a bot's
    rating over time. A match of fewer than two bots is a ValueError."""
    model = PlackettLuce()
    current: dict[str, PlackettLuceRating] = {}
    matches: dict[str, int] = {}
    for ranks in results:
        bots = list(ranks)
        if len(bots) < 2:
            raise ValueError(f"a rated match needs at least 2 bots, got {len(bots)}")
        teams = [[current[bot] if bot in current else model.rating()] for bot in bots]
        rated = model.rate(teams, ranks=[ranks[bot] for bot in bots])
        for bot, [rating] in zip(bots, rated, strict=True):
            current[bot] = rating
            matches[bot] = matches.get(bot, 0) + 1
        yield {
            bot: Rating(
                bot, current[bot].mu, current[bot].sigma, current[bot].mu - 3 * current[bot].sigma, matches[bot]
            )
            for bot in bots
        }
