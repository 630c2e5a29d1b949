"""Processes for benchmarks: a server in a child process, its CPU time and memory read from /proc, and
clients in separate processes started from a clean fork server (gRPC must not be forked once it has run,
grpc 13873: the fork server never ran it, and each client makes its channel after the fork)."""

from __future__ import annotations

import multiprocessing
import os
import re
import selectors
import subprocess
import sys
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from multiprocessing.context import ForkServerContext
from pathlib import Path
from typing import Any

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` (all its threads), from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14 and 15 of stat)


def thread_cpu(pid: int) -> dict[tuple[int, str], tuple[float, float]]:
    """Each thread of process `pid` (its id and name) -> its user and system CPU seconds so far."""
    out = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            name = (task / "comm").read_text().strip()
        except OSError:  # the thread ended meanwhile
            continue
        out[(int(task.name), name)] = (int(fields[11]) / TICKS, int(fields[12]) / TICKS)
    return out


def rss_mb(pid: int) -> float:
    found = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(found.group(1)) / 1024 if found else 0.0


def context() -> ForkServerContext:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["grpc", "clients.client"])  # imported once, before any channel exists
    return ctx


@dataclass
class ChildServer:
    """`python -m bench.serve` (the real server, duel registered) on a loopback port."""

    process: subprocess.Popen[str]
    address: str
    var: Path
    started_at: float  # perf_counter when the process was spawned

    @property
    def pid(self) -> int:
        return self.process.pid

    def admin_token(self) -> str:
        return (self.var / "admin.token").read_text().strip()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        if self.process.stdout is not None:
            self.process.stdout.close()


class StartTimeout(Exception):
    pass


def spawn_server(var: Path, extra: Sequence[str] = ()) -> subprocess.Popen[str]:
    """`python -m bench.serve` on any free loopback port, its log in VAR/server.log."""
    var.mkdir(parents=True, exist_ok=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith("MATCHSERVER_")}
    command = [sys.executable, "-m", "bench.serve", "--address", "127.0.0.1:0", "--var", str(var), *extra]
    with (var / "server.log").open("a") as log:
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, env=env)


def wait_listening(process: subprocess.Popen[str], timeout: float) -> str | None:
    """The address once the server says it is listening; None if it has not within `timeout` s."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        ready = selector.select(timeout)
    found = re.search(r"listening on (\S+)", process.stdout.readline() if ready else "")
    return found.group(1) if found else None


def kill(process: subprocess.Popen[str]) -> None:
    process.kill()
    process.wait(10)
    if process.stdout is not None:
        process.stdout.close()


def start_server(var: Path, timeout: float = 60.0, extra: Sequence[str] = ()) -> ChildServer:
    """Spawn the server and return once it says it is listening (StartTimeout after `timeout` s, the
    process killed)."""
    started = time.perf_counter()
    process = spawn_server(var, extra)
    address = wait_listening(process, timeout)
    if address is None:
        kill(process)
        raise StartTimeout(f"the server did not listen within {timeout:g} s (see {var / 'server.log'})")
    return ChildServer(process, address, var, started)


@dataclass(frozen=True)
class Window:
    """One measured window of a load: operations done, the wall time from the first client's start to
    the last one's end, the server's CPU seconds over it, and every operation's latency (s)."""

    operations: int
    wall: float
    server_cpu: float
    latencies: list[float]

    @property
    def per_second(self) -> float:
        return self.operations / self.wall if self.wall else 0.0

    @property
    def cpu_us_per_operation(self) -> float:
        return self.server_cpu / self.operations * 1e6 if self.operations else 0.0


# A client: (setup, act). setup(address, argument, windows, duration) runs before the first window and
# returns a state; act(state) does one operation. Both are top-level functions (picklable).
Setup = Callable[[str, Any, int, float], Any]
Act = Callable[[Any], None]


def _client(
    setup: Setup, act: Act, address: str, argument: Any, windows: int, duration: float, start: Any, results: Any
) -> None:
    state = setup(address, argument, windows, duration)
    for _ in range(windows):
        start.wait()  # every client and the parent: the window begins
        latencies = []
        began = time.perf_counter()
        until = began + duration
        now = began
        while now < until:
            act(state)
            after = time.perf_counter()
            latencies.append(after - now)
            now = after
        results.put((began, now, latencies))
        start.wait()  # the window ends for everyone before the parent reads the server's CPU


def load_windows(
    server_pid: int,
    address: str,
    setup: Setup,
    act: Act,
    clients: int,
    windows: int,
    duration: float,
    arguments: Sequence[Any] | None = None,
) -> Generator[Window, None, None]:
    """Run `clients` client processes against the server, `windows` windows of `duration` seconds each, a
    window at each next(): two loads' windows can take turns (bench/peers.py's unary figure). The clients
    start, and set up, at the first; between windows they wait, idle, for the next."""
    ctx = context()
    start = ctx.Barrier(clients + 1)
    results = ctx.Queue()
    processes = [
        ctx.Process(
            target=_client,
            args=(setup, act, address, arguments[i] if arguments else i, windows, duration, start, results),
            daemon=True,
        )
        for i in range(clients)
    ]
    for process in processes:
        process.start()
    try:
        for _ in range(windows):
            start.wait(timeout=600)
            cpu_before = cpu_seconds(server_pid)
            start.wait(timeout=600)
            cpu_after = cpu_seconds(server_pid)
            got = [results.get(timeout=60) for _ in range(clients)]
            began = min(g[0] for g in got)
            ended = max(g[1] for g in got)
            latencies = sorted(latency for g in got for latency in g[2])
            yield Window(len(latencies), ended - began, cpu_after - cpu_before, latencies)
    finally:
        for process in processes:
            process.join(30)
            if process.is_alive():
                process.kill()


def median_window(windows: list[Window]) -> Window:
    """The window with the median throughput (medians of 3)."""
    return sorted(windows, key=lambda w: w.per_second)[len(windows) // 2]


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * fraction))]
