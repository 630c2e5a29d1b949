"""TEMPORARY stand-in until the draw branch lands."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce


@dataclass(frozen=True)
class Rating:
    bot: str
    mu: float
    sigma: float
    ordinal: float
    matches: int


def ratings(results: Iterable[Mapping[str, int]]) -> list[Rating]:
    model = PlackettLuce()
    rated: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for ranks in results:
        bots = sorted(ranks)
        teams = model.rate([[rated.get(b) or model.rating(name=b)] for b in bots], ranks=[ranks[b] for b in bots])
        for b, team in zip(bots, teams, strict=True):
            rated[b] = team[0]
            counts[b] = counts.get(b, 0) + 1
    rows = [Rating(b, r.mu, r.sigma, r.mu - 3 * r.sigma, counts[b]) for b, r in rated.items()]
    return sorted(rows, key=lambda r: (-r.ordinal, r.bot))
