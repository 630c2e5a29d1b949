"""Moves over the Play stream (issue 27): moves/s and server CPU per move at 1, 8 and 32 clients, beside
Submit's figures (bench/submit.py) and a stream-echo ceiling (one bidirectional echo stream per client,
bench/echo.py) at the same client count.

Each client process seats duels (the fixture game, bench.serve registers it) and plays both seats of
each over two Play streams; one act is one Move sent and its MoveResult received. A duel is three rounds
of two secret picks: six moves a match, and the next match's streams open when one ends (inside the window,
so the figure includes a Play stream's opening, amortised over six moves)."""

from __future__ import annotations

import contextlib
import math
import os
import queue
import tempfile
import threading
from pathlib import Path
from typing import Any

from bench import echo
from bench.figures import Figure
from bench.procs import load_windows, median_window, percentile, start_server

MOVES_PER_MATCH = 6
DURATION = 3600  # seconds a duel round lasts: no deadline falls while the bench runs


# Play streams with PlayStart.bundle (one message per pass); BENCH_UNBUNDLED=1 measures one message each.
BUNDLE = not os.environ.get("BENCH_UNBUNDLED")


class Seats:
    """One client process's seats: Play sessions whose Turns wait in `turns` until a move answers them, and
    whose Ended says the duel is over (both seats': the next move opens the next duel)."""

    def __init__(self, client: Any, matches: int, game: str = "duel") -> None:
        self.client = client
        self.game = game
        self.match_id = ""
        self.turns: queue.Queue[tuple[Any, Any]] = queue.Queue()  # (session, Turn), or (session, None): ended
        self.results: queue.Queue[Any] = queue.Queue()
        self.waiting = [self._seat() for _ in range(matches)]
        self.sessions: list[Any] = []
        self.open = 0  # the current duel's sessions not ended yet

    def _seat(self) -> tuple[str, str, str]:
        created = self.client.create(
            self.game, ["ann", "bob"], seed=1, config={"players": ["ann", "bob"], "duration": DURATION}
        )
        return created.match_id, self.client.join(created.match_id, "ann"), self.client.join(created.match_id, "bob")

    def _open(self) -> None:
        from clients.play_stream import PlaySession

        match_id, ann, bob = self.waiting.pop() if self.waiting else self._seat()
        self.sessions = []  # the last duel's streams ended with it
        self.match_id = match_id
        self.open = 2
        for token in (ann, bob):
            session = PlaySession(self.client, match_id, token, bundle=BUNDLE)
            self.sessions.append(session)
            threading.Thread(target=self._read, args=(session,), daemon=True).start()

    def _read(self, session: Any) -> None:
        import grpc

        with contextlib.suppress(grpc.RpcError):  # cancelled by close()
            self._follow(session)

    def _follow(self, session: Any) -> None:
        for message in session:
            kind = message.WhichOneof("kind")
            if kind == "turn":
                self.turns.put((session, message.turn))
            elif kind == "result":
                self.results.put(message.result)
            elif kind == "ended":
                self.turns.put((session, None))

    def act(self) -> int:
        """One move answered: the match's version after it. A duel's next Turn may come a moment after the
        last move's result: it is waited for, and the next duel opens only once both seats' streams ended."""
        while True:
            if not self.open:
                self._open()
            session, turn = self.turns.get(timeout=60)
            if turn is not None:
                break
            if session in self.sessions:
                self.open -= 1
        session.move(turn.version, text="pick 2")
        result = self.results.get(timeout=60)
        if not result.accepted:
            raise RuntimeError(f"a bench move was refused: {result.code} {result.message}")
        return int(result.version)

    def close(self) -> None:
        for session in self.sessions:
            session.close()


def _setup(address: str, argument: Any, windows: int, duration: float) -> Any:
    from clients.client import MatchClient

    admin_token, matches = argument
    return Seats(MatchClient(address, host_credential=admin_token), matches)


def _act(seats: Any) -> None:
    seats.act()


def run(quick: bool) -> list[Figure]:
    windows, duration = echo.shape(quick)
    figures = []
    for clients in echo.CLIENT_COUNTS:
        ceiling = echo.measure_stream(clients, windows, duration).window
        expected = 0.6 * ceiling.per_second * duration * windows / clients
        matches = math.ceil(expected / MOVES_PER_MATCH) + 1
        with tempfile.TemporaryDirectory() as folder:
            server = start_server(Path(folder) / "var")
            try:
                arguments = [(server.admin_token(), min(matches, 200))] * clients
                measured = list(
                    load_windows(server.pid, server.address, _setup, _act, clients, windows, duration, arguments)
                )
            finally:
                server.stop()
        window = median_window(measured)
        figures.append(
            Figure(
                f"play: moves/s over Play, {clients} clients (SQLite)",
                window.per_second,
                "moves/s",
                ceiling=ceiling.per_second,
                ceiling_name=f"stream echo, {clients} clients",
            )
        )
        figures.append(
            Figure(
                f"play: server CPU per Play move, {clients} clients",
                window.cpu_us_per_operation,
                "µs",
                better="lower",
                ceiling=ceiling.cpu_us_per_operation,
                ceiling_name=f"stream echo, {clients} clients",
            )
        )
        figures.append(
            Figure(f"play: move p50, {clients} clients", percentile(window.latencies, 0.5) * 1000, "ms", better="lower")
        )
    return figures
