"""Where a Play move's server CPU goes: the server (`python -m bench.serve`) under cProfile while CLIENTS
client processes play moves over Play streams (bench/peer_client.py's moves role), then the top functions.

    python -m bench.profile_play [--clients 8] [--seconds 10] [--rounds 0] [--out var/play.prof]

cProfile sees the event loop's thread only (the store's writer thread runs SQLite outside it), and it slows
what it measures about twofold: read the shares, not the absolute times. Each thread's CPU per move (user
and system, from /proc/<pid>/task) follows the total: the event loop's, the store's writer (its system time
is mostly the commit's fsync), gRPC's own. `--rounds 3` opens a new duel every
six moves; 0 (the default) plays one endless duel per client."""

from __future__ import annotations

import argparse
import os
import pstats
import tempfile
from pathlib import Path

from bench.peer_procs import Served, ask_all, close_all
from bench.procs import cpu_seconds, start_server, thread_cpu

Threads = dict[tuple[int, str], tuple[float, float]]


def _spent(before: Threads, after: Threads) -> list[tuple[tuple[int, str], tuple[float, float]]]:
    """What each thread spent between the two readings, the busiest first."""
    spent = {}
    for key, (user, system) in after.items():
        was = before.get(key, (0.0, 0.0))
        spent[key] = (user - was[0], system - was[1])
    return sorted(spent.items(), key=lambda item: -sum(item[1]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("var/play.prof"))
    parser.add_argument("--no-profile", action="store_true", help="just the CPU per move, unprofiled")
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if not args.no_profile:
        os.environ["BENCH_PROFILE"] = str(args.out.resolve())
    with tempfile.TemporaryDirectory() as folder:
        child = start_server(Path(folder) / "var")
        os.environ.pop("BENCH_PROFILE", None)
        server = Served("ours", child.pid, child.address, child.admin_token(), child=child)
        clients = [server.client("moves", str(args.rounds)) for _ in range(args.clients)]
        try:
            for client in clients:
                client.read(180)
            cpu, before = cpu_seconds(server.pid), thread_cpu(server.pid)
            moves = sum(answer["ops"] for answer in ask_all(clients, {"go": args.seconds}))
            cpu, threads = cpu_seconds(server.pid) - cpu, _spent(before, thread_cpu(server.pid))
        finally:
            close_all(clients)
            server.stop()
    print(f"{moves} moves, server CPU per move {cpu / moves * 1e6:.0f} µs ({'un' if args.no_profile else ''}profiled)")
    for (tid, name), (user, system) in threads[:6]:  # the busiest first
        what = "the event loop" if tid == server.pid else name
        per_move, in_kernel = (user + system) / moves * 1e6, system / moves * 1e6
        print(f"  thread {tid} ({what}): {per_move:.0f} µs per move, {in_kernel:.0f} of it in the kernel")
    if not args.no_profile:
        stats = pstats.Stats(str(args.out))
        stats.sort_stats("tottime").print_stats(30)
        stats.sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
