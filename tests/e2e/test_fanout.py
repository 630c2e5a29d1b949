"""Fan-out computed once: each update is built (and serialized) once per viewer class (the host, each
player, the spectators) and shared by every stream of that class, never given to another class; a
reader that stops taking updates holds one update, not a queue, and the shared updates stay within
their bound."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.client import MatchClient
from matchserver.v1 import matchserver_pb2 as pb
from server.app import Settings
from server.fanout import FanoutStats
from server.streams import StreamLimits
from tests.support import storefile
from tests.support.duel import seat_duel
from tests.support.server import ServerThread
from tests.support.waiting import wait_until


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerThread]:
    running = ServerThread(Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"), tick_interval=0.05)).start()
    yield running
    running.stop()


def admin_of(server: ServerThread) -> str:
    return (Path(server.settings.var_dir) / "admin.token").read_text().strip()


def stats(server: ServerThread) -> FanoutStats:
    async def read() -> FanoutStats:
        assert server.running is not None
        current = server.running.matches.streams.updates.stats
        return FanoutStats(current.builds, current.reuses)

    return server.run(read())


class Follower:
    """One stream read on its own thread: every update it received, in order."""

    def __init__(self, client: MatchClient, match_id: str, token: str | None) -> None:
        self.stream = client.subscribe(match_id, token)
        self.updates: list[pb.SubscribeResponse] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for update in self.stream:
                self.updates.append(update)
        except Exception:  # cancelled at the end of the test
            return

    def at(self, version: int) -> bool:
        return bool(self.updates) and self.updates[-1].event.version >= version

    def update(self, version: int) -> pb.SubscribeResponse:
        return next(update for update in self.updates if update.event.version == version)

    def close(self) -> None:
        self.stream.cancel()
        self.thread.join(30)


def follow_all(followers: list[Follower], version: int) -> None:
    wait_until(lambda: all(follower.at(version) for follower in followers), f"every stream received version {version}")


def test_one_update_is_built_once_per_viewer_class_however_many_streams_follow_it(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=11)
    classes = {
        "spectators": [Follower(client, match_id, None) for _ in range(5)],
        "ann": [Follower(client, match_id, ann) for _ in range(3)],
        "host": [Follower(client, match_id, host), Follower(client, match_id, admin_of(server))],  # one class
    }
    followers = [follower for streams in classes.values() for follower in streams]
    version = client.state(match_id).version
    follow_all(followers, version)

    before = stats(server)
    one = client.submit(match_id, bob, text="pick 2")  # one record: bob's sealed pick
    assert one.version == version + 1
    follow_all(followers, one.version)
    after = stats(server)
    assert after.builds - before.builds == len(classes)  # 10 streams, 3 classes: 3 builds
    assert after.reuses - before.reuses == len(followers) - len(classes)

    three = client.submit(match_id, ann, text="pick 3")  # ann's pick, the round resolved, the next opened
    assert three.version == one.version + 3
    follow_all(followers, three.version)
    final = stats(server)
    assert final.builds - after.builds == len(classes) * 3  # each version once per class
    for streams in classes.values():  # and the streams of a class received the very same bytes
        for version_ in range(one.version, three.version + 1):
            assert len({streams_.update(version_).SerializeToString() for streams_ in streams}) == 1
    for follower in followers:
        follower.close()
    client.close()


def test_a_shared_update_never_reaches_another_viewer_class(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=12)
    # Several streams per class, opened in an interleaved order, so that whichever stream builds first,
    # the others of every class wake beside it.
    tokens = {"host": host, "ann": ann, "bob": bob, "spectator": None}
    followers = {name: [Follower(client, match_id, token) for _ in range(2)] for name, token in tokens.items()}
    everyone = [follower for streams in followers.values() for follower in streams]
    follow_all(everyone, client.state(match_id).version)

    picked = client.submit(match_id, bob, text="pick 3").version  # sealed: bob and the host only
    follow_all(everyone, picked)
    for name, streams in followers.items():
        for follower in streams:
            update = follower.update(picked)
            record = json.loads(update.event.json)
            view = json.loads(update.view_json)
            sees = name in ("host", "bob")
            sealed = {"type": "Picked", "player": "bob"}
            assert record["event"] == ({**sealed, "number": 3} if sees else sealed), name
            assert view["my_picks"] == ({"bob": 3} if sees else {}), name
            assert ("command" in record["cause"]) == sees, name  # the command: its author and the host
            assert view == json.loads(streams[-1].update(picked).view_json)  # the same within the class
    resolved = client.submit(match_id, ann, text="pick 1").version  # the round resolves: both picks public
    follow_all(everyone, resolved)
    host_view = json.loads(followers["host"][0].update(resolved).view_json)
    for name in ("ann", "bob", "spectator"):
        for follower in followers[name]:
            assert json.loads(follower.update(resolved).view_json)["my_picks"] == {}  # a new round: nothing sealed
    assert host_view["round"] == 2
    for follower in everyone:
        follower.close()
    client.close()


@pytest.mark.slow
def test_a_reader_that_stops_taking_updates_holds_one_update_and_the_shared_ones_stay_bounded(
    tmp_path: Path,
) -> None:
    cache = 64 * 1024
    settings = Settings(
        address="127.0.0.1:0",
        var_dir=str(tmp_path / "var"),
        tick_interval=0.05,
        streams=StreamLimits(write_timeout=60, update_cache_bytes=cache),
    )
    server = ServerThread(settings).start()
    client = server.client()
    match_id = client.create("mining", ["a", "b", "c", "d", "e"], seed=6).match_id  # a view of some size
    admin = admin_of(server)
    stalled = client.subscribe(match_id, admin)  # read once, then never again
    assert next(stalled).event.version == 1

    def stream_state() -> tuple[int, int, float, int]:
        async def read() -> tuple[int, int, float, int]:
            assert server.running is not None
            streams = server.running.matches.streams
            (stream,) = streams._all()
            return stream.sent, stream.writing, streams.updates.held_bytes, streams.updates.stats.builds

        return server.run(read())

    writes = version = 1
    while True:  # until the stream is far behind and its write waits: its reader's window is full
        sent, writing, held, builds = stream_state()
        if version - sent >= 200 and writing > 0:
            break
        version = client.join_match(match_id, "e", admin, reissue=True).version  # one more update each
        writes += 1
        assert writes < 20_000, "the stream never had to wait for its reader"
    assert 0 < writing < cache  # what it holds is one update in gRPC's hands, not the versions behind it
    assert builds > version - sent and held <= cache  # shared updates stay within update_cache_bytes
    received = [1]
    while received[-1] < version:  # the reader takes up again and misses nothing
        received.append(next(stalled).event.version)
    assert received == list(range(1, version + 1))
    stalled.cancel()
    client.close()
    server.stop()


def test_a_quarantined_match_ends_its_streams_and_its_shared_updates_are_dropped(server: ServerThread) -> None:
    client = server.client()
    damaged, host, _ann, _ = seat_duel(client, seed=13)
    healthy, *_ = seat_duel(client, seed=14)
    followers = [Follower(client, damaged, None), Follower(client, healthy, None)]
    follow_all(followers[:1], client.state(damaged).version)
    follow_all(followers[1:], client.state(healthy).version)

    def held() -> dict[str, int]:
        async def read() -> dict[str, int]:
            assert server.running is not None
            keys = list(server.running.matches.streams.updates._held)
            return {match: sum(str(key[0]) == match for key in keys) for match in (damaged, healthy)}

        return server.run(read())

    assert held()[damaged] > 0 and held()[healthy] > 0
    storefile.overwrite(Path(server.settings.var_dir) / "matches.db", damaged, 2, b'{"record": {"kind": "jo')
    assert not client.verify(damaged, host).ok  # finds the damage and sets the match aside
    wait_until(lambda: not followers[0].thread.is_alive(), "the damaged match's stream ended")
    assert held() == {damaged: 0, healthy: held()[healthy]} and held()[healthy] > 0  # a restored store may differ
    for follower in followers:
        follower.close()
    client.close()
