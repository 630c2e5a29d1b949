"""Memory of a live match, and StateAt at any version of a long one (`python -m bench.memory [--quick]`).

Every match is a real bot match of the game (bench/bot_records.py), logged as the server logs it.
Memory: tracemalloc around LiveMatch.from_records over the records as the store returns them (decoded
from JSON), against the stored JSON (the sum of json.dumps of each record): the issue's goal is ≤ 2×.
StateAt: LiveMatch.state_at at random versions of a ~20k-record mining match (mining games are made long
with more rounds), p50 and max: goal ≤ 2 ms.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import time
import tracemalloc
import uuid
from collections.abc import Mapping
from typing import Any

from bench.bot_records import bot_match_records
from bench.figures import Figure, table
from server.live import LiveMatch

# The longest matches the games allow (last-gathering and cookoff: their default rounds are their maximum
# with the default tables); mining takes any number of rounds.
LONG: dict[str, Mapping[str, Any]] = {"last-gathering": {"rounds": 15}, "cookoff": {}, "mining": {"rounds": 50}}
MINING_ROUNDS_FOR_20K = 3400  # ~23.8k records
MINING_ROUNDS_QUICK = 300  # ~2.1k records


def stored_json(game: str, overrides: Mapping[str, Any], seed: int = 1) -> list[str]:
    """A bot match's records as the store keeps them (one JSON text per record)."""
    return [json.dumps(record) for record in bot_match_records(game, seed, overrides)]


def held_bytes(texts: list[str]) -> tuple[int, LiveMatch]:
    """Bytes a live match built from `texts` holds once built (tracemalloc), and the match."""
    LiveMatch.from_records(uuid.uuid4(), (json.loads(text) for text in texts))  # warm the game's caches
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        live = LiveMatch.from_records(uuid.uuid4(), (json.loads(text) for text in texts))
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    return held, live


def memory_figure(game: str, texts: list[str]) -> Figure:
    held, live = held_bytes(texts)
    size = sum(len(text) for text in texts)
    return Figure(
        f"memory per live match, {game} ({len(texts)} records)",
        held / 1e3,
        "kB",
        ceiling=size / 1e3,
        ceiling_name="its stored JSON",
        target=2.0,
        better="lower",
        note=f"approx_bytes() / measured = {live.approx_bytes() / held:.2f}",
    )


def state_at_figures(texts: list[str], samples: int) -> list[Figure]:
    """StateAt at random versions (p50) and at the worst ones (each just before a kept state: the longest
    folds), wall clock with the collector on, as a caller sees it; and the worst fold's CPU time with the
    collector paused, what the fold itself costs (a full collection of the process's heap can land in any call)."""
    gc.collect()
    untracked = len(gc.get_objects())
    live = LiveMatch.from_records(uuid.uuid4(), (json.loads(text) for text in texts))
    tracked = len(gc.get_objects()) - untracked
    started = time.perf_counter()
    gc.collect()
    collection = (time.perf_counter() - started) * 1000
    rng = random.Random(12)
    randoms = [rng.randint(0, live.version) for _ in range(samples)]
    worst = [version - 1 for version in live.kept_versions()[1:]]
    walls: dict[int, float] = {}
    folds: list[float] = []
    for version in randoms + worst:
        live.settle()  # each ask folds from a kept state, as a first ask does
        started = time.perf_counter()
        live.state_at(version)
        walls[version] = (time.perf_counter() - started) * 1000
    gc.disable()
    try:
        for version in worst:
            live.settle()
            started = time.thread_time()
            live.state_at(version)
            folds.append((time.thread_time() - started) * 1000)
    finally:
        gc.enable()
    kept = f"a state kept every {live.snapshot_every} versions or {live.snapshot_bytes // 1024} KiB of records"
    name = f"StateAt, {live.version}-record mining match"
    at_random = sorted(walls[version] for version in randoms)
    at_worst = sorted(walls[version] for version in worst)
    p99_worst = at_worst[int(len(at_worst) * 0.99)]
    return [
        Figure(
            f"{name}, p50",
            statistics.median(at_random),
            "ms",
            target=2.0,
            better="lower",
            note=f"{samples} random versions; {kept}",
        ),
        Figure(
            f"{name}, max",
            max(at_random[-1], at_worst[-1]),
            "ms",
            target=2.0,
            better="lower",
            note=(
                f"random and worst versions ({len(worst)}), wall clock; p99 of the worst {p99_worst:.2f} ms; "
                f"a full collection ({tracked} objects tracked for the match, {collection:.0f} ms) can land in any call"
            ),
        ),
        Figure(
            f"{name}, worst fold CPU",
            max(folds),
            "ms",
            target=2.0,
            better="lower",
            note=f"thread CPU, collector paused; median of the worst versions {statistics.median(folds):.2f} ms",
        ),
    ]


def run(quick: bool) -> list[Figure]:
    figures = [memory_figure(game, stored_json(game, overrides)) for game, overrides in LONG.items()]
    long_mining = stored_json("mining", {"rounds": MINING_ROUNDS_QUICK if quick else MINING_ROUNDS_FOR_20K})
    if not quick:
        figures.append(memory_figure("mining", long_mining))
    figures += state_at_figures(long_mining, 200 if quick else 1000)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(table(run(args.quick)))


if __name__ == "__main__":
    main()
