"""What a seat's page costs the server per update as a match grows: the seat view (SeatViews.seat: the
state, the turn, the clock, the seat's own submissions, the disputes) on an endless duel of N moves, in
process, in-memory store. A seat's page asks for it on every update and every keep-alive.

    python -m bench.seat_view [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time

from bench.fanout import EndlessDuel
from bench.figures import Figure, table
from engine import registry
from server.app import Settings, start_server

VIEWS = 20  # views timed at each length


async def _measure(rounds: tuple[int, ...]) -> dict[int, tuple[int, float]]:
    """rounds played -> (records in the log, CPU ms per seat view)."""
    registry.register(EndlessDuel())  # type: ignore[arg-type]  # a fixture game: a tuple of one command type
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        running = await start_server(Settings(address="127.0.0.1:0", var_dir=folder, store="memory"))
        try:
            m = running.matches
            created = await m.commands.create("duel-endless", ["ann", "bob"], 1, "{}", m.admin_token, False, None)
            match_id = created.live.id
            tokens = {p: (await m.seats.join(match_id, p, m.admin_token)).secret for p in ("ann", "bob")}
            played = 0
            for target in rounds:
                while played < target:
                    for seat in ("ann", "bob"):
                        await m.commands.submit(match_id, tokens[seat], "", f"pick {1 + played % 3}", None, None, None)
                    played += 1
                began = time.process_time()
                for _ in range(VIEWS):
                    await m.seat_views.seat(match_id, tokens["ann"])
                spent = (time.process_time() - began) / VIEWS * 1e3
                out[target] = ((await m.repository.load(match_id)).version, spent)
        finally:
            await running.stop()
    return out


def run(quick: bool) -> list[Figure]:
    rounds = (100, 1000) if quick else (100, 1000, 4000)
    measured = asyncio.run(_measure(rounds))
    return [
        Figure(
            f"seat view CPU per update, {records} records",
            spent,
            "ms",
            better="lower",
            note=f"endless duel, {played} rounds: one submission of the seat's per round",
        )
        for played, (records, spent) in measured.items()
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    print(table(run(parser.parse_args().quick)))
