"""What a Play move would cost over a WebSocket instead of gRPC: the open decision of issue 30 ("a cheaper
transport than grpc.aio"), measured on our own Play path rather than on a bare echo (bench/grpc_floor.py).

    python -m bench.play_websocket [--clients 8] [--seconds 5] [--rounds 3]

An experiment, not a feature: the bench server (bench.serve with --http) gets a route `GET /play`, upgraded
to a WebSocket whose binary frames are the same PlayRequest and PlayResponse messages, handed to the same
PlayStream (server/grpc/play_service.py) through a stand-in for the gRPC context. It has none of what a
served transport would need (origin checks, frame and connection limits beyond aiohttp's, close codes that
say why): it exists only to be measured. Each round runs both transports one after the other, each on a
fresh server with CLIENTS client processes, every client one endless duel over two seats (as
bench.profile_play), one move in flight per client; server CPU from /proc around the window."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.procs import cpu_seconds

TRANSPORTS = ("grpc", "websocket")


class SocketContext:
    """The part of a grpc.aio servicer context that PlayStream uses, over an aiohttp WebSocket."""

    def __init__(self, socket: Any, request: Any) -> None:
        self.socket, self.request = socket, request

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", self.request.headers.get("Authorization", "")),)

    def peer(self) -> str:
        host, port = self.request.transport.get_extra_info("peername")[:2]
        return f"ipv4:{host}:{port}"

    async def write(self, message: Any) -> None:
        await self.socket.send_bytes(message if isinstance(message, bytes) else message.SerializeToString())

    async def abort(self, code: Any, message: str, trailing_metadata: Any = ()) -> None:
        await self.socket.close(code=4000 + code.value[0], message=message.encode()[:120])
        raise ConnectionAbortedError(message)


def serve(argv: list[str]) -> None:
    """bench.serve, its pages' Site given `GET /play` (registered with the match pages, before it starts)."""
    from aiohttp import WSMsgType, web

    from bench import serve as bench_serve
    from matchserver.v1 import matchserver_pb2 as pb
    from server.grpc.match_service import MatchService
    from server.grpc.play_service import PlayStream
    from server.grpc.plumbing import UnaryCalls
    from server.web import live as live_pages

    pages_init = live_pages.MatchPages.__init__

    def with_play(self: Any, matches: Any, site: Any) -> None:
        pages_init(self, matches, site)

        async def play(request: web.Request) -> web.WebSocketResponse:
            socket = web.WebSocketResponse(max_msg_size=64 * 1024)
            await socket.prepare(request)

            async def requests() -> Any:
                async for frame in socket:
                    if frame.type != WSMsgType.BINARY:
                        break
                    message = pb.PlayRequest()
                    message.ParseFromString(frame.data)
                    yield message

            with contextlib.suppress(ConnectionAbortedError):  # SocketContext.abort closed the socket
                await PlayStream(matches, SocketContext(socket, request)).run(requests())
            await socket.close()
            return socket

        site.get("/play", play)
        service = MatchService(matches, UnaryCalls())

        async def subscribe(request: web.Request) -> web.WebSocketResponse:
            socket = web.WebSocketResponse(max_msg_size=64 * 1024)
            await socket.prepare(request)
            first = await socket.receive()
            message = pb.SubscribeRequest()
            message.ParseFromString(first.data)
            with contextlib.suppress(ConnectionAbortedError):
                await service.Subscribe(message, SocketContext(socket, request))
            await socket.close()
            return socket

        site.get("/subscribe", subscribe)

    live_pages.MatchPages.__init__ = with_play  # type: ignore[method-assign]
    bench_serve.main(argv)


def _seated(address: str, admin: str) -> tuple[Any, str, list[str]]:
    from clients.client import MatchClient

    client = MatchClient(address, host_credential=admin)
    config = {"players": ["ann", "bob"], "duration": 3600}
    match_id = client.create("duel-endless", ["ann", "bob"], seed=1, config=config).match_id
    return client, match_id, [client.join(match_id, "ann"), client.join(match_id, "bob")]


def client(transport: str, address: str, pages: str, admin: str, seconds: float) -> None:
    """One client process: seat a duel, say ready, wait for go, move for `seconds`, print the moves made."""
    if transport == "grpc":
        from bench.play import Seats

        match_client, match_id, tokens = _seated(address, admin)
        seats = Seats(match_client, 0, game="duel-endless")
        seats.waiting = [(match_id, tokens[0], tokens[1])]
        seats.act()
        print("ready", flush=True)
        sys.stdin.readline()
        moves, until = 0, time.monotonic() + seconds
        while time.monotonic() < until:
            seats.act()
            moves += 1
        print(moves, flush=True)
        os._exit(0)  # the Play streams' threads need no orderly close
    asyncio.run(_socket_client(address, pages, admin, seconds))


async def _socket_client(address: str, pages: str, admin: str, seconds: float) -> None:
    import aiohttp

    from matchserver.v1 import matchserver_pb2 as pb

    _, match_id, tokens = _seated(address, admin)
    turns: asyncio.Queue[tuple[Any, Any]] = asyncio.Queue()
    results: asyncio.Queue[Any] = asyncio.Queue()
    async with aiohttp.ClientSession() as session:
        sockets = []
        for token in tokens:
            socket = await session.ws_connect(pages + "/play", headers={"Authorization": f"Bearer {token}"})
            start = pb.PlayStart(match_id=match_id, bundle=True)
            await socket.send_bytes(pb.PlayRequest(start=start).SerializeToString())
            sockets.append(socket)

        async def follow(socket: Any) -> None:
            async for frame in socket:
                received = pb.PlayResponse()
                received.ParseFromString(frame.data)
                bundled = received.WhichOneof("kind") == "bundle"
                for message in received.bundle.items if bundled else (received,):
                    kind = message.WhichOneof("kind")
                    if kind == "turn":
                        turns.put_nowait((socket, message.turn))
                    elif kind == "result":
                        results.put_nowait(message.result)

        followers = [asyncio.ensure_future(follow(socket)) for socket in sockets]

        async def act() -> None:
            socket, turn = await turns.get()
            move = pb.Move(request_id=uuid.uuid4().hex, turn_version=turn.version, text="pick 2")
            await socket.send_bytes(pb.PlayRequest(move=move).SerializeToString())
            result = await results.get()
            if not result.accepted:
                raise RuntimeError(f"a bench move was refused: {result.code} {result.message}")

        await act()
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        moves, until = 0, time.monotonic() + seconds
        while time.monotonic() < until:
            await act()
            moves += 1
        print(moves, flush=True)
        for follower in followers:
            follower.cancel()
        os._exit(0)


async def socket_watchers(pages: str, address: str, match_id: str, count: int) -> None:
    """bench/peer_client.py's `watch` role (the same JSON lines), its spectators over /subscribe."""
    import aiohttp

    from bench.peer_client import report_receipts
    from clients.client import MatchClient
    from matchserver.v1 import matchserver_pb2 as pb

    receipts: list[list[tuple[int, float]]] = [[] for _ in range(count)]
    opened = [asyncio.Event() for _ in range(count)]
    version = MatchClient(address).state(match_id).version - 1

    async def follow(session: aiohttp.ClientSession, index: int) -> None:
        async with session.ws_connect(pages + "/subscribe", headers={"Authorization": "Spectator"}) as socket:
            request = pb.SubscribeRequest(match_id=match_id, from_version=version, bundle=True)
            await socket.send_bytes(request.SerializeToString())
            async for frame in socket:
                message = pb.SubscribeResponse()
                message.ParseFromString(frame.data)
                for update in message.updates or [message]:
                    if opened[index].is_set():
                        receipts[index].append((update.event.version, time.time()))
                    else:  # the version before the match's last when it subscribed: the stream is open
                        opened[index].set()

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        tasks = [asyncio.ensure_future(follow(session, index)) for index in range(count)]
        await asyncio.gather(*(event.wait() for event in opened))
        await report_receipts(receipts, tasks)


@contextlib.contextmanager
def bench_server() -> Iterator[tuple[subprocess.Popen[str], str, str, str]]:
    """A fresh bench server (SQLite) with /play and /subscribe: (process, gRPC address, pages URL, admin)."""
    with tempfile.TemporaryDirectory() as folder:
        var = Path(folder) / "var"
        var.mkdir()
        command = [sys.executable, "-m", "bench.play_websocket", "--serve", "--address", "127.0.0.1:0"]
        command += ["--var", str(var), "--http", "127.0.0.1:0"]
        with (var / "server.log").open("w") as log:
            server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, env=_bench_env())
        try:
            assert server.stdout is not None
            listening = re.search(r"listening on (\S+)", server.stdout.readline())
            pages = re.search(r"pages at (\S+)/ ", server.stdout.readline())
            if listening is None or pages is None:
                raise RuntimeError(f"the bench server did not start (see {var / 'server.log'})")
            yield server, listening.group(1), pages.group(1), (var / "admin.token").read_text().strip()
        finally:
            server.terminate()
            server.wait(30)


def _bench_env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("MATCHSERVER_")}
    env["BENCH_SPECTATORS"] = "1"  # the watchers stand for as many machines, but share one address
    return env


def fanout(watchers: int, windows: int, seconds: float) -> dict[str, dict[str, float]]:
    """bench/peers.py's fan-out figures for gRPC Subscribe and for /subscribe, each on its own server."""
    from bench.peer_procs import Client, Served
    from bench.peers import fanout as measure_fanout

    class OverSocket(Served):
        pages = ""  # where its /subscribe is: set once its server started

        def client(self, role: str, *args: str) -> Client:
            command = [sys.executable, "-m", "bench.peer_client", role, self.url, self.admin, *args]  # as ours
            if role == "watch":
                command = [sys.executable, "-m", "bench.play_websocket", "--watch", self.pages, self.url, *args]
            return Client(subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE))

    out: dict[str, dict[str, float]] = {}
    with bench_server() as (grpc_server, address, _, admin), bench_server() as (socket_server, address2, pages, admin2):
        served = Served("ours", grpc_server.pid, address, admin)
        over_socket = OverSocket("ours-websocket", socket_server.pid, address2, admin2)
        over_socket.pages = pages
        measure_fanout([served, over_socket], watchers, windows, seconds, out)
    return out


def measure(transport: str, clients: int, seconds: float) -> tuple[int, float]:
    """(moves, server CPU µs per move) on a fresh server (SQLite) with `clients` client processes."""
    with bench_server() as (server, address, pages, admin):
        arguments = [transport, address, pages, admin, str(seconds)]
        processes = [
            subprocess.Popen(
                [sys.executable, "-m", "bench.play_websocket", "--client", *arguments],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(clients)
        ]
        for process in processes:
            assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        before = cpu_seconds(server.pid)
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        moves = sum(int(process.communicate()[0]) for process in processes)
        cpu = cpu_seconds(server.pid) - before
    return moves, cpu / max(moves, 1) * 1e6


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve"]:
        serve(argv[1:])
        return
    if argv[:1] == ["--watch"]:
        pages, address, match_id, count = argv[1:5]
        asyncio.run(socket_watchers(pages, address, match_id, int(count)))
        return
    if argv[:1] == ["--client"]:
        transport, address, pages, admin, seconds = argv[1:6]
        client(transport, address, pages, admin, float(seconds))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fanout", type=int, metavar="WATCHERS", help="fan-out to WATCHERS spectators instead")
    args = parser.parse_args(argv)
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    if args.fanout:
        for quantity, values in fanout(args.fanout, args.rounds, args.seconds).items():
            print(f"{quantity:60s} " + "  ".join(f"{name} {value:8.1f}" for name, value in values.items()))
        return
    for round_ in range(1, args.rounds + 1):
        for transport in TRANSPORTS if round_ % 2 else reversed(TRANSPORTS):
            moves, cpu = measure(transport, args.clients, args.seconds)
            rate = moves / args.seconds
            print(f"round {round_}  {transport:9s}  {rate:7.0f} moves/s  {cpu:6.0f} µs server CPU per move", flush=True)


if __name__ == "__main__":
    main()
