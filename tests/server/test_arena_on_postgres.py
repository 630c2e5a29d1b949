"""Two nodes run one tournament on one PostgreSQL store: both tick and both try to start each round, and
optimistic concurrency on the tournament's stream lets exactly one of them start each match."""

from __future__ import annotations

import uuid
from collections import Counter
from pathlib import Path

import pytest

from matchserver.v1 import arena_pb2 as apb
from server.arena.log import ARENA_STREAM
from server.clock import ManualClock
from tests.conftest import postgres_url
from tests.e2e.arena.support import Arena, auth
from tests.server.test_two_nodes_postgres import node
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

pytestmark = pytest.mark.postgres  # every test here needs a PostgreSQL (MATCHSERVER_TEST_POSTGRES)


def test_two_nodes_start_each_tournament_match_exactly_once(tmp_path: Path) -> None:
    url = postgres_url()
    clock = ManualClock()
    one, two = node(tmp_path, url, clock), node(tmp_path, url, clock)
    first, second = Arena(one), Arena(two)
    try:
        for name in ("ann", "bob", "cid", "dan"):
            first.bot(name)
        # ann's bot listens on the second node; the tournament is made on the first.
        events = second.stub.BotEvents(apb.BotEventsRequest(after=0), metadata=auth(first.keys["ann"]), timeout=60)
        made = first.tournament("duel", ["ann", "bob", "cid", "dan"], format="round-robin", games_per_pair=1, seed=11)
        heard = [next(events).kind, next(events).kind]
        events.cancel()
        assert heard == ["tournament_created", "seated"]  # four bots, two tables: everyone plays round 1
        wait_until(lambda: second.get(made.tournament_id).matches_total == 6, "the other node sees the tournament")
        # The matches are ended through the other node: its write records each end, and both nodes'
        # tickers race to start the next round.
        done = second.play_out(made.tournament_id)
        assert done.state == "finished" and done.matches_finished == 6
        wait_until(lambda: first.get(made.tournament_id).state == "finished", "the first node sees the end")
        assert_started_once(one, made.tournament_id)
        verified = first.get(made.tournament_id)
        assert [s.points for s in verified.standings] == [s.points for s in done.standings]
    finally:
        first.close()
        second.close()
        one.stop()
        two.stop()


def assert_started_once(server: ServerThread, tournament_id: str) -> None:
    running = server.running
    assert running is not None
    records = running.store.read(uuid.UUID(tournament_id))
    started = Counter(r["index"] for r in records if r["kind"] == "started")
    assert started and set(started.values()) == {1}, started
    seated = [
        r for r in running.store.read(ARENA_STREAM) if r["kind"] == "seated" and r.get("tournament") == tournament_id
    ]
    assert len(seated) == len(started) == 6  # no match was started twice, none without its notice
