"""Submit throughput and server CPU beside the echo ceiling at the same client count (bench/echo.py).

The real server (`python -m bench.serve`, SQLite, TLS off, the duel fixture game registered) runs in its
own process; each client process makes its channel after the fork, creates and seats its duel matches
before the first window, then submits picks as fast as the replies come (request ids on: the client
sends one with every write). A duel is three rounds of two secret picks: six submits a match."""

from __future__ import annotations

import math
import tempfile
from collections.abc import Generator
from pathlib import Path
from typing import Any

from bench import echo
from bench.figures import Figure
from bench.procs import Window, load_windows, median_window, percentile, start_server

SUBMITS_PER_MATCH = 6
DURATION = 3600  # seconds a duel round lasts: no deadline falls while the bench runs


def _seat(client: Any) -> list[tuple[str, str, str]]:
    created = client.create("duel", ["ann", "bob"], seed=1, config={"players": ["ann", "bob"], "duration": DURATION})
    match_id = created.match_id
    ann, bob = client.join(match_id, "ann"), client.join(match_id, "bob")
    return [(match_id, token, f"pick {1 + (n % 3)}") for n in range(3) for token in (ann, bob)]


def _setup(address: str, argument: Any, windows: int, duration: float) -> Any:
    from clients.client import MatchClient

    admin_token, matches = argument
    client = MatchClient(address, host_credential=admin_token)
    pending: list[tuple[str, str, str]] = []
    for _ in range(matches):
        pending.extend(_seat(client))
    pending.reverse()  # pop() takes them in order
    client.list_matches()  # a listing brings the catalog up to date: the set-up's projection is not measured
    return client, pending


def _act(state: Any) -> None:
    client, pending = state
    if not pending:  # more submits than foreseen: seat another match (inside the window, so rarely)
        pending.extend(reversed(_seat(client)))
    match_id, token, text = pending.pop()
    client.submit(match_id, token, text=text)


def measure(clients: int, windows: int, duration: float, echo_rate: float) -> Window:
    """The median window of `clients` submitting to a fresh server (SQLite)."""
    return median_window(list(measure_windows(clients, windows, duration, echo_rate)))


def measure_windows(clients: int, windows: int, duration: float, echo_rate: float) -> Generator[Window, None, None]:
    """`measure`'s windows one at a time, the server up until the last (bench/peers.py interleaves them with
    an echo's). Each client seats its matches before the first."""
    # Enough matches for 0.6 of the echo rate (submit is slower), plus one spare per client.
    expected = 0.6 * echo_rate * duration * windows / clients
    matches = math.ceil(expected / SUBMITS_PER_MATCH) + 1
    with tempfile.TemporaryDirectory() as folder:
        server = start_server(Path(folder) / "var")
        try:
            arguments = [(server.admin_token(), matches)] * clients
            yield from load_windows(server.pid, server.address, _setup, _act, clients, windows, duration, arguments)
        finally:
            server.stop()


def run(quick: bool) -> list[Figure]:
    windows, duration = echo.shape(quick)
    figures = []
    for clients in echo.CLIENT_COUNTS:
        ceiling = echo.measure(clients, windows, duration).window
        window = measure(clients, windows, duration, ceiling.per_second)
        figures.append(
            Figure(
                f"submit: submits/s, {clients} clients (SQLite)",
                window.per_second,
                "submits/s",
                ceiling=ceiling.per_second,
                ceiling_name=f"echo, {clients} clients",
                target=0.70 if clients == 8 else None,
                hard=False,
            )
        )
        figures.append(
            Figure(
                f"submit: server CPU per submit, {clients} clients",
                window.cpu_us_per_operation,
                "µs",
                ceiling=ceiling.cpu_us_per_operation,
                ceiling_name=f"echo, {clients} clients",
                target=1.5,
                better="lower",
                hard=False,
            )
        )
        figures.append(
            Figure(
                f"submit: p50, {clients} clients",
                percentile(window.latencies, 0.5) * 1000,
                "ms",
                ceiling=percentile(ceiling.latencies, 0.5) * 1000,
                ceiling_name=f"echo p50, {clients} clients",
                better="lower",
            )
        )
    return figures


if __name__ == "__main__":
    from bench.figures import table

    print(table(run(quick=True)))
