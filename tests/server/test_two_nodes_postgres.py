"""Two server nodes on one PostgreSQL store: other nodes' appends arrive by LISTEN/NOTIFY (server/notify.py).

Every node here refreshes cached matches from the store only every 60 s (Settings.refresh_every), so
whatever crosses from one node to the other within a test's 30 s was carried by a notification.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest

from clients.client import MatchClient, Subscription
from matchserver.v1 import matchserver_pb2 as pb
from server.app import Settings
from server.clock import ManualClock
from server.notify import ListenerSettings
from tests.conftest import postgres_url
from tests.support.duel import seat_duel
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres  # every test here needs a PostgreSQL (MATCHSERVER_TEST_POSTGRES)

POLL = 60.0  # the safety-net refresh: longer than any wait below
CROSSING = 30.0  # how long an append may take to reach the other node (a bound on a hang, not a speed)


def node(tmp_path: Path, url: str, clock: ManualClock) -> ServerThread:
    key = tmp_path / "chain.key"  # every node of one PostgreSQL store is given the same chain key
    if not key.exists():
        key.write_text("6" * 64)
        key.chmod(0o600)
    settings = Settings(
        address="127.0.0.1:0",
        var_dir=str(tmp_path / "var"),
        store=url,
        clock=clock,
        tick_interval=0.05,
        chain_key_file=str(key),
        refresh_every=POLL,
        # A dropped listening connection is found and made again in a fraction of a second (not 10 s).
        listener=ListenerSettings(ping_every=0.5, retry_first=0.05, retry_most=0.5),
    )
    return ServerThread(settings).start()


@dataclass
class Cluster:
    one: ServerThread
    two: ServerThread
    url: str
    tmp_path: Path

    def reader(self) -> ServerThread:
        """A third node, started now: what it serves was read from the store, not heard."""
        return node(self.tmp_path, self.url, ManualClock())


@pytest.fixture
def nodes(tmp_path: Path) -> Iterator[Cluster]:
    url = postgres_url()  # a fresh schema: these nodes see only this test's matches
    clock = ManualClock()  # no deadline passes unless a test moves the clock
    one = node(tmp_path, url, clock)
    two = node(tmp_path, url, clock)
    yield Cluster(one, two, url, tmp_path)
    one.stop()
    two.stop()


class Follower:
    """Reads a Subscription on a thread of its own, so a test can wait on what has arrived."""

    def __init__(self, subscription: Subscription) -> None:
        self.subscription = subscription
        self.updates: list[Any] = []
        self.error: grpc.RpcError | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for update in self.subscription:
                self.updates.append(update)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                self.error = exc

    def versions(self) -> list[int]:
        return [update.event.version for update in self.updates]

    def close(self) -> None:
        self.subscription.cancel()
        self.thread.join(10)


def follow(server: ServerThread, match_id: str, token: str, after: int) -> Follower:
    """A stream on `server` of the versions after `after`, once it has shown version `after` itself (so the
    node has read the match before anything else is appended)."""
    follower = Follower(server.client().subscribe(match_id, token, from_version=after - 1))
    wait_until(lambda: follower.versions() == [after], "the stream is open on the match", timeout=CROSSING)
    return follower


def event_of(update: Any) -> dict[str, Any]:
    event: dict[str, Any] = json.loads(update.event.json)["event"]
    return event


def test_an_append_on_one_node_wakes_a_stream_on_the_other(nodes: Cluster) -> None:
    one, two = nodes.one, nodes.two
    match_id, host, ann, _bob = seat_duel(one.client(), seed=3)
    version = one.client().state(match_id, host).version
    stream = follow(two, match_id, host, version)  # node two has the match in memory, fresh
    one.client().submit(match_id, ann, text="pick 2")  # written by node one
    wait_until(lambda: version + 1 in stream.versions(), "node one's append reached node two's stream", CROSSING)
    stream.close()
    assert event_of(stream.updates[1]) == {"type": "Picked", "player": "ann", "number": 2}
    assert stream.error is None


def test_a_cached_match_nobody_follows_is_read_fresh_after_a_notification(nodes: Cluster) -> None:
    """Node two holds the match but streams nothing of it: a notification only marks its copy stale, and
    the next read there catches up (rather than serving the old copy until the 60 s refresh)."""
    one, two = nodes.one, nodes.two
    match_id, host, ann, _bob = seat_duel(one.client(), seed=2)
    version = two.client().state(match_id, host).version  # node two reads the match into memory
    one.client().submit(match_id, ann, text="pick 1")
    wait_until(lambda: two.client().state(match_id, host).version == version + 1, "node two reads ann's pick", CROSSING)
    assert two.client().state(match_id, host).view["my_picks"] == {"ann": 1}


def test_a_listener_that_loses_its_connection_reconnects_and_misses_nothing(
    nodes: Cluster,
) -> None:
    one, two = nodes.one, nodes.two
    match_id, host, ann, bob = seat_duel(one.client(), seed=4)
    version = one.client().state(match_id, host).version
    stream = follow(two, match_id, host, version)
    assert two.running is not None and two.running.listener is not None
    listener = two.running.listener
    dsn = " ".join(part for part in nodes.url.removeprefix("postgres:").split() if not part.startswith("schema="))
    with psycopg.connect(dsn, autocommit=True) as admin:  # the database drops node two's listening connection
        admin.execute("SELECT pg_terminate_backend(%s)", (listener.backend_pid,))
    one.client().submit(match_id, ann, text="pick 1")  # likely made while node two was not listening
    wait_until(lambda: version + 1 in stream.versions(), "the append made around the drop reached node two", CROSSING)
    wait_until(lambda: listener.connections == 2 and listener.backend_pid is not None, "node two listens again")
    one.client().submit(match_id, bob, text="pick 3")  # made once node two listens again: heard
    wait_until(lambda: version + 2 in stream.versions(), "the next append reached node two", CROSSING)
    stream.close()
    assert stream.versions()[:3] == [version, version + 1, version + 2] and stream.error is None


def test_a_match_created_on_one_node_is_followed_from_the_other(nodes: Cluster) -> None:
    one, two = nodes.one, nodes.two
    created = one.client().create("duel", ["ann", "bob"], seed=5)
    bob = two.client().join(created.match_id, "bob")  # a seat claimed on the other node at once
    stream = Follower(two.client().subscribe(created.match_id, created.host_token))  # from version 1
    ann = one.client().join(created.match_id, "ann")
    for number in (1, 2, 3):  # every write from here on is made by node one
        one.client().submit(created.match_id, ann, text=f"pick {number}")
        one.client().submit(created.match_id, bob, text="pick 2")
    final = one.client().state(created.match_id, created.host_token)
    assert final.status.finished
    wait_until(lambda: final.version in stream.versions(), "node two's stream reached the end", CROSSING)
    stream.close()
    assert stream.versions() == list(range(1, final.version + 1)) and stream.error is None
    assert stream.updates[-1].status.finished


def test_a_create_retried_on_the_other_node_returns_the_match_the_first_made(nodes: Cluster) -> None:
    """The retry's lookup (CatalogProjection.made_for) reads the shared log past its node's catalog."""
    one, two = nodes.one, nodes.two
    create = pb.CreateMatchRequest(game="duel", players=["ann", "bob"], seed=5, request_id="across-1")
    first = one.client().stub.CreateMatch(create, metadata=[("authorization", f"Bearer {one.admin_token}")])
    again = two.client().stub.CreateMatch(create, metadata=[("authorization", f"Bearer {two.admin_token}")])
    assert (again.match_id, again.host_token) == (first.match_id, first.host_token)
    assert [m.match_id for m in two.client().list_matches()] == [first.match_id]


def play_seat(client: MatchClient, match_id: str, player: str, token: str, errors: list[str]) -> None:
    """A scripted player: follows its own view on its node and picks whenever the match awaits it, once a round."""
    picked: set[int] = set()
    stream = client.subscribe(match_id, token)
    try:
        for update in stream:
            if not update.HasField("status"):
                continue  # only the last update of a batch carries the view and status
            if update.status.finished:
                return
            view = json.loads(update.view_json)
            if player in update.status.awaiting and view["round"] not in picked:
                picked.add(view["round"])
                try:
                    client.submit(match_id, token, text=f"pick {1 + view['round'] % 3}")
                except grpc.RpcError as exc:
                    errors.append(f"{player}: {exc.code().name}: {exc.details()}")
    finally:
        stream.cancel()


def test_a_player_on_each_node_plays_a_match_to_the_end(nodes: Cluster) -> None:
    """Each seat reads its view from, and submits to, its own node only: every move of the other seat
    reaches it through the store's notifications."""
    one, two = nodes.one, nodes.two
    match_id, host, ann, bob = seat_duel(one.client(), seed=6)
    errors: list[str] = []
    seats = [(one, "ann", ann), (two, "bob", bob)]
    threads = [
        threading.Thread(target=play_seat, args=(server.client(), match_id, player, token, errors), daemon=True)
        for server, player, token in seats
    ]
    for thread in threads:
        thread.start()
    wait_until(lambda: not any(t.is_alive() for t in threads), "both seats saw the match finish", CROSSING * 2)
    assert errors == []
    for server in (one, two):
        final = server.client().state(match_id, host)
        assert final.status.finished and final.view["scores"]["ann"] == final.view["scores"]["bob"]  # equal picks
    records = [json.loads(e.json) for e in one.client().history(match_id, host)]
    assert sum(1 for r in records if r.get("event", {}).get("type") == "Picked") == 6


def test_racing_submissions_on_two_nodes_are_both_applied(nodes: Cluster) -> None:
    """Both players submit at the same moment, each to a different node: one append wins the race, the other
    is decided again on the caught-up state inside its node. Neither caller sees an error; nothing is lost."""
    one, two = nodes.one, nodes.two
    errors: list[str] = []
    matches = [seat_duel(one.client(), seed=seed) for seed in (7, 8)]
    clients = {"ann": one.client(), "bob": two.client()}
    for round_ in (1, 2, 3):
        for match_id, _host, ann, bob in matches:
            start = threading.Barrier(2)

            def submit(
                player: str,
                token: str,
                match_id: str = match_id,
                start: threading.Barrier = start,
                round_: int = round_,
            ) -> None:
                start.wait(CROSSING)
                try:
                    clients[player].submit(match_id, token, text=f"pick {1 + round_ % 3}")
                except grpc.RpcError as exc:
                    errors.append(f"round {round_}, {player}: {exc.code().name}: {exc.details()}")

            threads = [threading.Thread(target=submit, args=args) for args in (("ann", ann), ("bob", bob))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(CROSSING * 2)
    assert errors == []
    reader = nodes.reader()
    try:
        for match_id, host, _ann, _bob in matches:
            records = [json.loads(e.json) for e in reader.client().history(match_id, host)]
            picks = [
                (r["event"]["player"], r["event"]["number"])
                for r in records
                if r.get("event", {}).get("type") == "Picked"
            ]
            assert sorted(picks) == sorted([("ann", n) for n in (2, 3, 1)] + [("bob", n) for n in (2, 3, 1)])
            assert sum(1 for r in records if r.get("event", {}).get("type") == "Resolved") == 3
            assert reader.client().state(match_id, host).status.finished
            assert reader.client().verify(match_id, host).ok
    finally:
        reader.stop()


def test_a_node_that_missed_notifications_decides_again_rather_than_refuse(nodes: Cluster) -> None:
    """A write refused on a cached copy that is behind the store (here: node one stopped listening, as if
    its notifications were lost) is decided again on the caught-up copy, not refused on the stale one."""
    one, two = nodes.one, nodes.two
    match_id, host, ann, bob = seat_duel(one.client(), seed=9)
    assert one.running is not None and one.running.listener is not None
    one.run(one.running.listener.stop())  # node one hears nothing more; its refresh comes after 60 s
    one.client().submit(match_id, ann, text="pick 1")
    two.client().submit(match_id, bob, text="pick 2")  # ends round 1 on node two
    # Node one's copy still awaits bob in round 1, where ann has picked: on that copy this pick is refused.
    reply = one.client().submit(match_id, ann, text="pick 3")
    assert [json.loads(e.json)["event"] for e in reply.events] == [{"type": "Picked", "player": "ann", "number": 3}]
    assert one.client().state(match_id, host).view["round"] == 2


def test_a_host_key_revoked_on_one_node_ends_its_stream_on_the_other(nodes: Cluster) -> None:
    one, two = nodes.one, nodes.two
    key = one.client().create_host_key("club").host_key  # the nodes share the admin token (one var folder)
    created = MatchClient(two.address, host_credential=key).create("duel", ["ann", "bob"], seed=1)
    version = two.client().state(created.match_id, created.host_token).version
    stream = follow(two, created.match_id, key, version)
    one.client().revoke_host_key(one.client().list_host_keys()[0].key_id, "left the club")
    wait_until(lambda: stream.error is not None, "node two ended the revoked key's stream", CROSSING)
    assert stream.error is not None and stream.error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "revoked" in (stream.error.details() or "")
