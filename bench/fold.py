"""Engine fold speed: events/s of `game.evolve` over whole bot matches, beside a trivial fold floor.

For each game, the example bots play a few matches in process (engine.match.LocalMatch, no server),
repeated until there are enough events; then every match is folded from its initial state through `game.evolve`,
best of several runs. The floor is the same number of events folded over a small frozen dataclass with
one `dataclasses.replace` per event, measured in the same run: what a fold costs with no rules at all.
Times are CPU seconds of this process (best of several runs), so a loaded machine does not count.

The hard target (issue 12) is on the value, ≥ 100,000 events/s per game, so the floor is reported as
its own figure (no target) and each game's note gives its share of the floor.

`python -m bench.fold [--quick]`
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from bench.figures import Figure, table
from engine import registry
from engine.contract import Event, Game, Viewer
from engine.match import LocalMatch

TARGET = 100_000
GAMES = tuple(registry.shipped())


@dataclass(frozen=True)
class PlayedMatch:
    initial: Any
    events: list[Event]


@dataclass(frozen=True, slots=True)
class _FloorState:
    version: int = 0
    last: str = ""
    total: int = 0


def play_bot_match(game_name: str, seed: int) -> PlayedMatch:
    """One whole match of the example bots (the same loop as bench.run's bot thinking)."""
    from clients.bots import bot_names, get_bot

    game = registry.get_game(game_name)
    players = registry.seats(game_name)
    bots = {p: get_bot(game_name, bot_names(game_name)[i % 2]) for i, p in enumerate(players)}
    config = game.default_config(players)
    match = LocalMatch(game, config, seed=seed)
    rng = random.Random(seed)
    while not match.finished:
        acted = False
        for player in sorted(game.status(match.state).awaiting):
            text = bots[player](game.view(match.state, Viewer.of(player)), player, rng)
            if text is not None and not match.finished:
                match.submit_text(player, text)
                acted = True
        if not acted and not match.finished:
            match.expire()
    return PlayedMatch(game.initial_state(config, seed), list(match.events))


def play_matches(game_name: str, seeds: int, min_events: int) -> list[PlayedMatch]:
    """Bot matches with seeds 1..`seeds`, repeated until they hold at least `min_events` events between
    them (a bot match is short: ~60-340 events; playing is far slower than folding)."""
    played = [play_bot_match(game_name, seed) for seed in range(1, seeds + 1)]
    matches: list[PlayedMatch] = []
    while sum(len(m.events) for m in matches) < min_events:
        matches.extend(played)
    return matches


def best_seconds(work: Callable[[], object], runs: int) -> float:
    """CPU seconds of the best of `runs`. The fold is one thread, so its CPU time is its cost: other
    processes loading both cores (other benchmarks, other builds) stretch the wall time, not this."""
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def fold_matches(game: Game[Any, Any], matches: list[PlayedMatch]) -> None:
    evolve = game.evolve
    for match in matches:
        state = match.initial
        for event in match.events:
            state = evolve(state, event)


def floor_fold(events: list[Event]) -> _FloorState:
    state = _FloorState()
    for event in events:
        state = replace(state, version=state.version + 1, last=event["type"], total=state.total + len(event))
    return state


def measure(game_name: str, matches: list[PlayedMatch], runs: int) -> tuple[float, float]:
    """(events/s of the game's fold, events/s of the floor over the same events)."""
    game = registry.get_game(game_name)
    events = [event for match in matches for event in match.events]
    fold_s = best_seconds(lambda: fold_matches(game, matches), runs)
    floor_s = best_seconds(lambda: floor_fold(events), runs)
    return len(events) / fold_s, len(events) / floor_s


def run(quick: bool) -> list[Figure]:
    seeds, min_events, runs = (3, 5_000, 5) if quick else (10, 20_000, 9)
    figures: list[Figure] = []
    floors: list[float] = []
    for game_name in GAMES:
        matches = play_matches(game_name, seeds, min_events)
        count = sum(len(m.events) for m in matches)
        rate, floor = measure(game_name, matches, runs)
        floors.append(floor)
        figures.append(
            Figure(
                f"fold {game_name}, events/s",
                rate,
                "events/s",
                target=TARGET,
                hard=True,
                note=(
                    f"{count} events: {seeds} bot matches repeated, best of {runs} folds; "
                    f"dataclasses.replace fold floor {floor:,.0f} events/s (ratio {rate / floor:.2f})"
                ),
            )
        )
    figures.append(
        Figure(
            "dataclasses.replace fold floor, events/s",
            max(floors),
            "events/s",
            note="one dataclasses.replace per event over a small frozen state; the ceiling of the folds above",
        )
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    figures = run(args.quick)
    print(table(figures))
    for figure in figures:
        if figure.note:
            print(f"  {figure.name}: {figure.note}")


if __name__ == "__main__":
    main()
