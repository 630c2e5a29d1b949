"""Our bench client for `make bench-peers` (bench/peers.py), the twin of bench/peers/client.js: the same
roles and the same JSON lines on stdin/stdout, so every server is driven and timed the same way.

    python -m bench.peer_client moves ADDRESS ADMIN ROUNDS   both seats of duels over two Play streams
                                                             (ROUNDS 3: a new duel every six moves; 0: one
                                                             endless duel); {"go": S} -> {"ops", "lat"}
    python -m bench.peer_client submit ADDRESS ADMIN         an endless duel's two seats over Play;
                                                             {"go": S, "rate": R} -> {"sent", "acks"}
    python -m bench.peer_client watch ADDRESS MATCH N        N spectators (Subscribe), each its own channel;
                                                             {"until": K}: once each has seen version K
                                                             (or 30 s pass) -> {"receipts"}
    python -m bench.peer_client create ADDRESS ADMIN         CreateMatch in a loop, with host keys made by
                                                             ADMIN; {"go": S, "rate": R} -> {"lat"}
                                                             (CreateMatch under load)

A key is the match's version after a move (the MoveResult's); a watcher notes every version it receives.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

BUNDLE = not os.environ.get("BENCH_UNBUNDLED")
CREATOR_KEYS = 40  # host keys the creator takes in turn: 20 creations/s stay under 60 a minute per key


def say(value: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def commands() -> Iterator[dict[str, Any]]:
    for line in sys.stdin:
        if line.strip():
            yield json.loads(line)


def moves(address: str, admin: str, rounds: int) -> None:
    from bench.play import Seats
    from clients.client import MatchClient

    seats = Seats(MatchClient(address, host_credential=admin), 1, game="duel" if rounds else "duel-endless")
    seats.act()  # the first match is open before the first window
    say({"ready": True})
    for command in commands():
        lat = []
        until = time.perf_counter() + command["go"]
        now = time.perf_counter()
        while now < until:
            seats.act()
            after = time.perf_counter()
            lat.append(after - now)
            now = after
        say({"ops": len(lat), "lat": lat})
    seats.close()


def submit(address: str, admin: str) -> None:
    from bench.play import Seats
    from clients.client import MatchClient

    seats = Seats(MatchClient(address, host_credential=admin), 1, game="duel-endless")
    seats.act()
    say({"match": seats.match_id})
    for command in commands():
        sent, acks = [], []
        start = time.perf_counter()
        for index in range(int(command["go"] * command["rate"])):
            delay = start + index / command["rate"] - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            at, began = time.time(), time.perf_counter()
            version = seats.act()
            acks.append(time.perf_counter() - began)
            sent.append((version, at))
        say({"sent": sent, "acks": acks})
    seats.close()


def create(address: str, admin: str) -> None:
    """As hosts create: with host keys (each CreateMatch checks its key's quotas), taken in turn so that
    none reaches its creations per minute (60) or live matches (100) within a run."""
    from clients.client import MatchClient

    client = MatchClient(address, host_credential=admin)
    keys = [client.create_host_key(f"bench-host-{index}").host_key for index in range(CREATOR_KEYS)]
    say({"ready": True})
    made = 0
    for command in commands():
        lat = []
        start = time.perf_counter()
        for index in range(int(command["go"] * command["rate"])):
            delay = start + index / command["rate"] - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            key, made = keys[made % len(keys)], made + 1
            began = time.perf_counter()
            client.create(
                "duel", ["ann", "bob"], seed=1, config={"players": ["ann", "bob"], "duration": 3600}, token=key
            )
            lat.append(time.perf_counter() - began)
        say({"lat": lat})


async def watch(address: str, match_id: str, count: int) -> None:
    import grpc

    from matchserver.v1 import matchserver_pb2 as pb
    from matchserver.v1 import matchserver_pb2_grpc as pb_grpc

    receipts: list[list[tuple[int, float]]] = [[] for _ in range(count)]
    opened = [asyncio.Event() for _ in range(count)]
    channels = [grpc.aio.insecure_channel(address) for _ in range(count)]
    version = 0

    async def follow(index: int) -> None:
        # SubscribeRequest.bundle (one message per pass; BENCH_UNBUNDLED=1: one message per update)
        request = pb.SubscribeRequest(match_id=match_id, from_version=version, bundle=BUNDLE)
        stub = pb_grpc.MatchServiceStub(channels[index])
        async for message in stub.Subscribe(request, metadata=(("authorization", "Spectator"),)):
            for update in message.updates or [message]:
                if opened[index].is_set():
                    receipts[index].append((update.event.version, time.time()))
                else:  # the version before the match's last when it subscribed: the stream is open
                    opened[index].set()

    state = await pb_grpc.MatchServiceStub(channels[0]).GetState(
        pb.GetStateRequest(match_id=match_id), metadata=(("authorization", "Spectator"),)
    )
    version = state.version - 1
    tasks = [asyncio.ensure_future(follow(index)) for index in range(count)]
    await asyncio.gather(*(event.wait() for event in opened))
    await report_receipts(receipts, tasks)


async def report_receipts(receipts: list[list[tuple[int, float]]], tasks: Sequence[asyncio.Future[None]]) -> None:
    """The watch role once every watcher is open: say ready, then answer each {"until": V} with every
    watcher's receipts since the last answer, once each has version V (or 30 s passed); when stdin
    closes, end the watchers (`tasks`)."""
    loop = asyncio.get_running_loop()
    say({"ready": True})
    lines = iter(commands())
    while (command := await loop.run_in_executor(None, next, lines, None)) is not None:
        give_up = time.monotonic() + 30
        while any(not mine or mine[-1][0] < command["until"] for mine in receipts) and time.monotonic() < give_up:
            await asyncio.sleep(0.02)
        say({"receipts": [mine[:] for mine in receipts]})
        for mine in receipts:
            mine.clear()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def main(argv: list[str]) -> None:
    role, address, *rest = argv
    if role == "moves":
        moves(address, rest[0], int(rest[1]))
    elif role == "submit":
        submit(address, rest[0])
    elif role == "create":
        create(address, rest[0])
    elif role == "watch":
        asyncio.run(watch(address, rest[0], int(rest[1])))
    else:
        raise SystemExit(f"unknown role {role!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
