"""TEMPORARY stand-in until the draw branch lands."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any


def round_robin(bots: Sequence[str], games_per_pair: int, seed: int) -> list[dict[str, Any]]:
    order = list(bots)
    random.Random(seed).shuffle(order)
    if len(order) % 2:
        order.append("")
    n = len(order)
    rounds = []
    for k in range(games_per_pair):
        ring = list(order)
        for r in range(n - 1):
            tables, byes = [], []
            for i in range(n // 2):
                a, b = ring[i], ring[n - 1 - i]
                if not a or not b:
                    byes.append(a or b)
                    continue
                tables.append([a, b] if (k + r) % 2 == 0 else [b, a])
            rounds.append({"round": len(rounds) + 1, "tables": tables, "byes": byes})
            ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def rotation(bots: Sequence[str], rounds: int, table_size: int, seed: int) -> list[dict[str, Any]]:
    order = list(bots)
    random.Random(seed).shuffle(order)
    out = []
    for r in range(rounds):
        ring = order[r % len(order) :] + order[: r % len(order)]
        count = len(ring) // table_size
        tables = [ring[i * table_size : (i + 1) * table_size] for i in range(count)]
        out.append({"round": r + 1, "tables": tables, "byes": ring[count * table_size :]})
    return out


def plan_matches(plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for round_ in plan:
        for t, seats in enumerate(round_["tables"], start=1):
            out.append({"index": len(out), "round": round_["round"], "table": t, "seats": list(seats)})
    return out
