"""PostgreSQL, 1 node vs 2 nodes: submissions per second through one server process and through two
sharing one store, and how long an append takes to reach a stream on the other node.

Servers and clients are separate processes (the `matchserver` code, with the duel fixture game
registered, so the rules cost almost nothing and this measures the platform). Each client process plays
duel matches it created beforehand on its node (client i uses node i mod n), submitting as fast as the
replies come, for a fixed time. Each figure is the median of the runs. `python -m bench.nodes [--quick]`.

Needs the PostgreSQL of the tests (MATCHSERVER_TEST_POSTGRES, default host=127.0.0.1 port=5432
user=postgres dbname=test); each run uses a fresh schema, dropped afterwards.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event as EventType
from pathlib import Path

import psycopg

from bench.figures import Figure, table
from clients.client import MatchClient, Subscription

DSN = os.environ.get("MATCHSERVER_TEST_POSTGRES", "host=127.0.0.1 port=5432 user=postgres dbname=test")
# The server program with the duel fixture game registered (the real `matchserver` knows only real games).
SERVER = (
    "import sys; from engine import registry; from engine.fixtures import duel; registry.register(duel.GAME); "
    "from server.main import main; main(sys.argv[1:])"
)
ROUNDS = 3  # a duel match: 3 rounds, 2 submissions each


@dataclass
class Node:
    process: subprocess.Popen[str]
    address: str
    admin_token: str


@contextmanager
def fresh_schema() -> Iterator[str]:
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(DSN, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"postgres:{DSN} schema={schema}"
    finally:
        with psycopg.connect(DSN, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def start_node(folder: Path, name: str, store: str, key: Path) -> Node:
    var = folder / name
    command = [sys.executable, "-c", SERVER, "--address", "127.0.0.1:0", "--var", str(var), "--store", store]
    command += ["--chain-key-file", str(key)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MATCHSERVER_")}
    with (folder / f"{name}.log").open("w") as log:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"listening on (\S+)", line)
    if not found:
        process.kill()
        raise RuntimeError(f"node {name} did not start: {(folder / f'{name}.log').read_text()[-2000:]}")
    return Node(process, found.group(1), (var / "admin.token").read_text().strip())


@contextmanager
def cluster(folder: Path, store: str, count: int) -> Iterator[list[Node]]:
    folder.mkdir(parents=True, exist_ok=True)
    key = folder / "chain.key"
    key.write_text(uuid.uuid4().hex * 2)
    key.chmod(0o600)
    nodes: list[Node] = []
    try:
        for index in range(count):  # one after the other: the first creates the tables
            nodes.append(start_node(folder, f"node{index}", store, key))
        yield nodes
    finally:
        for node in nodes:
            node.process.terminate()
            node.process.wait(30)


def client_process(
    address: str, admin_token: str, matches: int, go: EventType, seconds: float, out: Queue[int]
) -> None:
    """Create `matches` duels on one node, wait for `go`, then submit as fast as replies come for `seconds`."""
    with MatchClient(address, host_credential=admin_token) as client:
        seated = []
        for _ in range(matches):
            created = client.create("duel", ["ann", "bob"], seed=1)
            seated.append(
                (created.match_id, client.join(created.match_id, "ann"), client.join(created.match_id, "bob"))
            )
        out.put(0)  # ready
        go.wait()
        submits = 0
        stop = time.monotonic() + seconds
        for match_id, ann, bob in seated:
            for _round in range(ROUNDS):
                for token in (ann, bob):
                    if time.monotonic() >= stop:
                        out.put(submits)
                        return
                    client.submit(match_id, token, text="pick 2")
                    submits += 1
        out.put(submits)  # ran out of matches before the time: the rate is still submits / seconds taken


def submits_per_second(nodes: list[Node], clients: int, seconds: float, matches_each: int) -> float:
    spawn = multiprocessing.get_context("spawn")  # gRPC channels must not cross a fork
    go = spawn.Event()
    out: Queue[int] = spawn.Queue()
    workers = [
        spawn.Process(
            target=client_process,
            args=(nodes[i % len(nodes)].address, nodes[i % len(nodes)].admin_token, matches_each, go, seconds, out),
        )
        for i in range(clients)
    ]
    for worker in workers:
        worker.start()
    for _ in workers:
        out.get(timeout=300)  # every client has its matches
    started = time.monotonic()
    go.set()
    total = sum(out.get(timeout=seconds + 120) for _ in workers)
    elapsed = min(time.monotonic() - started, seconds)
    for worker in workers:
        worker.join(60)
    return total / elapsed


def read_into(stream: Subscription, arrived: dict[int, float]) -> None:
    try:
        for update in stream:
            arrived[update.event.version] = time.perf_counter()
    except Exception:
        return  # cancelled


def cross_node_delivery_ms(nodes: list[Node], samples: int) -> tuple[float, float]:
    """p50 ms from sending a submit to the first node until its update shows on a stream on the last node,
    and the same with the stream on the first node (the floor: the submit itself and a same-node delivery)."""
    writer = MatchClient(nodes[0].address, host_credential=nodes[0].admin_token)
    out = []
    for reader_node in (nodes[-1], nodes[0]):
        reader = MatchClient(reader_node.address, host_credential=reader_node.admin_token)
        delays: list[float] = []
        while len(delays) < samples:
            created = writer.create("duel", ["ann", "bob"], seed=1)
            ann, bob = (writer.join(created.match_id, p) for p in ("ann", "bob"))
            version = writer.state(created.match_id, created.host_token).version
            stream = reader.subscribe(created.match_id, created.host_token, from_version=version - 1)
            next(stream)  # the reader's node holds the match now
            arrived: dict[int, float] = {}
            thread = threading.Thread(target=read_into, args=(stream, arrived), daemon=True)
            thread.start()
            for _round in range(ROUNDS):
                for token in (ann, bob):
                    sent = time.perf_counter()
                    reply = writer.submit(created.match_id, token, text="pick 2")
                    give_up = sent + 30
                    while reply.version not in arrived and time.perf_counter() < give_up:
                        time.sleep(0.0002)
                    delays.append(arrived.get(reply.version, give_up) - sent)
            stream.cancel()
            thread.join(10)
        reader.close()
        out.append(statistics.median(delays) * 1000)
    writer.close()
    return out[0], out[1]


def run(quick: bool) -> list[Figure]:
    clients = 4 if quick else 8
    seconds = 2.0 if quick else 5.0
    repeats = 1 if quick else 3
    matches_each = 40 if quick else 100
    one: list[float] = []
    two: list[float] = []
    cross: list[float] = []
    same: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        for repeat in range(repeats):
            for count, rates in ((1, one), (2, two)):
                with fresh_schema() as store, cluster(Path(folder) / f"r{repeat}n{count}", store, count) as nodes:
                    rates.append(submits_per_second(nodes, clients, seconds, matches_each))
                    if count == 2:
                        far, near = cross_node_delivery_ms(nodes, 12 if quick else 30)
                        cross.append(far)
                        same.append(near)
    note = f"duel, {clients} client processes, {seconds:g} s, median of {repeats}; 2-core machine shared by all"
    return [
        Figure(
            f"PostgreSQL submits/s, 2 nodes ({clients} clients)",
            statistics.median(two),
            "submits/s",
            ceiling=statistics.median(one),
            ceiling_name="the same through 1 node",
            note=note,
        ),
        Figure(
            "PostgreSQL update to a stream on the other node, p50",
            statistics.median(cross),
            "ms",
            ceiling=statistics.median(same),
            ceiling_name="the same with the stream on the writing node",
            better="lower",
            note="from sending a submit to its update on a Subscribe (LISTEN/NOTIFY, server/notify.py)",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(table(run(args.quick)))


if __name__ == "__main__":
    main()
