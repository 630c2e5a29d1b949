"""TEMPORARY stand-in until the draw branch lands."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any


def match_points(ranks: Mapping[str, int]) -> dict[str, float]:
    return {
        b: sum(1.0 if r < o else 0.5 if r == o else 0.0 for c, o in ranks.items() if c != b) for b, r in ranks.items()
    }


@dataclass(frozen=True)
class Standing:
    rank: int
    bot: str
    points: float
    played: int
    wins: int
    byes: int


def standings(
    bots: Sequence[str], results: Iterable[Mapping[str, int]], byes: Mapping[str, int] | None = None
) -> list[Standing]:
    points = {b: 0.0 for b in bots}
    played = {b: 0 for b in bots}
    wins = {b: 0 for b in bots}
    for ranks in results:
        for b, p in match_points(ranks).items():
            points[b] = points.get(b, 0.0) + p
            played[b] = played.get(b, 0) + 1
            wins[b] = wins.get(b, 0) + (ranks[b] == 1)
    order = sorted(points, key=lambda b: (-points[b], b))
    out = []
    for i, b in enumerate(order):
        rank = out[-1].rank if out and out[-1].points == points[b] else i + 1
        out.append(Standing(rank, b, points[b], played[b], wins[b], (byes or {}).get(b, 0)))
    return out


def standings_json(rows: Sequence[Standing]) -> list[dict[str, Any]]:
    return [asdict(r) for r in rows]
