"""The gRPC ceiling: a grpc.aio server with one trivial unary method, in its own process, called by
clients in separate processes with messages the size of a Submit (request ~80 bytes with a bearer token
in the metadata, reply ~512 bytes: a duel pick's reply is 344-701). Its throughput, latency and server
CPU per call are what submit.py compares a Submit with, measured in the same run.

`python -m bench.echo --serve` is the server process (it prints its port)."""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
from collections.abc import Generator
from dataclasses import dataclass
from functools import cache
from typing import Any

from bench.figures import Figure
from bench.procs import Window, load_windows, median_window, percentile

METHOD = "/bench.Echo/Echo"
STREAM_METHOD = "/bench.Echo/EchoStream"
REQUEST = b"r" * 80
REPLY = b"e" * 512
TOKEN = "Bearer " + "t" * 36  # the metadata a player's Submit carries
CLIENT_COUNTS = (1, 8, 32)


@dataclass(frozen=True)
class Ceiling:
    clients: int
    window: Window  # the median of the windows measured


async def _serve() -> None:
    import grpc

    async def echo(request: bytes, context: Any) -> bytes:
        return REPLY

    async def echo_stream(requests: Any, context: Any) -> Any:
        async for _ in requests:  # one reply per message, on one long stream (the Play stream's ceiling)
            yield REPLY

    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    methods = {
        "Echo": grpc.unary_unary_rpc_method_handler(echo),
        "EchoStream": grpc.stream_stream_rpc_method_handler(echo_stream),
    }
    handler = grpc.method_handlers_generic_handler("bench.Echo", methods)
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"echo listening on 127.0.0.1:{port}", flush=True)
    await server.wait_for_termination()


def _setup(address: str, argument: Any, windows: int, duration: float) -> Any:
    import grpc

    from clients.client import channel_options

    channel = grpc.insecure_channel(address, options=channel_options())
    return channel.unary_unary(METHOD)


def _act(call: Any) -> None:
    call(REQUEST, metadata=[("authorization", TOKEN)], timeout=30)


class _Stream:
    """One client's echo stream: each act sends one message and waits for its reply."""

    def __init__(self, address: str) -> None:
        import queue

        import grpc

        from clients.client import channel_options

        self.channel = grpc.insecure_channel(address, options=channel_options())
        self.outgoing: queue.Queue[bytes] = queue.Queue()
        call = self.channel.stream_stream(STREAM_METHOD)
        self.replies = call(iter(self.outgoing.get, None), metadata=[("authorization", TOKEN)])

    def act(self) -> None:
        self.outgoing.put(REQUEST)
        next(self.replies)


def _setup_stream(address: str, argument: Any, windows: int, duration: float) -> Any:
    return _Stream(address)


def _act_stream(stream: Any) -> None:
    stream.act()


@cache
def measure_stream(clients: int, windows: int, duration: float) -> Ceiling:
    """Round trips on one bidirectional stream per client (bench/play.py's ceiling)."""
    return _measure(clients, windows, duration, _setup_stream, _act_stream)


@cache
def measure(clients: int, windows: int, duration: float) -> Ceiling:
    """Echo at `clients` clients (cached: submit.py asks for the same ceilings echo's own figures show)."""
    return _measure(clients, windows, duration, _setup, _act)


def _measure(clients: int, windows: int, duration: float, setup: Any, act: Any) -> Ceiling:
    return Ceiling(clients, median_window(list(_windows(clients, windows, duration, setup, act))))


def unary_windows(clients: int, windows: int, duration: float) -> Generator[Window, None, None]:
    """The unary echo's windows one at a time, its server up until the last (bench/peers.py interleaves them
    with a Submit's)."""
    return _windows(clients, windows, duration, _setup, _act)


def _windows(clients: int, windows: int, duration: float, setup: Any, act: Any) -> Generator[Window, None, None]:
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.echo", "--serve"], stdout=subprocess.PIPE, text=True, stderr=subprocess.DEVNULL
    )
    try:
        assert process.stdout is not None
        address = process.stdout.readline().split()[-1]
        yield from load_windows(process.pid, address, setup, act, clients, windows, duration)
    finally:
        process.terminate()
        process.wait(30)
        if process.stdout is not None:
            process.stdout.close()


def shape(quick: bool) -> tuple[int, float]:
    """(windows, seconds each): medians of 3 in the full run, one short window with --quick."""
    return (1, 1.0) if quick else (3, 2.0)


def run(quick: bool) -> list[Figure]:
    windows, duration = shape(quick)
    figures = []
    for clients in CLIENT_COUNTS:
        window = measure(clients, windows, duration).window
        figures.append(Figure(f"echo: unary calls/s, {clients} clients", window.per_second, "calls/s"))
        figures.append(
            Figure(f"echo: server CPU per call, {clients} clients", window.cpu_us_per_operation, "µs", better="lower")
        )
        figures.append(
            Figure(f"echo: call p50, {clients} clients", percentile(window.latencies, 0.5) * 1000, "ms", better="lower")
        )
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--serve", action="store_true")
    if parser.parse_args().serve:
        asyncio.run(_serve())
    else:
        from bench.figures import table

        print(table(run(quick=True)))
