"""Fan-out: one submitter at ~20 Hz, 1/50/200 watchers of one match, each watcher with its own gRPC
channel in a separate process. `python -m bench.fanout [--quick]`.

Figures, each beside its ceiling measured in the same run:
- delivery p99 (the submitter's time.time() before Submit -> a watcher's time.time() on receipt) beside a
  raw stream: a trivial grpc.aio server that, on a unary Publish, writes a payload of the same size to
  the same number of streams (no store, no rules, no views);
- the server's CPU per delivered update beside the raw server's;
- the submitter's ack p50 with 200 watchers beside the same without any watcher.

The server runs in its own process (spawned, like every watcher process), on a duel without an end (the
fixture game of engine/fixtures/duel.py, rounds never run out) so that it can be played for as long as the
run lasts; the watchers are spectators.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bench.figures import Figure, table
from engine.contract import Context, Event, Status
from engine.fixtures.duel import Duel, DuelState

RATE = 20.0  # submissions per second
WATCHER_PROCESSES = 4
SIZES = (1, 50, 200)
RAW_SERVICE = "/bench.Raw/"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class EndlessDuel(Duel):
    """The duel fixture without its last round: a match that can be played for as long as a run lasts."""

    name = "duel-endless"

    def _resolve(self, state: DuelState, picks: dict[str, int], ctx: Context) -> list[Event]:
        best = max(picks.values())
        return [
            {"type": "Resolved", "picks": dict(picks), "winners": sorted(p for p, n in picks.items() if n == best)},
            {"type": "RoundOpened", "round": state.round + 1, "deadline": ctx.now + state.duration},
        ]

    def status(self, state: DuelState) -> Status:
        picked = frozenset(p for p, _ in state.picks)
        return Status(f"round {state.round}", frozenset(state.players) - picked, picked, state.deadline, binding=True)


# --- the servers (each in its own process) ---------------------------------------------------------


def _serve_matchserver(var_dir: str, conn: Connection) -> None:
    from engine import registry
    from server.app import Settings, start_server
    from server.streams import StreamLimits

    async def serve() -> None:
        game: Any = EndlessDuel()  # a Game (Duel's command_types is typed narrower than the protocol's)
        registry.register(game)
        # The watchers stand for 200 spectators on as many machines; here they share one address, so the
        # per-address cap (StreamLimits.max_per_peer) is lifted for the bench.
        streams = StreamLimits(max_per_peer=10_000)
        running = await start_server(Settings(address="127.0.0.1:0", var_dir=var_dir, streams=streams))
        conn.send(running.port)
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)  # until told to stop
        await running.stop(grace=None)

    asyncio.run(serve())


def _serve_raw(conn: Connection) -> None:
    """The ceiling: Publish(k, payload) wakes every Watch stream, which writes the payload k times."""
    import grpc

    async def serve() -> None:
        published: list[tuple[int, bytes]] = []
        changed = asyncio.get_running_loop().create_future()

        async def publish(request: bytes, context: Any) -> bytes:
            nonlocal changed
            published.append((request[0], request[1:]))
            woken, changed = changed, asyncio.get_running_loop().create_future()
            woken.set_result(None)
            return b""

        async def watch(request: bytes, context: Any) -> None:
            sent = len(published)
            await context.write(b"\0" * 8)  # hello: the stream is open
            while True:
                while sent == len(published):
                    await asyncio.shield(changed)
                count, payload = published[sent]
                sent += 1
                for _ in range(count):
                    await context.write(payload)

        handlers = {
            "Publish": grpc.unary_unary_rpc_method_handler(publish),
            "Watch": grpc.unary_stream_rpc_method_handler(watch),
        }
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Raw", handlers),))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        conn.send(port)
        await asyncio.get_running_loop().run_in_executor(None, conn.recv)
        await server.stop(None)

    asyncio.run(serve())


# --- the watchers (WATCHER_PROCESSES processes, each many streams, each stream its own channel) -----


@dataclass
class Watch:
    """What one watcher process follows: `count` streams of `match_id` on `address` (raw: the raw server)."""

    address: str
    count: int
    raw: bool
    match_id: str = ""
    from_version: int = 0


def _watcher_process(conn: Connection) -> None:
    """Serve Watch commands: open the streams, say "ready" when each has its first message, then on
    ("until", n) wait until every stream has n messages after that one and send back the receipts."""
    while True:
        command = conn.recv()
        if command is None:
            return
        conn.send(asyncio.run(_watch(command, conn)))


async def _watch(spec: Watch, conn: Connection) -> list[list[tuple[int, float, int]]]:
    import grpc

    from matchserver.v1 import matchserver_pb2 as pb
    from matchserver.v1 import matchserver_pb2_grpc as pb_grpc

    receipts: list[list[tuple[int, float, int]]] = [[] for _ in range(spec.count)]  # (key, time, bytes)
    opened = [asyncio.Event() for _ in range(spec.count)]
    channels = [grpc.aio.insecure_channel(spec.address) for _ in range(spec.count)]

    async def follow(index: int) -> None:
        channel, mine = channels[index], receipts[index]
        if spec.raw:
            call = channel.unary_stream(RAW_SERVICE + "Watch")(b"")
            async for message in call:
                if not opened[index].is_set():
                    opened[index].set()
                    continue
                mine.append((int.from_bytes(message[:8], "big"), time.time(), len(message)))
        else:
            request = pb.SubscribeRequest(match_id=spec.match_id, from_version=spec.from_version)
            stream = pb_grpc.MatchServiceStub(channel).Subscribe(request, metadata=(("authorization", "Spectator"),))
            async for update in stream:
                if not opened[index].is_set():
                    opened[index].set()
                    continue
                mine.append((update.event.version, time.time(), update.ByteSize()))

    tasks = [asyncio.ensure_future(follow(index)) for index in range(spec.count)]
    await asyncio.gather(*(event.wait() for event in opened))
    conn.send("ready")
    loop = asyncio.get_running_loop()
    _, until = await loop.run_in_executor(None, conn.recv)
    give_up = time.monotonic() + 30
    while any(len(mine) < until for mine in receipts) and time.monotonic() < give_up:
        await asyncio.sleep(0.02)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for channel in channels:
        await channel.close()
    return receipts


@dataclass
class Watchers:
    conns: list[Connection]
    processes: list[Any] = field(default_factory=list)

    def open(self, specs: list[Watch]) -> None:
        for conn, spec in zip(self.conns, specs, strict=False):
            conn.send(spec)
        for conn, _ in zip(self.conns, specs, strict=False):
            assert conn.recv() == "ready"

    def collect(self, specs: list[Watch], until: int) -> list[list[tuple[int, float, int]]]:
        for conn, _ in zip(self.conns, specs, strict=False):
            conn.send(("until", until))
        return [stream for conn, _ in zip(self.conns, specs, strict=False) for stream in conn.recv()]


@contextmanager
def watcher_pool(context: Any) -> Iterator[Watchers]:
    pipes = [context.Pipe() for _ in range(WATCHER_PROCESSES)]
    processes = [context.Process(target=_watcher_process, args=(child,), daemon=True) for _, child in pipes]
    for process in processes:
        process.start()
    pool = Watchers([parent for parent, _ in pipes], processes)
    try:
        yield pool
    finally:
        for conn in pool.conns:
            conn.send(None)
        for process in processes:
            process.join(10)


def split(count: int) -> list[int]:
    """`count` streams over the watcher processes, as evenly as possible."""
    return [count // WATCHER_PROCESSES + (1 if i < count % WATCHER_PROCESSES else 0) for i in range(WATCHER_PROCESSES)]


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


@dataclass
class Run:
    """One timed run: delivery latencies (s), ack latencies (s), server CPU (s), deliveries, bytes/update."""

    deliveries: list[float]
    acks: list[float]
    cpu: float
    delivered: int
    size: float


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


def _paced(seconds: float, act: Callable[[int], None]) -> None:
    """Call act(i) at RATE per second for `seconds`, on schedule (a late call does not shift the rest)."""
    start = time.perf_counter()
    for index in range(int(seconds * RATE)):
        delay = start + index / RATE - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        act(index)


def run_matchserver(address: str, pid: int, admin: str, pool: Watchers, watchers: int, seconds: float) -> Run:
    from clients.client import MatchClient

    client = MatchClient(address, timeout=30, host_credential=admin)
    created = client.create("duel-endless", ["ann", "bob"], seed=1)
    tokens = [client.join(created.match_id, player) for player in ("ann", "bob")]
    version = client.state(created.match_id).version
    specs = [Watch(address, count, False, created.match_id, version - 1) for count in split(watchers) if count]
    pool.open(specs)
    sent_at: dict[int, float] = {}
    acks: list[float] = []

    def submit(index: int) -> None:
        at, started = time.time(), time.perf_counter()
        accepted = client.submit(created.match_id, tokens[index % 2], text=f"pick {1 + index % 3}")
        acks.append(time.perf_counter() - started)
        for event in accepted.events:
            sent_at[event.version] = at

    cpu = cpu_seconds(pid)
    _paced(seconds, submit)
    last = client.state(created.match_id).version
    streams = pool.collect(specs, last - version) if specs else []
    cpu = cpu_seconds(pid) - cpu
    client.close()
    received = [(key, at, size) for stream in streams for key, at, size in stream]
    return Run(
        [at - sent_at[key] for key, at, _ in received if key in sent_at],
        acks,
        cpu,
        len(received),
        statistics.fmean(size for _, _, size in received) if received else 0.0,
    )


def run_raw(address: str, pid: int, pool: Watchers, watchers: int, seconds: float, size: int) -> Run:
    import grpc

    channel = grpc.insecure_channel(address)
    publish = channel.unary_unary(RAW_SERVICE + "Publish")
    specs = [Watch(address, count, True) for count in split(watchers) if count]
    pool.open(specs)
    sent_at: dict[int, float] = {}
    acks: list[float] = []
    messages = 0

    def send(index: int) -> None:
        nonlocal messages
        count = 1 if index % 2 == 0 else 3  # as a duel: a first pick is one record, a second three
        messages += count
        sent_at[index] = time.time()
        started = time.perf_counter()
        publish(bytes([count]) + index.to_bytes(8, "big") + b"x" * max(0, size - 8), timeout=30)
        acks.append(time.perf_counter() - started)

    cpu = cpu_seconds(pid)
    _paced(seconds, send)
    streams = pool.collect(specs, messages) if specs else []
    cpu = cpu_seconds(pid) - cpu
    channel.close()
    received = [(key, at) for stream in streams for key, at, _ in stream]
    return Run([at - sent_at[key] for key, at in received], acks, cpu, len(received), float(size))


@contextmanager
def child_server(context: Any, target: Callable[..., None], *args: Any) -> Iterator[tuple[str, int]]:
    parent, child = context.Pipe()
    process = context.Process(target=target, args=(*args, child), daemon=True)
    process.start()
    port = parent.recv()
    try:
        yield f"127.0.0.1:{port}", process.pid
    finally:
        parent.send("stop")
        process.join(30)


def median_run(runs: list[Run]) -> Run:
    """The run of median delivery p99 (medians of several runs, as the issue's table)."""
    return sorted(runs, key=lambda run: percentile(run.deliveries, 0.99))[len(runs) // 2]


def run(quick: bool) -> list[Figure]:
    seconds, repeats = (2.0, 1) if quick else (6.0, 3)
    context = multiprocessing.get_context("spawn")  # no gRPC state crosses a fork
    ours: dict[int, Run] = {}
    raw: dict[int, Run] = {}
    with tempfile.TemporaryDirectory() as folder, watcher_pool(context) as pool:
        with child_server(context, _serve_matchserver, folder) as (address, pid):
            admin = (Path(folder) / "admin.token").read_text().strip()
            for watchers in (0, *SIZES):
                runs = [run_matchserver(address, pid, admin, pool, watchers, seconds) for _ in range(repeats)]
                ours[watchers] = median_run(runs) if watchers else min(runs, key=lambda r: statistics.median(r.acks))
        size = round(ours[SIZES[-1]].size)
        with child_server(context, _serve_raw) as (address, pid):
            for watchers in SIZES:
                runs = [run_raw(address, pid, pool, watchers, seconds, size) for _ in range(repeats)]
                raw[watchers] = median_run(runs)
    figures: list[Figure] = []
    for watchers in SIZES:
        figures.append(
            Figure(
                f"fan-out delivery p99, {watchers} watchers, ms",
                percentile(ours[watchers].deliveries, 0.99) * 1000,
                "ms",
                ceiling=percentile(raw[watchers].deliveries, 0.99) * 1000,
                ceiling_name=f"raw grpc.aio stream, {size} B payload",
                target=1.5 if watchers == SIZES[-1] else None,
                better="lower",
                note=f"{ours[watchers].delivered} deliveries at {RATE:g} Hz submits; p50 "
                f"{percentile(ours[watchers].deliveries, 0.5) * 1000:.1f} ms (raw "
                f"{percentile(raw[watchers].deliveries, 0.5) * 1000:.1f}); the submit's own ack p99 "
                f"{percentile(ours[watchers].acks, 0.99) * 1000:.1f} ms",
            )
        )
    for watchers in SIZES:
        ours_cpu = ours[watchers].cpu / max(1, ours[watchers].delivered) * 1e6
        raw_cpu = raw[watchers].cpu / max(1, raw[watchers].delivered) * 1e6
        figures.append(
            Figure(
                f"fan-out server CPU per delivery, {watchers} watchers, µs",
                ours_cpu,
                "µs",
                ceiling=raw_cpu,
                ceiling_name="raw grpc.aio stream",
                better="lower",
                note="whole server process (submit, store, fan-out), /proc CPU over the run",
            )
        )
    alone, busy = statistics.median(ours[0].acks) * 1000, statistics.median(ours[SIZES[-1]].acks) * 1000
    figures.append(
        Figure(
            f"submit ack p50 with {SIZES[-1]} watchers, ms",
            busy,
            "ms",
            ceiling=alone,
            ceiling_name="the same submit with no watcher",
            target=1.5,
            better="lower",
            note=f"ack p99 {percentile(ours[SIZES[-1]].acks, 0.99) * 1000:.1f} ms with, "
            f"{percentile(ours[0].acks, 0.99) * 1000:.1f} ms without",
        )
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    figures = run(args.quick)
    print(table(figures))
    for figure in figures:
        if figure.note:
            print(f"  {figure.name}: {figure.note}")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    threading.current_thread().name = "bench.fanout"
    main()
