"""Cost independent of the matches stored: start-up loads no match, listings read the catalog (server/
catalog.py), the ticker visits only due matches (loading one that is not in memory), and the catalog
catches up on what was appended without being projected (a crash between the two)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from matchserver.v1 import matchserver_pb2 as pb
from server.app import Settings
from server.clock import ManualClock
from server.identities import is_server_stream
from server.store import EventStore
from tests.conftest import make_server
from tests.support.duel import seat_duel
from tests.support.server import ServerThread
from tests.support.waiting import wait_until


def match_reads(server: ServerThread) -> dict[uuid.UUID, int]:
    """How often each match's stream was read from the store by this server process."""
    assert server.running is not None
    return {
        stream: n for stream, n in server.running.store.reads.items() if not is_server_stream(stream)
    }  # identities, arena


def ticks_pass(server: ServerThread, count: int = 2) -> None:
    """Wait until the ticker has made `count` more passes (each one sees the clock as it is now)."""
    assert server.running is not None
    matches = server.running.matches
    start = matches.ticks
    wait_until(lambda: matches.ticks >= start + count, f"{count} ticker passes")


def test_a_store_of_50_matches_starts_reading_no_match_and_lists_them_in_pages_from_the_catalog(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    first = make_server(tmp_path, clock)
    client = first.client()
    made = [client.create("duel", ["ann", "bob"], seed=n).match_id for n in range(50)]
    first.stop()

    server = make_server(tmp_path, clock)
    try:
        assert match_reads(server) == {}  # started: no match was read
        client = server.client()
        listed, token, pages = [], "", 0
        while True:
            request = pb.ListMatchesRequest(page_size=20, page_token=token)
            reply = client.stub.ListMatches(request, metadata=(("authorization", f"Bearer {server.admin_token}"),))
            listed += [summary.match_id for summary in reply.matches]
            token = reply.next_page_token
            pages += 1
            if not token:
                break
        assert listed == made and pages == 3  # oldest first, every match once
        assert match_reads(server) == {}  # listed from the catalog: still none read
        client.state(made[7])
        assert set(match_reads(server)) == {uuid.UUID(made[7])}  # loaded on first use, and only it
    finally:
        server.stop()


def test_the_ticker_applies_a_due_deadline_of_a_match_not_in_memory(tmp_path: Path) -> None:
    clock = ManualClock()
    first = make_server(tmp_path, clock)
    match_id, _, _, _ = seat_duel(first.client(), seed=1)
    first.stop()

    server = make_server(tmp_path, clock)
    try:
        assert match_reads(server) == {}
        clock.advance(61)  # round 1 of both duels ends at 60 s
        client = server.client()
        wait_until(lambda: client.state(match_id).status.phase == "round 2", "the deadline applied after a restart")
        assert uuid.UUID(match_id) in match_reads(server)
    finally:
        server.stop()


def test_an_extended_match_is_not_timed_out_at_its_old_deadline_even_when_not_in_memory(tmp_path: Path) -> None:
    clock = ManualClock()
    first = make_server(tmp_path, clock)
    client = first.client()
    match_id, host, _, _ = seat_duel(client, seed=1)
    client.host_action(match_id, host, "extend", "holiday", seconds=30)  # round 1 now ends at 90 s
    paused, paused_host, _, _ = seat_duel(client, seed=2)
    client.host_action(paused, paused_host, "pause", "lunch")  # nothing is due while paused
    first.stop()

    server = make_server(tmp_path, clock)
    try:
        clock.advance(70)  # past the old deadline, before the new one
        ticks_pass(server)
        assert match_reads(server) == {}  # the catalog's due times moved: the ticker loaded nothing
        client = server.client()
        assert client.state(match_id).status.phase == "round 1"
        clock.advance(21)
        wait_until(lambda: client.state(match_id).status.phase == "round 2", "the extended deadline applied")
        assert client.state(paused).status.phase == "round 1"
    finally:
        server.stop()


def test_records_appended_but_never_projected_are_caught_up_at_start(tmp_path: Path) -> None:
    """As after a crash between an append and its projection: the catalog catches up from its position."""
    clock = ManualClock()
    first = make_server(tmp_path, clock)
    match_id, _, _, _ = seat_duel(first.client(), seed=1)
    first.stop()
    store = EventStore(f"sqlite:{tmp_path / 'var' / 'matches.db'}")
    copy = uuid.uuid4()  # the same records under a new id: appended, never projected
    store.append(copy, 0, store.read(uuid.UUID(match_id)))
    store.close()

    server = make_server(tmp_path, clock)
    try:
        client = server.client()
        assert [summary.match_id for summary in client.list_matches()] == [match_id, str(copy)]
        clock.advance(61)  # the copy's deadline is in the catalog too
        wait_until(lambda: client.state(str(copy)).status.phase == "round 2", "the copy's deadline applied")
    finally:
        server.stop()


@pytest.mark.slow
def test_live_matches_are_bounded_by_memory_and_an_evicted_match_is_read_again(tmp_path: Path) -> None:
    cache_mb = 0.1  # a few tens of duels
    settings = Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"), clock=ManualClock(), cache_mb=cache_mb)
    server = ServerThread(settings).start()
    try:
        assert server.running is not None
        client = server.client()
        made = [seat_duel(client, seed=n)[0] for n in range(60)]
        count, used, limit = server.running.matches.repository.cache_use()
        assert limit == int(cache_mb * 2**20) and used <= limit
        assert count < len(made)  # the oldest were evicted by size...
        assert client.state(made[0]).version == 4  # ...and are read again when used
        assert uuid.UUID(made[0]) in match_reads(server)
    finally:
        server.stop()


def test_a_catalog_catch_up_ends_at_the_position_it_started_at_while_writes_keep_coming(tmp_path: Path) -> None:
    """The adversary is a flood: two seats (here the host) writing as fast as they can. A catch-up that
    chased the log's end never returned, and listings, quotas and retried creations waited on it."""
    server = make_server(tmp_path)
    client = server.client()
    try:
        match_id, host, *_ = seat_duel(client, seed=3)
        assert server.running is not None
        matches = server.running.matches

        async def flood_while_catching_up() -> tuple[int, int]:
            stop = asyncio.Event()
            written = 0

            async def flood() -> None:
                nonlocal written
                match = uuid.UUID(match_id)
                while not stop.is_set():
                    for action in ("pause", "resume"):
                        await matches.hosting.host_action(match, host, action, reason="flood")
                        written += 1

            writer = asyncio.ensure_future(flood())
            try:
                while written < 20:  # the flood is under way
                    await asyncio.sleep(0)
                before = written
                for _ in range(3):
                    await asyncio.wait_for(matches.queries.catch_up_catalog(), timeout=60)
                return before, written
            finally:
                stop.set()
                await writer

        before, after = server.run(flood_while_catching_up(), timeout=240)
        assert after > before  # the writes went on while the catalog caught up
        assert client.list_matches()  # and a listing answers
    finally:
        client.close()
        server.stop()
