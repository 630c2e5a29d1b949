"""What grpc.aio itself costs here, beneath anything of ours: the floor under a Play move, a fan-out delivery
and a unary Submit (issue 30, docs/BENCHMARKS.md "The floor grpc.aio sets").

    python -m bench.grpc_floor [--seconds 4]

Each shape is a bare grpc.aio server in this process (300-byte replies, TLS off) driven by 4 client processes
of 2 threads each (8 clients, as the peers bench); server CPU from /proc around the run:

- `stream: read + write`: one message in, one out, on a long bidirectional stream (a Play round trip's
  transport; the handler writes with context.write, as ours does);
- `stream: read + 2 writes`: the same with a second write per message (a move's Update to the other seat);
- `stream: read task + write`: reads in a task of their own that hands each message to the handler (Play
  reads so while it waits on the match too);
- `unary`, and `unary, one interceptor`: a call answered at once, bare and behind a trivial interceptor
  (any interceptor puts every call on grpc.aio's slower path; the server has none since issue 30);
- `websocket: read + write` and `read + 2 writes`: the stream shapes over a WebSocket that aiohttp (already
  the pages' server) serves in the same kind of event loop, binary frames, one connection per client: what
  the other transport the peers use would cost a Play move here (issue 30's open decision).

The CPU loop of this 2-core VM varies by up to a third between runs (neighbours): compare shapes measured
together, and repeat."""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from bench.procs import cpu_seconds

REPLY = b"x" * 300
SHAPES = (
    "stream: read + write",
    "stream: read + 2 writes",
    "stream: read task + write",
    "unary",
    "unary, one interceptor",
    "websocket: read + write",
    "websocket: read + 2 writes",
)
PROCESSES, THREADS = 4, 2


class Passing(grpc.aio.ServerInterceptor):  # type: ignore[misc]  # grpc's stubs leave it Any
    """A trivial interceptor: what our CallCounter was (it wrapped each unary call to count it)."""

    async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]], details: Any) -> Any:
        handler = await continuation(details)
        inner = handler.unary_unary
        if inner is None:
            return handler

        async def passed(request: Any, context: Any) -> Any:
            return await inner(request, context)

        return handler._replace(unary_unary=passed)


async def _stream(shape: str, requests: AsyncIterator[bytes], context: Any) -> None:
    if shape == "stream: read task + write":
        arrived: asyncio.Queue[bytes | None] = asyncio.Queue()

        async def read() -> None:
            async for request in requests:
                arrived.put_nowait(request)
            arrived.put_nowait(None)

        reader = asyncio.ensure_future(read())
        while await arrived.get() is not None:
            await context.write(REPLY)
        await reader
        return
    writes = 2 if shape == "stream: read + 2 writes" else 1
    async for _ in requests:
        for _ in range(writes):
            await context.write(REPLY)


async def _serve(shape: str, ports: list[int]) -> None:
    async def unary(request: bytes, context: Any) -> bytes:
        return REPLY

    async def stream(requests: AsyncIterator[bytes], context: Any) -> None:
        await _stream(shape, requests, context)

    interceptors = [Passing()] if shape == "unary, one interceptor" else None
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)], interceptors=interceptors)
    methods = {
        "Unary": grpc.unary_unary_rpc_method_handler(unary),
        "Stream": grpc.stream_stream_rpc_method_handler(stream),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("floor.Floor", methods),))
    ports.append(server.add_insecure_port("127.0.0.1:0"))
    await server.start()
    await server.wait_for_termination()


async def _serve_websocket(shape: str, ports: list[int]) -> None:
    from aiohttp import WSMsgType, web

    writes = 2 if shape == "websocket: read + 2 writes" else 1

    async def stream(request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        async for message in socket:
            if message.type != WSMsgType.BINARY:
                break
            for _ in range(writes):
                await socket.send_bytes(REPLY)
        return socket

    app = web.Application()
    app.router.add_get("/stream", stream)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    ports.append(site._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]  # the port it was given
    await asyncio.Event().wait()


def _run(loop: asyncio.AbstractEventLoop, shape: str, ports: list[int]) -> None:
    serve = _serve_websocket if shape.startswith("websocket") else _serve
    task = loop.create_task(serve(shape, ports))
    loop.run_forever()  # until measure() stops it: the server is dropped with its loop
    task.cancel()
    if shape.startswith("websocket"):  # its site closes once cancelled (else: "Task was destroyed")
        loop.run_until_complete(asyncio.gather(task, return_exceptions=True))


def measure(shape: str, seconds: float) -> tuple[int, float]:
    """(operations, server CPU µs per operation) for one shape: a server thread here, clients in processes."""
    ports: list[int] = []
    loop = asyncio.new_event_loop()
    threading.Thread(target=_run, args=(loop, shape, ports), daemon=True).start()
    give_up = time.monotonic() + 30
    while not ports and time.monotonic() < give_up:
        time.sleep(0.01)
    time.sleep(0.3)
    before = cpu_seconds(os.getpid())
    clients = [
        subprocess.Popen(
            [sys.executable, "-m", "bench.grpc_floor", "--client", str(ports[0]), shape, str(seconds)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    operations = sum(int(client.communicate()[0]) for client in clients)
    cpu = cpu_seconds(os.getpid()) - before  # this process: the server thread and gRPC's own (the clients are children)
    loop.call_soon_threadsafe(loop.stop)
    return operations, cpu / max(operations, 1) * 1e6


def websocket_client(port: int, shape: str, seconds: float) -> None:
    import aiohttp

    per_request = 2 if shape == "websocket: read + 2 writes" else 1

    async def one(session: aiohttp.ClientSession) -> int:
        done, until = 0, time.monotonic() + seconds
        async with session.ws_connect(f"ws://127.0.0.1:{port}/stream") as socket:
            while time.monotonic() < until:
                await socket.send_bytes(b"x" * 80)
                for _ in range(per_request):
                    await socket.receive()
                done += 1
        return done

    async def run() -> int:
        async with aiohttp.ClientSession() as session:
            return sum(await asyncio.gather(*(one(session) for _ in range(THREADS))))

    print(asyncio.run(run()), flush=True)


def client(port: int, shape: str, seconds: float) -> None:
    import queue

    if shape.startswith("websocket"):
        websocket_client(port, shape, seconds)
        return

    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    counts: list[int] = []

    def unary() -> None:
        call, done, until = channel.unary_unary("/floor.Floor/Unary"), 0, time.monotonic() + seconds
        while time.monotonic() < until:
            call(b"x" * 80, metadata=(("authorization", "Bearer abcdef"),))
            done += 1
        counts.append(done)

    def stream() -> None:
        outbox: queue.Queue[bytes | None] = queue.Queue()
        replies = channel.stream_stream("/floor.Floor/Stream")(iter(outbox.get, None))
        per_request = 2 if shape == "stream: read + 2 writes" else 1
        done, until = 0, time.monotonic() + seconds
        outbox.put(b"x" * 80)
        for index, _ in enumerate(replies, start=1):
            if index % per_request:
                continue
            done += 1
            if time.monotonic() > until:
                break
            outbox.put(b"x" * 80)
        outbox.put(None)
        counts.append(done)

    threads = [threading.Thread(target=unary if shape.startswith("unary") else stream) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(sum(counts), flush=True)
    os._exit(0)  # the stream threads' channels need no orderly close


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--client", nargs=3, metavar=("PORT", "SHAPE", "SECONDS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.client:
        client(int(args.client[0]), args.client[1], float(args.client[2]))
        return
    for shape in SHAPES:
        operations, cpu = measure(shape, args.seconds)
        print(f"{shape:28s} {operations:7d} operations  {cpu:6.0f} µs server CPU each", flush=True)


if __name__ == "__main__":
    main()
