"""`make bench-peers`: our server beside boardgame.io 0.50.2 (its in-memory storage and its FlatFile storage)
and Colyseus 0.16, playing the same two-seat game (the duel fixture, engine/fixtures/duel.py; its JS twins in
bench/peers/), measured in the same run, interleaved (each window runs every server in turn, the order
rotating), each client its own process (Node for the peers, Python for ours: bench/peer_client.py), server
CPU read from /proc/<pid>/stat around each window. `python -m bench.peers [--quick]`.

- moves: moves/s and server CPU per move at 1/8/32 clients, each client playing both seats of its duels
  (ours over two Play streams, SQLite, request ids on), in one long match and with a new match every six
  moves (each duel's creation, seating and connections inside the window);
- fan-out: one mover at 20 Hz, 1/50/200 spectators of its match (split over four processes, each spectator
  its own connection): delivery p50/p99 (the mover's clock before the move -> the spectator's on receipt of
  that move) and server CPU per move per watcher;
- ours only: the unary Submit's server CPU beside an echo's (bench/submit.py, bench/echo.py, 8 clients; their
  windows interleaved, the order rotating), and CreateMatch p99 while 8 clients play.

Beside the peers runs a floor: our protocol over grpc.aio with no application (bench/bare_server.py), driven
by our own client processes in the same windows. Its column says what grpc.aio and protobuf alone cost here
(ours beyond it is our application's), and after the table each target's row prints the floor's own ratio
to boardgame.io's in-memory server: a target the floor misses is out of reach of any grpc.aio server of
this protocol on the machine that measured it. In the moves figures a second floor runs too, the durable
one (`bare_server.py --durable`, "grpc.aio + SQLite commits, no application"): the same, with each move's
rows committed to SQLite as ours commits them before anyone hears of it. A Play target it misses is out of
reach of any server of this protocol on grpc.aio that keeps every acknowledged move in SQLite, before a
single rule runs.

Each of our figures is written beside each peer's (its ceiling) as a ratio, into var/bench.json (merged by
name, bench/figures.py's format), and printed."""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from bench.figures import Figure
from bench.peer_procs import DURABLE_FLOOR, FLOORS, PEERS, Client, Served, ask_all, close_all, npm_ready, serve
from bench.procs import Window, cpu_seconds, median_window, percentile

CLIENT_COUNTS = (1, 8, 32)
WATCHERS = (1, 50, 200)
WATCHER_PROCESSES = 4  # the spectators of one server, split over this many processes
RATE = 20.0  # the fan-out mover's moves a second
MODES = {0: "one long match", 3: "a new match every 6 moves"}
JSON = Path(__file__).resolve().parent.parent / "var" / "bench.json"
Measured = dict[str, dict[str, float]]  # quantity -> server -> value
OUR_PROTOCOL = ("ours", *FLOORS)  # the servers whose clients are ours: a failure of theirs ends the run
T = TypeVar("T")


@contextmanager
def servers(folder: Path) -> Iterator[list[Served]]:
    started: list[Served] = []
    try:
        for name in PEERS:
            started.append(serve(name, folder))
        yield started
    finally:
        for server in started:
            server.stop()


def _once_more(server: Served, run: Callable[[], T], restart: Callable[[], None]) -> T:
    """`run()` (a window of `server`), and if a peer's client dies or goes quiet in it, `restart()` (its clients
    started again) and `run()` once more, said on the console: boardgame.io once left a client 30 s without
    an update, and that ended a 16-minute run. A failure of ours or of a floor ends the run: ours to see."""
    try:
        return run()
    except (RuntimeError, TimeoutError) as exc:
        if server.name in OUR_PROTOCOL:
            raise
        print(f"{PEERS[server.name][0]}: {exc}; its clients are started again and the window run once more", flush=True)
        restart()
        return run()


def _moves_window(server: Served, fleets: dict[str, list[Client]], seconds: float) -> tuple[list[Any], float, float]:
    return _window(server, fleets[server.name], {"go": seconds})  # the fleet as it is now: restarted or not


def _window(server: Served, clients: list[Client], command: dict[str, Any]) -> tuple[list[Any], float, float]:
    cpu, began = cpu_seconds(server.pid), time.perf_counter()
    answers = ask_all(clients, command)
    return answers, time.perf_counter() - began, cpu_seconds(server.pid) - cpu


def moves(running: list[Served], clients: int, rounds: int, windows: int, seconds: float, out: Measured) -> None:
    """Moves/s and CPU per move of each server (the median window), and ours' CreateMatch p99 at 8 clients."""
    fleets: dict[str, list[Client]] = {}
    for server in running:
        fleets[server.name] = [server.client("moves", str(rounds)) for _ in range(clients)]
    creator = running[0].client("create") if clients == 8 and rounds == 3 else None

    def restart(server: Served) -> None:
        close_all(fleets[server.name])
        fleets[server.name] = [server.client("moves", str(rounds)) for _ in range(clients)]
        for client in fleets[server.name]:
            client.read(180)

    try:
        for fleet in fleets.values():
            for client in fleet:
                client.read(180)
        if creator is not None:
            creator.read()
        seen: dict[str, list[tuple[float, float, float]]] = {server.name: [] for server in running}
        creates: list[float] = []
        for window in range(windows):
            for server in running[window % len(running) :] + running[: window % len(running)]:
                if creator is not None and server.name == "ours":
                    creator.send({"go": seconds, "rate": 20})
                answers, wall, cpu = _once_more(
                    server, partial(_moves_window, server, fleets, seconds), partial(restart, server)
                )
                if creator is not None and server.name == "ours":
                    creates += creator.read()["lat"]
                operations = sum(answer["ops"] for answer in answers)
                p50 = statistics.median(x for answer in answers for x in answer["lat"]) * 1000
                seen[server.name].append((operations / wall, cpu / operations * 1e6, p50))
        mode = "long" if rounds == 0 else "new every 6"
        for name, got in seen.items():
            rate, cpu, p50 = sorted(got)[len(got) // 2]
            out.setdefault(f"moves/s, {clients} clients, {mode}", {})[name] = rate
            out.setdefault(f"server CPU per move, {clients} clients, {mode}", {})[name] = cpu
            out.setdefault(f"move p50, {clients} clients, {mode}", {})[name] = p50
        if creates:
            creates.sort()
            out.setdefault("CreateMatch p99 while 8 clients play", {})["ours"] = percentile(creates, 0.99) * 1000
            out.setdefault("CreateMatch p50 while 8 clients play", {})["ours"] = percentile(creates, 0.5) * 1000
    finally:
        close_all([client for fleet in fleets.values() for client in fleet] + ([creator] if creator else []))


def fanout(running: list[Served], watchers: int, windows: int, seconds: float, out: Measured) -> None:
    """Delivery p50/p99 and server CPU per move per watcher of each server, `watchers` spectators (not the
    durable floor: a commit per move is not a watcher's cost)."""
    running = [server for server in running if server.name != DURABLE_FLOOR]
    movers: dict[str, Client] = {}
    crowds: dict[str, list[Client]] = {}

    def start(server: Served) -> None:
        """The server's mover (it creates the match) and its spectators, each process ready."""
        mover = movers[server.name] = server.client("submit")
        match = mover.read(60)["match"]
        split = [watchers // WATCHER_PROCESSES + (i < watchers % WATCHER_PROCESSES) for i in range(WATCHER_PROCESSES)]
        crowds[server.name] = [server.client("watch", match, str(n)) for n in split if n]
        for client in crowds[server.name]:
            client.read(180)

    def restart(server: Served) -> None:
        close_all([movers.pop(server.name), *crowds.pop(server.name, [])])
        start(server)

    def window(server: Served) -> tuple[float, float, float]:
        """(delivery p99, p50, server CPU per move per watcher) of one window."""
        cpu = cpu_seconds(server.pid)
        mover = movers[server.name]
        mover.send({"go": seconds, "rate": RATE})
        sent = {int(key): at for key, at in mover.read()["sent"]}
        answers = ask_all(crowds[server.name], {"until": max(sent)})
        cpu = cpu_seconds(server.pid) - cpu
        delays = []
        for answer in answers:
            for receipts in answer["receipts"]:
                first: dict[int, float] = {}
                for key, at in receipts:
                    first.setdefault(int(key), at)
                delays += [first[key] - sent[key] for key in sent if key in first]
        delays.sort()
        per_watcher = cpu / (len(sent) * watchers) * 1e6
        return percentile(delays, 0.99) * 1000, percentile(delays, 0.5) * 1000, per_watcher

    try:
        for server in running:
            start(server)
        seen: dict[str, list[tuple[float, float, float]]] = {server.name: [] for server in running}
        for turn in range(windows):
            for server in running[turn % len(running) :] + running[: turn % len(running)]:
                seen[server.name].append(_once_more(server, partial(window, server), partial(restart, server)))
        for name, got in seen.items():
            p99, p50, per_watcher = sorted(got)[len(got) // 2]
            out.setdefault(f"fan-out delivery p50, {watchers} watchers", {})[name] = p50
            out.setdefault(f"fan-out delivery p99, {watchers} watchers", {})[name] = p99
            out.setdefault(f"fan-out server CPU per move per watcher, {watchers} watchers", {})[name] = per_watcher
    finally:
        close_all(list(movers.values()) + [client for crowd in crowds.values() for client in crowd])


def unary(windows: int, seconds: float, out: Measured) -> None:
    """Ours only: a unary Submit's server CPU beside an echo's, 8 clients (bench/submit.py, bench/echo.py), in
    interleaved windows as every other figure (the order rotating); each the median window of its own."""
    from bench import echo, submit

    echoes = echo.unary_windows(8, windows, seconds)
    with closing(echoes):
        measured: dict[str, list[Window]] = {"echo": [next(echoes)]}  # its rate sizes the Submit's matches
        submits = submit.measure_windows(8, windows, seconds, measured["echo"][0].per_second)
        with closing(submits):
            measured["ours"] = [next(submits)]
            for window in range(1, windows):
                turns = [("ours", submits), ("echo", echoes)] if window % 2 else [("echo", echoes), ("ours", submits)]
                for name, source in turns:
                    measured[name].append(next(source))
        # closing: each load's clients (done with their windows) are joined and its server stopped
    for name, got in measured.items():
        out.setdefault("Submit server CPU, 8 clients (unary)", {})[name] = median_window(got).cpu_us_per_operation


def figures(out: Measured) -> list[Figure]:
    """Each of our figures beside each other server's, as a ratio (ours / theirs)."""
    made = []
    for quantity, values in out.items():
        higher = quantity.startswith("moves/s")
        unit = "moves/s" if higher else "ms" if " p50" in quantity or " p99" in quantity else "µs"
        for name, value in values.items():
            if name == "ours" or "ours" not in values:
                continue
            target = _target(quantity, name)
            made.append(
                Figure(
                    f"peers: {quantity}, ours vs {PEERS[name][0] if name in PEERS else name}",
                    values["ours"],
                    unit,
                    ceiling=value,
                    ceiling_name=PEERS[name][0] if name in PEERS else name,
                    target=target,
                    better="higher" if higher else "lower",
                )
            )
        for name, floor, peer in _floors(quantity, values):  # what the target asks of any server on grpc.aio
            made.append(
                Figure(
                    f"peers: {quantity}, {PEERS[name][0]} vs {PEERS['bgio-memory'][0]}",
                    floor,
                    unit,
                    ceiling=peer,
                    ceiling_name=PEERS["bgio-memory"][0],
                    better="lower",
                )
            )
        if quantity.startswith("CreateMatch"):
            target = 50.0 if "p99" in quantity else None
            made.append(Figure(f"peers: {quantity}", values["ours"], "ms", target=target, better="lower"))
    return made


def _floors(quantity: str, values: dict[str, float]) -> list[tuple[str, float, float]]:
    """For a quantity with a target against boardgame.io's in-memory server: each floor measured, its value
    and the peer's (none where the peer was not measured, or the quantity has no such target)."""
    peer = values.get("bgio-memory")
    if _target(quantity, "bgio-memory") is None or not peer:
        return []
    return [(name, values[name], peer) for name in FLOORS if values.get(name)]


def _target(quantity: str, name: str) -> float | None:
    if name == "bgio-memory" and quantity.startswith("server CPU per move, 8 clients"):
        return 1.0  # issue 30: a Play move cheaper than boardgame.io's in-memory move
    if name == "bgio-memory" and quantity == "fan-out server CPU per move per watcher, 200 watchers":
        return 1.0
    if name == "echo":
        return 3.0  # a unary Submit at most 3x an echo's server CPU
    return None


def show(out: Measured) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="make bench-peers: ours beside the peers (ratio: ours / theirs)")
    table.add_column("figure")
    table.add_column("ours", justify="right")
    others = [name for name in (*PEERS, "echo") if name != "ours" and any(name in v for v in out.values())]
    for name in others:
        table.add_column(PEERS[name][0] if name in PEERS else name, justify="right")
        table.add_column("ratio", justify="right")
    for quantity, values in out.items():
        ours = values.get("ours")
        row = [quantity, f"{ours:,.1f}" if ours is not None else ""]
        for name in others:
            theirs = values.get(name)
            row.append(f"{theirs:,.1f}" if theirs is not None else "")
            row.append(f"{ours / theirs:.2f}" if ours is not None and theirs else "")
        table.add_row(*row)
    Console(width=280).print(table)  # wide enough that no row wraps, with both floors
    for quantity, values in out.items():  # the targets beside what the floors cost (bench/bare_server.py)
        for name, floor, peer in _floors(quantity, values):
            print(f"{quantity}: {PEERS[name][0]} {floor:,.1f} µs, {floor / peer:.2f}x {PEERS['bgio-memory'][0]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one short window per figure: a smoke pass")
    parser.add_argument("--only", choices=("moves", "fanout", "unary"), action="append")
    parser.add_argument("--json", type=Path, default=JSON)
    args = parser.parse_args(argv)
    if not npm_ready():
        print("bench/peers/node_modules is missing: run `make bench-peers` (it installs the peers with npm)")
        return 2
    windows, seconds = (1, 1.0) if args.quick else (3, 2.0)
    only = args.only or ["moves", "fanout", "unary"]
    out: Measured = {}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder, servers(Path(folder)) as running:
        if "moves" in only:
            for rounds in MODES:
                for clients in CLIENT_COUNTS:
                    print(f"== moves: {clients} clients, {MODES[rounds]}", flush=True)
                    moves(running, clients, rounds, windows, seconds, out)
        if "fanout" in only:
            for watchers in WATCHERS:
                print(f"== fan-out: {watchers} watchers", flush=True)
                fanout(running, watchers, windows, 2 * seconds, out)
    if "unary" in only:
        print("== unary Submit and echo, 8 clients", flush=True)
        unary(windows, seconds, out)
    show(out)
    made = figures(out)
    from bench.run import merged

    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(merged(args.json, made), indent=2) + "\n")
    missed = [f.name for f in made if f.met is False]
    print(f"({time.perf_counter() - started:.0f} s; {len(made)} figures written to {args.json})")
    for name in missed:
        print(f"target missed: {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
