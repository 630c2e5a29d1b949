"""SIGTERM on the real `matchserver` process: streams end with the resume trailer, every acknowledged
write is in the store after a restart, the process exits 0, and a client's stream resumes across it."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from clients.client import RESUME_FROM, MatchClient
from matchserver.v1 import matchserver_pb2 as pb
from tests.support.process import MATCHSERVER, WAIT, child_env, start_process
from tests.support.process import ServerProcess as Server
from tests.support.streams import ended
from tests.support.waiting import wait_until

SEATS = ["a", "b", "c", "d", "e"]


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    started: list[Server] = []

    def start_server(port: int = 0) -> Server:
        started.append(start_process(tmp_path / "var", tmp_path / f"server-{len(started)}.log", port))
        return started[-1]

    yield start_server
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait(WAIT)


def create(client: MatchClient, admin: str, seed: int) -> pb.CreateMatchResponse:
    """Create a match as the admin."""
    request = pb.CreateMatchRequest(game="mining", players=SEATS, seed=seed)
    reply: pb.CreateMatchResponse = client.stub.CreateMatch(request, metadata=client._auth(admin), timeout=WAIT)
    return reply


def join(client: MatchClient, match_id: str, seat: str, admin: str) -> int:
    """(Re-)issue a seat's token as the admin; the version the server acknowledged."""
    request = pb.JoinMatchRequest(match_id=match_id, player=seat, reissue=True)
    reply: pb.JoinMatchResponse = client.stub.JoinMatch(request, metadata=client._auth(admin), timeout=WAIT)
    return reply.version


def follow(stream: Iterable[pb.SubscribeResponse], into: list[int]) -> None:
    try:
        into.extend(update.event.version for update in stream)
    except grpc.RpcError as exc:
        code = exc.code()
    else:
        return
    assert code == grpc.StatusCode.CANCELLED  # by the test, at its end


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_ends_every_stream_with_the_resume_trailer_and_exits_0(
    start: Callable[..., Server], signum: signal.Signals
) -> None:
    server = start()
    admin = server.admin_token()
    client = MatchClient(server.address)
    first, second = create(client, admin, seed=1), create(client, admin, seed=2)
    join(client, first.match_id, "a", admin)
    streams = [
        (client.subscribe(first.match_id, resume=False), first.match_id),
        (client.subscribe(first.match_id, admin, resume=False), first.match_id),
        (client.subscribe(second.match_id, resume=False), second.match_id),
    ]
    versions = {match_id: client.state(match_id).version for match_id in (first.match_id, second.match_id)}
    for stream, match_id in streams:
        assert [next(stream).event.version for _ in range(versions[match_id])] == list(range(1, versions[match_id] + 1))
    assert server.stop(signum) == 0
    for stream, match_id in streams:
        rest, error = ended(stream)
        assert rest == []
        assert error.code() == grpc.StatusCode.UNAVAILABLE and f"shutting down ({signum.name})" in (
            error.details() or ""
        )
        assert dict(error.trailing_metadata() or ())[RESUME_FROM] == str(versions[match_id])
    log = server.log.read_text()
    assert f"{signum.name} received" in log and "3 streams ended with a resume trailer" in log
    client.close()


@dataclass
class Player:
    """One client thread: creates matches and (re-)issues their seats until the server goes away."""

    address: str
    admin: str
    seed: int
    created: list[str] = field(default_factory=list)
    joined: list[tuple[str, str, int]] = field(default_factory=list)  # (match, seat, version acknowledged)
    failed: list[str] = field(default_factory=list)

    def run(self) -> None:
        client = MatchClient(self.address, timeout=WAIT)
        try:
            for round_ in range(10_000):
                match_id = create(client, self.admin, seed=self.seed * 10_000 + round_).match_id
                self.created.append(match_id)
                for seat in SEATS * 2:  # each seat twice: the admin re-issues a claimed seat
                    self.joined.append((match_id, seat, join(client, match_id, seat, self.admin)))
        except grpc.RpcError as exc:
            self.failed.append(f"{exc.code().name}: {exc.details()}")
        finally:
            client.close()


@pytest.mark.slow
def test_sigterm_during_load_keeps_every_acknowledged_write_and_exits_0(start: Callable[..., Server]) -> None:
    server = start()
    admin = server.admin_token()
    players = [Player(server.address, admin, seed) for seed in range(4)]
    threads = [threading.Thread(target=player.run) for player in players]
    for thread in threads:
        thread.start()
    wait_until(lambda: sum(len(player.joined) for player in players) >= 40, "the load got going")
    assert server.stop() == 0
    for thread in threads:
        thread.join(WAIT)
    assert all(player.failed for player in players), "a client kept writing after the shutdown"
    failures = [failure for player in players for failure in player.failed]
    # Refused (UNAVAILABLE), or accepted by gRPC but not yet handed to a handler when the shutdown began
    # (gRPC core cancels those: CANCELLED). Neither ran, so neither wrote; the store check below shows it.
    assert all(failure.split(":")[0] in ("UNAVAILABLE", "CANCELLED") for failure in failures), failures
    log = server.log.read_text()
    assert re.search(r"\d+ unary calls were in flight, 0 of them cut", log), log

    restarted = start()
    client = MatchClient(restarted.address, host_credential=admin)
    created = [match_id for player in players for match_id in player.created]
    stored = {summary.match_id for summary in client.list_matches()}
    assert stored == set(created)  # every acknowledged create, and no create its client saw fail
    for match_id in created:
        history = client.history(match_id, admin)
        joins = {(event.version, json.loads(event.json)["player"]) for event in history if event.kind == "joined"}
        acknowledged = {(version, seat) for player in players for m, seat, version in player.joined if m == match_id}
        assert joins == acknowledged  # every acknowledged join is stored; none its client saw fail is
    assert restarted.stop() == 0
    client.close()


@pytest.mark.slow
def test_a_subscription_resumes_across_a_restart_on_the_same_port(start: Callable[..., Server]) -> None:
    server = start()
    admin = server.admin_token()
    client = MatchClient(server.address)
    match_id = create(client, admin, seed=3).match_id
    resumed: list[tuple[int, str]] = []
    stream = client.subscribe(match_id, admin, on_resume=lambda at, why: resumed.append((at, why)))
    received = [next(stream).event.version]
    reading = threading.Thread(target=follow, args=(stream, received))
    reading.start()
    join(client, match_id, "a", admin)
    assert server.stop() == 0
    port = int(server.address.rsplit(":", 1)[1])
    restarted = start(port)
    grpc.channel_ready_future(client.channel).result(WAIT)  # our unary calls do not wait for a reconnect
    for seat in SEATS:
        join(client, match_id, seat, admin)  # the same client, reconnected to the new process
    final = client.state(match_id, admin).version
    wait_until(lambda: received and received[-1] >= final, f"the stream resumed to {final}: {received}, {resumed}")
    stream.cancel()
    reading.join(WAIT)
    assert received == list(range(1, final + 1))  # no gap, no duplicate
    assert resumed and "shutting down" in resumed[0][1]
    assert restarted.stop() == 0
    client.close()


@pytest.mark.slow
def test_a_second_server_cannot_take_a_port_in_use(start: Callable[..., Server], tmp_path: Path) -> None:
    """gRPC would share the port (SO_REUSEPORT) and clients would reach either server at random."""
    server = start()
    command = [str(MATCHSERVER), "--address", server.address, "--var", str(tmp_path / "other")]
    second = subprocess.run(command, capture_output=True, text=True, env=child_env(), timeout=WAIT)
    assert second.returncode != 0 and "listening" not in second.stdout
    assert f"cannot listen on {server.address}" in second.stderr
    assert server.stop() == 0
