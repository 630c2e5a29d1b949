"""The real matchserver program with the duel fixture games registered (duel, and duel-endless: bench/fanout.py's
duel without an end), for benchmarks that run the server in its own process:
`python -m bench.serve --address 127.0.0.1:0 --var DIR` (the same flags as matchserver).

Two variables of the bench only: BENCH_SPECTATORS=1 lifts the per-address spectator cap (the bench's watchers
stand for as many machines, but share one address), and BENCH_PROFILE=FILE runs the server under cProfile and
writes its stats to FILE when the server stops (SIGTERM): `python -m pstats FILE`.
"""

from __future__ import annotations

import cProfile
import dataclasses
import os
import sys

from engine import registry
from engine.fixtures import duel
from server import main as program
from server.app import Settings
from server.streams import StreamLimits


def main(argv: list[str]) -> None:
    from bench.fanout import EndlessDuel

    registry.register(duel.GAME)  # type: ignore[arg-type]  # a fixture game: a tuple of one command type
    registry.register(EndlessDuel())  # type: ignore[arg-type]
    if os.environ.get("BENCH_SPECTATORS"):
        parse = program.parse_args

        def parse_args(args: list[str] | None) -> Settings:
            return dataclasses.replace(parse(args), streams=StreamLimits(max_per_peer=100_000))

        program.parse_args = parse_args  # type: ignore[assignment]
    profile = os.environ.get("BENCH_PROFILE")
    if not profile:
        program.main(argv)
        return
    profiler = cProfile.Profile()
    try:
        profiler.runcall(program.main, argv)
    finally:
        profiler.dump_stats(profile)


if __name__ == "__main__":
    main(sys.argv[1:])
