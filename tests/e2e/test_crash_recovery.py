"""kill -9 under load: 20 clients write with request ids they choose; the real `matchserver` process is
killed with SIGKILL after a seeded number of acknowledgements and restarted on the same port and data
folder, five times; each client sends its unacknowledged request again (the same id, the same body)
until it is acknowledged. At the end every acknowledged (match, version, receipt) is in the log, no
write landed twice, and `matchctl verify --all` exits 0.

The seed is printed as the test starts (without -s too) and is in every assertion message; set
MATCHSERVER_CRASH_SEED to run the same kill points (acknowledgement counts) again; the interleaving of
the clients is up to the scheduler."""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest

from clients import cli
from clients.client import MatchClient
from matchserver.v1 import matchserver_pb2 as pb
from tests.support.process import WAIT, ServerProcess, start_process

SEED_ENV = "MATCHSERVER_CRASH_SEED"
CLIENTS = 20
CYCLES = 5  # kill -9 and restart, this many times
KILL_AFTER = (30, 150)  # acknowledgements before each kill: drawn from the seed in this range
WRITES_PER_MATCH = 8  # then the client creates its next match, so creates are retried across kills too
AFTER_LAST_RESTART = 3  # acknowledgements per client after the last restart before the clients stop
CALL_TIMEOUT = 20.0  # per attempt; an attempt that times out is sent again like an unavailable one
SEATS = ["a", "b", "c", "d", "e"]
RETRIED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)  # the outcome is unknown: resend


@dataclass(frozen=True)
class Ack:
    """One acknowledged write: the request it answered and what the server acknowledged."""

    client: str
    request_id: str
    match_id: str
    version: int
    receipt: pb.Receipt
    attempts: int  # 1: acknowledged on first sending; more: sent again after UNAVAILABLE or a timeout
    kind: str  # create, pause, resume, join


class Tally:
    """Acknowledgements counted across the clients; the test waits on it, never on time."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.acks = 0
        self.failures: list[str] = []

    def acknowledged(self) -> None:
        with self.condition:
            self.acks += 1
            self.condition.notify_all()

    def failed(self, why: str) -> None:
        with self.condition:
            self.failures.append(why)
            self.condition.notify_all()

    def wait_for(self, predicate: Callable[[], bool], timeout: float = WAIT) -> bool:
        with self.condition:
            return self.condition.wait_for(lambda: predicate() or bool(self.failures), timeout)


@dataclass
class Writer:
    """One client thread: creates mining matches and writes to them (pause, resume, a seat reissued),
    each write with a request id it chose, sent again unchanged until it is acknowledged."""

    name: str
    address: str
    admin: str
    seed: int
    tally: Tally
    stop: threading.Event
    deadline: float
    acks: list[Ack] = field(default_factory=list)
    sending: str = ""  # the request being sent, for a failure's message

    def run(self) -> None:
        client = MatchClient(self.address, timeout=CALL_TIMEOUT, host_credential=self.admin)
        metadata = [("authorization", f"Bearer {self.admin}")]
        try:
            number = 0
            match_id, written = "", WRITES_PER_MATCH
            while not self.stop.is_set():
                number += 1
                request_id = f"{self.name}-r{number}"
                if written == WRITES_PER_MATCH:
                    create = pb.CreateMatchRequest(
                        game="mining", players=SEATS, seed=self.seed * 1000 + number, request_id=request_id
                    )
                    reply, attempts = self.send(client.stub.CreateMatch, create, metadata)
                    match_id, written = reply.match_id, 0
                    self.acknowledge(request_id, match_id, reply, attempts, "create")
                    continue
                written += 1
                if written % 2:  # 1, 3, 5, 7: pause, resume, pause, resume (each fails if applied twice)
                    action = "pause" if written % 4 == 1 else "resume"
                    host = pb.HostActionRequest(match_id=match_id, action=action, reason="crash test")
                    host.request_id = request_id
                    reply, attempts = self.send(client.stub.HostAction, host, metadata)
                    self.acknowledge(request_id, match_id, reply, attempts, action)
                else:  # 2, 4, 6, 8: the admin fills a seat again (a second landing would add a record)
                    seat = SEATS[(written // 2 + number) % len(SEATS)]
                    join = pb.JoinMatchRequest(match_id=match_id, player=seat, reissue=True, request_id=request_id)
                    reply, attempts = self.send(client.stub.JoinMatch, join, metadata)
                    self.acknowledge(request_id, match_id, reply, attempts, "join")
        except grpc.RpcError as exc:
            self.tally.failed(f"{self.sending}: {exc.code().name}: {exc.details()}")
        except Exception as exc:  # anything else is a failure of the test's own, reported the same way
            self.tally.failed(f"{self.sending}: {type(exc).__name__}: {exc}")
        finally:
            client.close()

    def send(self, call: Any, request: Any, metadata: list[tuple[str, str]]) -> tuple[Any, int]:
        """Send until acknowledged: the same request (id and body) again after UNAVAILABLE or a timeout.
        wait_for_ready holds a sending until the server is back, so nothing spins while it is down."""
        attempts = 0
        while True:
            attempts += 1
            what = f"{type(request).__name__.removesuffix('Request')} {getattr(request, 'match_id', '')}".strip()
            self.sending = f"{self.name} {request.request_id} (attempt {attempts}): {what}"
            try:
                reply = call(request, metadata=metadata, timeout=CALL_TIMEOUT, wait_for_ready=True)
                return reply, attempts
            except grpc.RpcError as exc:
                if exc.code() not in RETRIED or time.monotonic() > self.deadline:
                    raise
                time.sleep(0.02)  # a pause before sending again, not a synchronisation

    def acknowledge(self, request_id: str, match_id: str, reply: Any, attempts: int, kind: str) -> None:
        receipt = pb.Receipt()
        receipt.CopyFrom(reply.receipt)
        self.acks.append(Ack(self.name, request_id, match_id, reply.version, receipt, attempts, kind))
        self.tally.acknowledged()


@pytest.fixture
def processes() -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    yield started
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait(WAIT)


@pytest.mark.slow
def test_kill_9_under_load_loses_no_acknowledged_write_and_applies_none_twice(
    tmp_path: Path, processes: list[ServerProcess], capsys: pytest.CaptureFixture[str]
) -> None:
    def say(line: str) -> None:
        with capsys.disabled():  # shown as it happens (capsys collects matchctl's output below)
            print(line, flush=True)

    seed = int(os.environ.get(SEED_ENV) or random.randrange(2**32))
    say(f"\ncrash recovery seed {seed} (replay the kill points: {SEED_ENV}={seed})")
    said = f"seed {seed} ({SEED_ENV}={seed} replays it)"
    rng = random.Random(seed)
    kill_after = [rng.randint(*KILL_AFTER) for _ in range(CYCLES)]
    var = tmp_path / "var"

    def start(port: int = 0) -> ServerProcess:
        processes.append(start_process(var, tmp_path / f"server-{len(processes)}.log", port))
        return processes[-1]

    server = start()
    address, port, admin = server.address, server.port, server.admin_token()
    tally, stop = Tally(), threading.Event()
    deadline = time.monotonic() + 3 * WAIT  # a bound on the clients' retries, not an expectation
    writers = [
        Writer(f"c{index}", address, admin, seed % 100_000 * 100 + index, tally, stop, deadline)
        for index in range(CLIENTS)
    ]
    threads = [threading.Thread(target=writer.run, name=writer.name) for writer in writers]
    for thread in threads:
        thread.start()
    try:
        for cycle, count in enumerate(kill_after, start=1):
            target = tally.acks + count
            tally.wait_for(lambda target=target: tally.acks >= target)
            assert not tally.failures, f"{said}, cycle {cycle}: {tally.failures}"
            assert tally.acks >= target, f"{said}, cycle {cycle}: only {tally.acks} of {target} acknowledgements"
            assert server.stop(signal.SIGKILL) == -signal.SIGKILL
            say(f"cycle {cycle}: killed after {tally.acks} acknowledgements")
            server = start(port)
        counts = [len(writer.acks) for writer in writers]
        enough = [count + AFTER_LAST_RESTART for count in counts]
        tally.wait_for(lambda: all(len(w.acks) >= n for w, n in zip(writers, enough, strict=True)))
    finally:
        stop.set()
        for thread in threads:
            thread.join(WAIT)
    assert not any(thread.is_alive() for thread in threads), f"{said}: a client never finished"
    assert not tally.failures, f"{said}: {tally.failures}"
    assert all(len(w.acks) >= n for w, n in zip(writers, enough, strict=True)), f"{said}: the load stalled"

    acks = [ack for writer in writers for ack in writer.acks]
    retried = [ack for ack in acks if ack.attempts > 1]
    say(f"{len(acks)} writes acknowledged, {len(retried)} of them after being sent again")
    assert retried, f"{said}: no request was in flight at any kill, so nothing was retried"

    client = MatchClient(address, timeout=WAIT, host_credential=admin)
    by_match: dict[str, list[Ack]] = {}
    for ack in acks:
        by_match.setdefault(ack.match_id, []).append(ack)
    stored = {summary.match_id for summary in client.list_matches()}
    assert stored == set(by_match), f"{said}: a create landed twice or was lost: {stored ^ set(by_match)}"
    for match_id, acked in by_match.items():
        created, writes = acked[0], acked[1:]
        assert created.kind == "create", f"{said}: {created}"
        # Each write appends one record: exactly once each, in order, means consecutive versions.
        expected = [created.version + offset for offset in range(1, len(writes) + 1)]
        assert [ack.version for ack in writes] == expected, f"{said}: match {match_id}: {acked}"
        assert client.state(match_id).version == created.version + len(writes), f"{said}: {match_id}"
        kinds = [event.kind for event in client.history(match_id, admin)[created.version :]]
        assert kinds == ["host" if ack.kind in ("pause", "resume") else "joined" for ack in writes], (
            f"{said}: {match_id}"
        )
        report = client.verify(match_id, admin, [ack.receipt for ack in acked])
        assert report.ok and report.receipts_checked == len(acked), f"{said}: match {match_id}: {report}"
    client.close()

    assert cli.main(["--server", address, "--var", str(var), "verify", "--all"]) == 0, said
    out = capsys.readouterr().out
    assert out.count(": OK (") == len(by_match), f"{said}: {out}"  # the matches (the streams say ": OK,")
    assert server.stop() == 0, f"{said}: {server.log.read_text()}"
