"""Subscribe streams the server ends on purpose: revocation, the per-match cap, their age, a slow reader.
Each ends with the `matchserver-resume-from` trailer; MatchClient.subscribe resumes where it allows."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest

from clients import cli
from clients.bots import bot_names, get_bot
from clients.client import KEEPALIVE_TIME_MS, RESUME_FROM, Subscription
from clients.play import BotSeat, play
from server.app import ConnectionLimits, Settings
from server.records import token_hash
from server.startup import EXCLUSIVE_PORT_OPTIONS
from server.streams import StreamLimits
from tests.support.duel import seat_duel
from tests.support.server import ServerThread
from tests.support.streams import ended
from tests.support.waiting import wait_until

WAIT = 30.0  # generous: the suite must pass on two loaded cores


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[[StreamLimits], ServerThread]]:
    started: list[ServerThread] = []

    def start_with(limits: StreamLimits) -> ServerThread:
        settings = Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"), tick_interval=0.05, streams=limits)
        started.append(ServerThread(settings).start())
        return started[-1]

    yield start_with
    for server in started:
        server.stop()


def admin_of(server: ServerThread) -> str:
    return (Path(server.settings.var_dir) / "admin.token").read_text().strip()


def open_streams(server: ServerThread) -> int:
    async def count() -> int:
        assert server.running is not None
        return server.running.matches.streams.count()

    return server.run(count())


def resume_from(error: grpc.RpcError) -> int:
    return int(dict(error.trailing_metadata() or ())[RESUME_FROM])


def test_revoking_a_credential_ends_only_its_streams_unauthenticated_with_the_trailer(
    start: Callable[[StreamLimits], ServerThread],
) -> None:
    server = start(StreamLimits())
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=3)
    version = client.state(match_id, host).version
    streams = {name: client.subscribe(match_id, token) for name, token in (("ann", ann), ("bob", bob), ("all", None))}
    for stream in streams.values():
        assert [next(stream).event.version for _ in range(version)] == list(range(1, version + 1))

    async def revoke() -> int:
        assert server.running is not None
        return server.running.matches.streams.end_credential(token_hash(ann), "a new token was issued for ann")

    assert server.run(revoke()) == 1
    versions, error = ended(streams["ann"])  # the resuming client raises: it must not come back as ann
    assert versions == []
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "revoked" in (error.details() or "") and "a new token was issued for ann" in (error.details() or "")
    assert resume_from(error) == version
    client.submit(match_id, bob, text="pick 2")  # the others still follow the match
    assert next(streams["bob"]).event.version == version + 1
    assert next(streams["all"]).event.version == version + 1
    for stream in streams.values():
        stream.cancel()
    wait_until(lambda: open_streams(server) == 0, "every stream is closed")
    client.close()


def test_a_match_holds_at_most_max_per_match_spectator_streams_and_the_next_is_resource_exhausted(
    start: Callable[[StreamLimits], ServerThread],
) -> None:
    server = start(StreamLimits(max_per_match=2))
    client = server.client()
    match_id, *_ = seat_duel(client, seed=3)
    other, *_ = seat_duel(client, seed=4)
    first, second = client.subscribe(match_id), client.subscribe(match_id)
    assert next(first).event.version == next(second).event.version == 1
    versions, error = ended(client.subscribe(match_id, resume=False))
    assert versions == [] and error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "StreamLimits.max_per_match=2" in (error.details() or "")
    elsewhere = client.subscribe(other)  # the cap is per match
    assert next(elsewhere).event.version == 1
    first.cancel()
    wait_until(lambda: open_streams(server) == 2, "the cancelled stream is closed")
    third = client.subscribe(match_id)
    assert next(third).event.version == 1
    for stream in (second, third, elsewhere):
        stream.cancel()
    client.close()


def test_spectators_filling_a_match_never_lock_out_its_seats_or_its_host(
    start: Callable[[StreamLimits], ServerThread],
) -> None:
    # The adversary: an anonymous spectator who opens every spectator place of a match.
    server = start(StreamLimits(max_per_match=3))
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=3)
    squatters = [client.subscribe(match_id) for _ in range(3)]
    assert all(next(stream).event.version == 1 for stream in squatters)
    _, refused = ended(client.subscribe(match_id, resume=False))
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    seats = {name: client.subscribe(match_id, token) for name, token in (("host", host), ("ann", ann), ("bob", bob))}
    assert all(next(stream).event.version == 1 for stream in seats.values())
    for stream in squatters + list(seats.values()):
        stream.cancel()
    client.close()


def test_one_address_holds_at_most_max_per_peer_spectator_streams_across_matches(
    start: Callable[[StreamLimits], ServerThread],
) -> None:
    server = start(StreamLimits(max_per_match=100, max_per_peer=2))
    client = server.client()
    match_id, _, ann, _ = seat_duel(client, seed=3)
    other, *_ = seat_duel(client, seed=4)
    squatters = [client.subscribe(match_id), client.subscribe(other)]
    assert all(next(stream).event.version == 1 for stream in squatters)
    _, refused = ended(client.subscribe(other, resume=False))
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "StreamLimits.max_per_peer=2" in (refused.details() or "")
    seat = client.subscribe(match_id, ann)  # a seat has its own place, whatever its address holds
    assert next(seat).event.version == 1
    for stream in [*squatters, seat]:
        stream.cancel()
    client.close()


def test_one_credential_holds_at_most_max_per_credential_streams_of_a_match(
    start: Callable[[StreamLimits], ServerThread],
) -> None:
    server = start(StreamLimits(max_per_credential=2))
    client = server.client()
    match_id, _, ann, bob = seat_duel(client, seed=3)
    own = [client.subscribe(match_id, ann), client.subscribe(match_id, ann)]
    assert all(next(stream).event.version == 1 for stream in own)
    _, refused = ended(client.subscribe(match_id, ann, resume=False))
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "StreamLimits.max_per_credential=2" in (refused.details() or "")
    assert next(client.subscribe(match_id, bob)).event.version == 1  # another seat is not affected
    for stream in own:
        stream.cancel()
    client.close()


def test_a_subscription_refused_for_want_of_a_place_asks_again_until_one_is_free(
    start: Callable[[StreamLimits], ServerThread],
) -> None:
    server = start(StreamLimits(max_per_match=1))
    client = server.client()
    match_id, *_ = seat_duel(client, seed=3)
    squatter = client.subscribe(match_id)
    assert next(squatter).event.version == 1
    waiting = client.subscribe(match_id)  # refused for now: it asks again, backing off
    got: list[int] = []
    reader = threading.Thread(target=lambda: got.append(next(waiting).event.version), daemon=True)
    reader.start()
    wait_until(lambda: server.run(_refusals(server)) >= 1 or bool(got), "the second stream is refused once")
    assert got == []
    squatter.cancel()
    reader.join(WAIT)
    assert got == [1]
    waiting.cancel()
    client.close()


async def _refusals(server: ServerThread) -> int:
    """How many Subscribe calls the server has refused for want of a place (its registry's count)."""
    assert server.running is not None
    return server.running.matches.streams.refused


@pytest.mark.slow
def test_a_stream_at_its_maximum_age_ends_with_the_trailer_and_the_client_resumes_without_gap_or_duplicate(
    start: Callable[[StreamLimits], ServerThread],
) -> None:
    server = start(StreamLimits(max_age=0.2))
    client = server.client()
    match_id, _host, ann, bob = seat_duel(client, seed=5)
    version = client.state(match_id).version
    versions, error = ended(client.subscribe(match_id, resume=False))
    assert versions == list(range(1, version + 1))
    assert error.code() == grpc.StatusCode.UNAVAILABLE and "StreamLimits.max_age" in (error.details() or "")
    assert resume_from(error) == version

    resumed: list[tuple[int, str]] = []
    stream = client.subscribe(match_id, on_resume=lambda at, why: resumed.append((at, why)))
    received: list[int] = []
    finished = threading.Event()

    def follow() -> None:
        for update in stream:
            received.append(update.event.version)
            if update.status.finished:
                finished.set()
                return

    follower = threading.Thread(target=follow)
    follower.start()
    for round_ in range(3):  # play the match out while the stream is ended and resumed under it
        wait_until(lambda: len(resumed) > round_, f"the stream was resumed {round_ + 1} times")  # noqa: B023
        client.submit(match_id, ann, text="pick 1")
        client.submit(match_id, bob, text="pick 2")
    assert finished.wait(WAIT)
    follower.join(WAIT)
    final = client.state(match_id).version
    assert received == list(range(1, final + 1))
    assert len(resumed) >= 3 and all("StreamLimits.max_age" in why for _, why in resumed)
    client.close()


@pytest.mark.slow
def test_a_reader_that_stops_taking_updates_is_ended_with_the_trailer_and_resumes_from_it(
    start: Callable[[StreamLimits], ServerThread],
) -> None:
    server = start(StreamLimits(write_timeout=0.5))
    client = server.client()
    match_id = client.create("mining", ["a", "b", "c", "d", "e"], seed=6).match_id  # a view of some size
    admin = admin_of(server)
    stream = client.subscribe(match_id, admin)
    assert isinstance(stream, Subscription) and next(stream).event.version == 1
    writes = 0
    while open_streams(server) and writes < 20_000:  # until the stream's flow-control window is full
        client.join(match_id, "e", admin, reissue=True)  # each (re-)issue of e's token is one more update
        writes += 1
    assert open_streams(server) == 0, "the server never gave up on the reader"
    final = client.state(match_id, admin).version
    received = [1]
    while received[-1] < final:  # reads what was sent, then resumes after the trailer
        received.append(next(stream).event.version)
    assert received == list(range(1, final + 1))
    assert stream.resumes >= 1
    stream.cancel()
    client.close()


def test_the_client_pings_no_more_often_than_the_server_permits() -> None:
    limits = ConnectionLimits()
    assert limits.keepalive_permit_without_calls  # our client pings idle connections too
    assert limits.min_ping_interval_without_data_ms <= KEEPALIVE_TIME_MS
    assert ("grpc.so_reuseport", 0) in EXCLUSIVE_PORT_OPTIONS  # one server per port (server.startup)


def test_connection_limits_reach_the_grpc_options_with_the_documented_defaults() -> None:
    """What docs/SECURITY.md promises of connections; enforcing them is gRPC's own work."""
    options = dict(ConnectionLimits().options())
    assert options["grpc.max_concurrent_streams"] == 100
    assert options["grpc.max_connection_idle_ms"] == 15 * 60_000
    assert options["grpc.max_connection_age_ms"] == 60 * 60_000
    assert options["grpc.max_connection_age_grace_ms"] == 5 * 60_000
    limits = ConnectionLimits(max_concurrent_streams=7, max_connection_idle_ms=1_000)
    assert dict(limits.options())["grpc.max_concurrent_streams"] == 7  # a setting, not a constant
    assert dict(limits.options())["grpc.max_connection_idle_ms"] == 1_000


def end_all_streams(server: ServerThread) -> int:
    async def end() -> int:
        assert server.running is not None
        return server.running.matches.streams.end_all("a test")

    return server.run(end())


def test_matchctl_watch_resumes_when_the_server_ends_its_stream(
    start: Callable[[StreamLimits], ServerThread], capsys: pytest.CaptureFixture[str]
) -> None:
    server = start(StreamLimits())
    client = server.client()
    match_id, _host, ann, bob = seat_duel(client, seed=7)
    args = ["--server", server.address, "--var", server.settings.var_dir, "watch", match_id, "--as", "spectator"]
    codes: list[int] = []
    watch = threading.Thread(target=lambda: codes.append(cli.main([*args, "--until-finished"])))
    watch.start()
    wait_until(lambda: open_streams(server) == 1, "watch is following the match")
    out = err = ""
    while len(out.splitlines()) < 4:  # the match so far (versions 1-4) reached watch: end its stream now
        wait_until(lambda: watch.is_alive(), "watch is still running")
        captured = capsys.readouterr()
        out, err = out + captured.out, err + captured.err
        time.sleep(0.01)
    assert end_all_streams(server) == 1
    while "resumed" not in err:
        wait_until(lambda: watch.is_alive(), "watch is still running")
        captured = capsys.readouterr()
        out, err = out + captured.out, err + captured.err
        time.sleep(0.01)
    for _ in range(3):
        client.submit(match_id, ann, text="pick 2")
        client.submit(match_id, bob, text="pick 1")
    watch.join(WAIT)
    out += capsys.readouterr().out
    lines = out.splitlines()
    assert codes == [0] and "Finished" in lines[-1]
    assert [int(line.split()[0]) for line in lines] == list(range(1, len(lines) + 1))  # no gap, no duplicate
    assert "shutting down (a test)" in err and "resumed after version 4" in err
    client.close()


def test_the_bot_loop_carries_on_when_the_server_ends_its_stream(start: Callable[[StreamLimits], ServerThread]) -> None:
    server = start(StreamLimits())
    client = server.client()
    players = ["a", "b", "c", "d", "e"]
    created = client.create("mining", players, seed=8)
    rng = random.Random(8)
    seats = {
        player: BotSeat(player, client.join(created.match_id, player), get_bot("mining", bot_names("mining")[0]), rng)
        for player in players
    }
    lines: list[str] = []

    def log(line: str) -> None:
        lines.append(line)
        if len(lines) == 1:  # end the loop's own stream under its feet
            wait_until(lambda: open_streams(server) == 1, "the bot loop follows the match")
            assert end_all_streams(server) == 1

    final = play(client, created.match_id, created.host_token, seats, log=log)
    assert final.status.finished
    assert any(line.startswith("-- the stream resumed") and "shutting down (a test)" in line for line in lines)
    client.close()
