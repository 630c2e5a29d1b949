"""The same server on PostgreSQL, selected by configuration only; two processes share one store."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import grpc
import pytest

from server.app import Settings
from server.clock import ManualClock
from server.ticker import tick
from tests.conftest import postgres_url
from tests.support.duel import started_duel
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres  # every test here needs a PostgreSQL (MATCHSERVER_TEST_POSTGRES)


def start(tmp_path: Path, store: str, clock: ManualClock) -> ServerThread:
    key = tmp_path / "chain.key"  # every node of one PostgreSQL store is given the same chain key
    if not key.exists():
        key.write_text("5" * 64)
    settings = Settings(
        address="127.0.0.1:0",
        var_dir=str(tmp_path / "var"),
        store=store,
        clock=clock,
        tick_interval=0.02,
        chain_key_file=str(key),
    )
    return ServerThread(settings).start()


def test_a_match_on_postgres_survives_a_restart(tmp_path: Path) -> None:
    url, clock = postgres_url(), ManualClock()
    first = start(tmp_path, url, clock)
    client = first.client()
    created = client.create("duel", ["ann", "bob"], seed=2)
    ann, _ = client.join(created.match_id, "ann"), client.join(created.match_id, "bob")
    client.submit(created.match_id, ann, text="pick 2")
    version = client.state(created.match_id, created.host_token).version
    first.stop()
    second = start(tmp_path, url, clock)
    state = second.client().state(created.match_id, created.host_token)
    assert state.version == version and state.view["my_picks"] == {"ann": 2}
    second.stop()


def test_two_server_processes_append_exactly_one_timeout_per_phase(tmp_path: Path) -> None:
    url, clock = postgres_url(), ManualClock()
    one = start(tmp_path, url, clock)
    created = started_duel(one.client(), seed=5)
    two = start(tmp_path, url, clock)  # loads the match from the shared store
    clock.advance(61)  # both tickers see round 1's deadline pass
    host = created.host_token
    wait_until(lambda: one.client().state(created.match_id, host).status.phase == "round 2", "round 1 timed out")
    for server in (one, two):  # each ticker tries once more, whichever was slower: nothing more may land
        assert server.running is not None
        server.run(tick(server.running.matches))
    one.stop()
    three = start(tmp_path, url, clock)  # a fresh reader of the store: what landed?
    records = [json.loads(e.json) for e in three.client().history(created.match_id, host)]
    timeouts = [r for r in records if r.get("cause", {}).get("timeout")]
    assert len(timeouts) == 1
    assert sum(1 for r in records if r.get("event", {}).get("type") == "Resolved") == 1
    two.stop()
    three.stop()


def test_two_processes_on_one_store_see_each_others_matches_and_submissions(tmp_path: Path) -> None:
    url, clock = postgres_url(), ManualClock()
    one = start(tmp_path, url, clock)
    two = start(tmp_path, url, clock)
    first, second = one.client(), two.client()
    created = first.create("duel", ["ann", "bob"], seed=8)
    ann = first.join(created.match_id, "ann")
    bob = second.join(created.match_id, "bob")  # process two finds the match process one created
    # Bob's join, the last seat, opened round 1 on process two: process one hears it before it streams on.
    wait_until(lambda: first.state(created.match_id).status.phase == "round 1", "process one saw round 1 open")
    stream = first.subscribe(created.match_id, None, from_version=first.state(created.match_id).version)
    second.submit(created.match_id, bob, text="pick 3")  # written by process two...
    update = next(u for u in stream if u.event.kind == "game")  # ...streamed by process one
    stream.cancel()
    assert update.event.type == "Picked" and json.loads(update.event.json)["event"]["player"] == "bob"
    first.submit(created.match_id, ann, text="pick 1")
    wait_until(lambda: second.state(created.match_id).status.phase == "round 2", "process two saw round 2")
    assert second.state(created.match_id).view["scores"] == {"ann": 0, "bob": 1}
    assert created.match_id in {m.match_id for m in second.list_matches()}
    one.stop()
    two.stop()


def test_writes_racing_from_two_processes_are_decided_again_not_aborted(tmp_path: Path) -> None:
    """Each process's cached copy goes stale under the other's writes: a lost optimistic-concurrency race
    is decided again on the caught-up state inside the server (up to 5 times), never ABORTED."""
    url, clock = postgres_url(), ManualClock()
    one, two = start(tmp_path, url, clock), start(tmp_path, url, clock)
    try:
        created = one.client().create("duel", ["ann", "bob"], seed=5)
        host = created.host_token
        acknowledged: list[int] = []
        errors: list[str] = []

        def write(server: ServerThread, reason: str) -> None:
            client = server.client()
            for round_ in range(15):
                try:  # each write lands at an exact version: the other process keeps moving it on
                    reply = client.host_action(created.match_id, host, "settle", f"{reason} {round_}")
                    acknowledged.append(reply.version)
                except grpc.RpcError as exc:
                    errors.append(f"{exc.code().name}: {exc.details()}")

        threads = [threading.Thread(target=write, args=(s, name)) for s, name in ((one, "one"), (two, "two"))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert errors == []
        assert len(set(acknowledged)) == len(acknowledged) == 30  # every write at its own version
        three = start(tmp_path, url, clock)  # a fresh reader of the store (the others' caches may lag 0.5 s)
        records = [json.loads(e.json) for e in three.client().history(created.match_id, host)]
        assert sum(1 for r in records if r.get("action") == "settle") == 30
        assert three.client().verify(created.match_id, host).ok
        three.stop()
    finally:
        one.stop()
        two.stop()


def test_a_seat_token_replaced_in_one_process_ends_its_stream_in_another(tmp_path: Path) -> None:
    url, clock = postgres_url(), ManualClock()
    one, two = start(tmp_path, url, clock), start(tmp_path, url, clock)
    try:
        created = one.client().create("duel", ["ann", "bob"], seed=5)
        ann = one.client().join(created.match_id, "ann")
        stream = two.client().subscribe(created.match_id, ann)  # process two finds the match in the store
        version = one.client().state(created.match_id, created.host_token).version
        assert [next(stream).event.version for _ in range(version)] == list(range(1, version + 1))
        one.client().join(created.match_id, "ann", created.host_token, reissue=True)  # written by process one
        with pytest.raises(grpc.RpcError) as ended:
            next(stream)  # process two catches up, sees the token replaced, and ends the stream
        assert ended.value.code() == grpc.StatusCode.UNAUTHENTICATED and "replaced" in ended.value.details()
        assert ("matchserver-resume-from", str(version)) in tuple(ended.value.trailing_metadata() or ())
    finally:
        one.stop()
        two.stop()


def test_on_postgres_a_restarted_node_reads_no_match_and_lists_them_from_the_catalog(tmp_path: Path) -> None:
    url, clock = postgres_url(), ManualClock()
    first = start(tmp_path, url, clock)
    made = [first.client().create("duel", ["ann", "bob"], seed=n).match_id for n in range(5)]
    first.stop()
    second = start(tmp_path, url, clock)
    try:
        assert second.running is not None
        assert [m.match_id for m in second.client().list_matches()] == made
        read = {str(stream) for stream in second.running.store.reads}
        assert not read & set(made)  # listed without reading any match
    finally:
        second.stop()


def test_on_postgres_an_old_store_is_upgraded_once_by_one_node(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Two nodes start together on a store without a catalog (dropped, as before this release): the
    advisory lock lets one build it; both then list every match."""
    import psycopg

    url, clock = postgres_url(), ManualClock()
    first = start(tmp_path, url, clock)
    made = [first.client().create("duel", ["ann", "bob"], seed=n).match_id for n in range(4)]
    first.stop()
    dsn, _, schema = url.removeprefix("postgres:").rpartition(" schema=")
    with psycopg.connect(dsn, autocommit=True) as conn:
        for table in ("ms_matches", "ms_tokens", "ms_tracking"):
            conn.execute(f'DROP TABLE "{schema}".{table}')
    nodes: list[ServerThread] = []
    threads = [threading.Thread(target=lambda: nodes.append(start(tmp_path, url, clock))) for _ in range(2)]
    with caplog.at_level("INFO", logger="server.matches"):
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    try:
        assert len(nodes) == 2
        assert sum("upgrade done" in message for message in caplog.messages) == 1
        for node in nodes:
            assert [m.match_id for m in node.client().list_matches()] == made
    finally:
        for node in nodes:
            node.stop()
