"""The catalog's writes on PostgreSQL, as two nodes make them: overlapping, at the same time."""

from __future__ import annotations

import threading
import uuid

import pytest

from server.catalog import Catalog, Summary
from server.store import EventStore
from tests.conftest import postgres_url

pytestmark = pytest.mark.postgres  # every test here needs a PostgreSQL (MATCHSERVER_TEST_POSTGRES)


def summaries(ids: list[uuid.UUID], version: int) -> list[Summary]:
    return [Summary(m, "duel", ("ann", "bob"), version, "round 1", False, None, None, False, None) for m in ids]


@pytest.mark.slow
def test_two_nodes_projecting_the_same_matches_at_once_neither_deadlocks_nor_fails() -> None:
    url = postgres_url()
    stores = [EventStore(url), EventStore(url)]
    catalogs = [store.catalog() for store in stores]
    ids = [uuid.uuid4() for _ in range(40)]
    failures: list[BaseException] = []
    start = threading.Barrier(2)

    def project(node: int) -> None:
        order = ids if node == 0 else list(reversed(ids))  # the orders in which a deadlock is likeliest
        start.wait()
        try:
            for version in range(1, 30):
                catalogs[node].apply(summaries(order, version), [(f"d{m}", m) for m in order], version)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=project, args=(node,)) for node in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    try:
        assert failures == []
        assert catalogs[0].versions(ids) == dict.fromkeys(ids, 29)  # every summary at the newest version
        assert catalogs[1].position() == 29
    finally:
        for store in stores:
            store.close()


def test_the_public_listing_leaves_out_private_matches_and_pages_both_ways_on_postgres() -> None:
    store = EventStore(postgres_url())
    try:
        check_public_page(store.catalog())
    finally:
        store.close()


def check_public_page(catalog: Catalog) -> None:
    """Six matches by catalog position: 1-3 live (2 private), 4-6 finished (5 private)."""
    ids = [uuid.uuid4() for _ in range(6)]
    rows = [
        Summary(m, "duel", ("ann", "bob"), 2, "round 1", seq > 3, None, None, seq in (2, 5), None, seq=seq)
        for seq, m in enumerate(ids, start=1)
    ]
    catalog.apply(rows, [], 6)
    assert [s.seq for s in catalog.public_page(False, 10)] == [1, 3]
    assert [s.seq for s in catalog.public_page(False, 10, after_seq=1)] == [3]
    assert [s.seq for s in catalog.public_page(True, 10, before_seq=2**62)] == [6, 4], "newest first"
    assert [s.seq for s in catalog.public_page(True, 1, before_seq=6)] == [4]
    assert not any(s.private for s in catalog.public_page(True, 10, before_seq=2**62))
