"""A retried CreateMatch's lookup past the catalog (server/projection.py CreationsAhead) on a real store:
it finds the creation made for a request, forgets what the catalog has, and ends at the log's end as it
stood when asked even while another node floods the log."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

from server.projection import CreationsAhead
from server.records import chain
from server.store import Change, EventStore


def created(caller: str, request_id: str, host_key: str | None = None) -> list[dict[str, object]]:
    record = {"kind": "created", "host_token": "d" * 64, "at": 1.0, "request": {"caller": caller, "id": request_id}}
    return chain("", [{**record, "host_key": host_key}])


def test_the_creation_made_for_a_request_is_found_and_only_past_the_catalog(tmp_path: Path) -> None:
    store = EventStore(f"sqlite:{tmp_path / 'store.db'}")
    try:
        first, second = uuid.uuid4(), uuid.uuid4()
        store.append(first, 0, created("admin", "r1"))
        store.append(second, 0, created("key-1", "r1"))  # the same id from another caller: another request
        ahead = CreationsAhead()
        assert ahead.find(store, 0, ("admin", "r1")) == first
        assert ahead.find(store, 0, ("key-1", "r1")) == second
        assert ahead.find(store, 0, ("admin", "r2")) is None
        catalogued = store.last_position()  # the catalog has both now: they are left to it
        assert ahead.find(store, catalogued, ("admin", "r1")) is None and ahead.made == {}
        third = uuid.uuid4()
        store.append(third, 0, created("admin", "r3"))  # read from where the last lookup stopped
        assert ahead.find(store, catalogued, ("admin", "r3")) == third
    finally:
        store.close()


def test_the_matches_a_host_key_made_past_the_catalog_are_counted_and_only_those(tmp_path: Path) -> None:
    """A host key's quota is checked against the catalog's count plus these, without a catch-up."""
    store = EventStore(f"sqlite:{tmp_path / 'store.db'}")
    try:
        for request, key in (("r1", "key-1"), ("r2", "key-1"), ("r3", "key-2"), ("r4", None)):
            match = uuid.uuid4()
            store.append(match, 0, created(key or "admin", request, key))
            store.append(match, 1, chain(created(key or "admin", request, key)[0]["hash"], [{"kind": "host"}]))
        ahead = CreationsAhead()
        assert ahead.made_by(store, 0, "key-1") == 2 and ahead.made_by(store, 0, "key-2") == 1
        assert ahead.made_by(store, 0, "admin") == 0  # the admin's creations have no host key
        catalogued = store.last_position()  # the catalog has them all now: they are left to it
        assert ahead.made_by(store, catalogued, "key-1") == 0 and ahead.keyed == {}
        store.append(uuid.uuid4(), 0, created("key-1", "r5", "key-1"))
        assert ahead.made_by(store, catalogued, "key-1") == 1
    finally:
        store.close()


class Flooded(EventStore):
    """The store while another node writes: every page read finds one more record appended after it."""

    def changes_after(self, position: int, limit: int = 500) -> list[Change]:
        page = super().changes_after(position, limit)
        self.append(uuid.uuid4(), 0, created("node-2", uuid.uuid4().hex))
        return page


def test_a_lookup_ends_at_the_log_end_as_it_stood_while_another_node_floods_it(tmp_path: Path) -> None:
    """The adversary is a flood from another node: a lookup that chased the log's end never returned, and
    the store's thread (every write of this node) waited behind it."""
    store = Flooded(f"sqlite:{tmp_path / 'store.db'}")
    try:
        made = uuid.uuid4()
        store.append(made, 0, created("admin", "r1"))
        end = store.last_position()
        found: list[uuid.UUID | None] = []
        lookup = threading.Thread(
            target=lambda: found.append(CreationsAhead().find(store, 0, ("admin", "r1"))), daemon=True
        )
        lookup.start()
        lookup.join(60)
        assert not lookup.is_alive() and found == [made]
        assert store.last_position() > end  # the flood went on meanwhile
    finally:
        store.close()
