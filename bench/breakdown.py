"""Where a Submit's server CPU goes: the application layer alone (Matches.submit called in process, no
gRPC), on the in-memory store and on SQLite, beside the whole submit over gRPC (bench/submit.py) and
an echo (bench/echo.py). `python -m bench.breakdown --profile` prints cProfile's top functions too.

Eight submits are in flight at a time, as with eight clients; the duel fixture game, whose rules cost
almost nothing, so this measures the platform.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import tempfile
import time

from bench.figures import Figure, table
from engine import registry
from engine.fixtures import duel
from server.app import Settings, start_server

IN_FLIGHT = 8


async def _measure(store: str, matches: int, profile: bool) -> tuple[float, str]:
    """(CPU µs per submit in this process, both threads, the profile's top lines or "")."""
    registry.register(duel.GAME)  # type: ignore[arg-type]  # a fixture game: a tuple of one command type
    with tempfile.TemporaryDirectory() as folder:
        running = await start_server(Settings(address="127.0.0.1:0", var_dir=folder, store=store))
        m = running.matches
        admin = m.admin_token
        seats = []
        for _ in range(matches):
            created = await m.commands.create("duel", ["ann", "bob"], 1, '{"duration": 3600}', admin, False, None)
            seats += [(created.live.id, (await m.seats.join(created.live.id, p, admin)).secret) for p in ("ann", "bob")]
        profiler = cProfile.Profile() if profile else None
        submits = 0
        began = time.process_time()
        if profiler is not None:
            profiler.enable()
        for _round in range(3):
            calls = [m.commands.submit(match_id, token, "", "pick 2", None, None, None) for match_id, token in seats]
            for start in range(0, len(calls), IN_FLIGHT):
                await asyncio.gather(*calls[start : start + IN_FLIGHT])
                submits += len(calls[start : start + IN_FLIGHT])
        if profiler is not None:
            profiler.disable()
        cpu = time.process_time() - began
        await running.stop()
    top = ""
    if profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(60)
        top = out.getvalue()
    return cpu / submits * 1e6, top


def run(quick: bool, profile: bool = False) -> list[Figure]:
    matches = 50 if quick else 300
    figures = []
    for label, store in (("in-memory store", "memory"), ("SQLite", "")):
        cpu, top = asyncio.run(_measure(store, matches, profile))
        if top:
            print(f"--- {label}\n{top}")
        figures.append(
            Figure(
                f"breakdown: application CPU per submit, no gRPC, {label}",
                cpu,
                "µs",
                better="lower",
                note="Matches.submit in process, 8 in flight; CPU of both threads (loop and store writer)",
            )
        )
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    print(table(run(args.quick, args.profile)))
