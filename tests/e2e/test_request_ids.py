"""Idempotent writes over a real server: a retried request_id appends once and returns the original."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import grpc
import pytest

from matchserver.v1 import matchserver_pb2 as pb
from server import projection
from server.access import HostQuotas
from server.app import Settings
from tests.support.duel import started_duel
from tests.support.server import ServerThread


def code_of(call) -> tuple[grpc.StatusCode, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def bearer(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


def test_a_retried_submit_appends_once_and_returns_the_original(server: ServerThread) -> None:
    client = server.client()
    created = started_duel(client, seed=4)
    ann = client.join(created.match_id, "ann")
    request = pb.SubmitRequest(match_id=created.match_id, text="pick 2", request_id="ann-pick-1")
    first = client.stub.Submit(request, metadata=bearer(ann))
    again = client.stub.Submit(request, metadata=bearer(ann))
    assert (again.version, again.receipt) == (first.version, first.receipt)
    assert [e.json for e in again.events] == [e.json for e in first.events]
    assert client.state(created.match_id, created.host_token).version == first.version
    picks = [e for e in client.history(created.match_id, created.host_token) if e.type == "Picked"]
    assert len(picks) == 1
    other = pb.SubmitRequest(match_id=created.match_id, text="pick 3", request_id="ann-pick-1")
    code, details = code_of(lambda: client.stub.Submit(other, metadata=bearer(ann)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "different request" in details


def test_the_same_id_from_another_caller_is_another_request(server: ServerThread) -> None:
    client = server.client()
    created = started_duel(client, seed=4)
    ann, bob = (client.join(created.match_id, p) for p in ("ann", "bob"))
    for token, pick in ((ann, "pick 1"), (bob, "pick 2")):
        client.stub.Submit(
            pb.SubmitRequest(match_id=created.match_id, text=pick, request_id="r1"), metadata=bearer(token)
        )
    picks = [
        json.loads(e.json)["event"] for e in client.history(created.match_id, created.host_token) if e.type == "Picked"
    ]
    assert [p["player"] for p in picks] == ["ann", "bob"]


def test_refusals_are_not_recorded_so_the_same_id_is_decided_again(server: ServerThread) -> None:
    client = server.client()
    created = started_duel(client, seed=4)
    ann = client.join(created.match_id, "ann")
    client.host_action(created.match_id, created.host_token, "pause", "lunch")
    request = pb.SubmitRequest(match_id=created.match_id, text="pick 2", request_id="after-lunch")
    assert code_of(lambda: client.stub.Submit(request, metadata=bearer(ann)))[0] == grpc.StatusCode.FAILED_PRECONDITION
    client.host_action(created.match_id, created.host_token, "resume", "back")
    accepted = client.stub.Submit(request, metadata=bearer(ann))
    assert [e.type for e in accepted.events] == ["Picked"]


def test_create_join_and_fork_retries_return_the_same_match_and_secrets(server: ServerThread) -> None:
    client = server.client()
    admin = bearer(server.admin_token)
    create = pb.CreateMatchRequest(game="duel", players=["ann", "bob"], seed=9, request_id="night-1")
    first = client.stub.CreateMatch(create, metadata=admin)
    again = client.stub.CreateMatch(create, metadata=admin)
    assert (again.match_id, again.host_token, again.version) == (first.match_id, first.host_token, first.version)
    assert list(again.invitations) == list(first.invitations)
    assert len(client.list_matches()) == 1
    client.host_action(first.match_id, first.host_token, "start", "bob joins later")  # it would wait for both
    invitation = {seat.player: seat.invitation for seat in first.invitations}["ann"]
    join = pb.JoinMatchRequest(match_id=first.match_id, player="ann", invitation=invitation, request_id="j1")
    joined = client.stub.JoinMatch(join, metadata=[("authorization", "Spectator")])
    client.submit(first.match_id, joined.player_token, text="pick 1")  # the seat has acted...
    rejoined = client.stub.JoinMatch(join, metadata=[("authorization", "Spectator")])  # ...a lost reply still
    assert (rejoined.player_token, rejoined.version) == (joined.player_token, joined.version)
    assert client.state(first.match_id, rejoined.player_token).viewer == "player:ann"
    fork = pb.ForkRequest(match_id=first.match_id, at_version=joined.version, reason="what if", request_id="f1")
    forked = client.stub.Fork(fork, metadata=bearer(first.host_token))
    refork = client.stub.Fork(fork, metadata=bearer(first.host_token))
    assert (refork.match_id, refork.host_token) == (forked.match_id, forked.host_token)
    assert len(client.list_matches()) == 2


def test_a_retried_create_finds_its_match_before_and_after_the_catalog_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A retry is looked up without a catalog catch-up (CatalogProjection.before_creating): in the log past the
    catalog's position, and in the catalog once it has projected the match. Neither projects here until
    a listing asks (no tick, no catch-up after writes), so each retry meets one of the two."""
    monkeypatch.setattr(projection, "CATALOG_DELAY", 3600.0)
    server = ServerThread(Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"), tick_interval=3600)).start()
    try:
        assert server.running is not None
        matches = server.running.matches
        client, admin = server.client(), bearer(server.admin_token)

        def catalogued(request_id: str) -> object:
            return server.run(matches.repository.io(matches.repository.catalog.created_for, "admin", request_id))

        create = pb.CreateMatchRequest(game="duel", players=["ann", "bob"], seed=9, request_id="unlisted-1")
        first = client.stub.CreateMatch(create, metadata=admin)
        again = client.stub.CreateMatch(create, metadata=admin)
        assert (again.match_id, again.host_token) == (first.match_id, first.host_token)
        assert catalogued("unlisted-1") is None  # found in the log: the catalog has not projected it yet
        second = pb.CreateMatchRequest(game="duel", players=["ann", "bob"], seed=9, request_id="unlisted-2")
        other = client.stub.CreateMatch(second, metadata=admin)
        assert other.match_id != first.match_id  # another request id is another match
        assert client.stub.CreateMatch(second, metadata=admin).match_id == other.match_id  # read since the last
        assert client.stub.CreateMatch(create, metadata=admin).match_id == first.match_id  # read before that
        assert catalogued("unlisted-2") is None
        assert sorted(m.match_id for m in client.list_matches()) == sorted([first.match_id, other.match_id])
        assert str(catalogued("unlisted-1")) == first.match_id  # the listing brought the catalog up to date
        once_more = client.stub.CreateMatch(create, metadata=admin)  # now past the log's unprojected part
        assert (once_more.match_id, once_more.host_token) == (first.match_id, first.host_token)
        assert len(client.list_matches()) == 2
    finally:
        server.stop()


def test_a_host_keys_create_with_a_request_id_reads_the_store_once_before_its_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The retry's lookup and the quota's bound are one short read, on SQLite on the loop's thread in the
    store's turn: a hop to the store's thread and back waited twice on a busy loop (CreateMatch p50 23-30
    ms with 8 clients playing for two such calls, 19-23 for one, about 15 with none: docs/BENCHMARKS.md).
    The answers are those of the two checks."""
    monkeypatch.setattr(projection, "CATALOG_DELAY", 3600.0)
    quotas = HostQuotas(max_live_matches_per_host_key=2)
    settings = Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"), tick_interval=3600, quotas=quotas)
    server = ServerThread(settings).start()
    try:
        assert server.running is not None
        catalog = server.running.matches.projection
        calls: list[tuple[str, str, bool]] = []  # (how, what, on the loop's thread)
        io, short_io = catalog._io, catalog.matches.short_io

        def spied(how: str, call: Any) -> Any:
            async def counted(fn: Any, *args: Any) -> Any:
                def run(*args: Any) -> Any:
                    calls.append((how, getattr(fn, "__name__", repr(fn)), threading.get_ident() == loop_thread))
                    return fn(*args)

                return await call(run, *args)

            return counted

        loop_thread = server.thread.ident
        monkeypatch.setattr(catalog, "_io", spied("io", io))
        monkeypatch.setattr(catalog.matches, "short_io", spied("short", short_io))
        client = server.client()
        key = client.create_host_key("quota-host", server.admin_token).host_key
        create = pb.CreateMatchRequest(game="duel", players=["ann", "bob"], seed=9, request_id="once-1")
        calls.clear()
        first = client.stub.CreateMatch(create, metadata=bearer(key))
        assert calls == [("short", "_before_creating", True)]
        again = client.stub.CreateMatch(create, metadata=bearer(key))  # a retry: found, not counted again
        assert (again.match_id, again.host_token) == (first.match_id, first.host_token)
        second = pb.CreateMatchRequest(game="duel", players=["ann", "bob"], seed=9, request_id="once-2")
        assert client.stub.CreateMatch(second, metadata=bearer(key)).match_id != first.match_id
        third = pb.CreateMatchRequest(game="duel", players=["ann", "bob"], seed=9, request_id="once-3")
        with pytest.raises(grpc.RpcError) as refused:
            client.stub.CreateMatch(third, metadata=bearer(key))  # over its quota of two
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    finally:
        server.stop()


def test_a_duplicate_force_phase_end_with_one_request_id_ends_one_phase(server: ServerThread) -> None:
    client = server.client()
    created = started_duel(client, seed=4)
    host = bearer(created.host_token)
    request = pb.ForcePhaseEndRequest(match_id=created.match_id, reason="slow", request_id="end-r1")
    first = client.stub.ForcePhaseEnd(request, metadata=host)
    second = client.stub.ForcePhaseEnd(request, metadata=host)
    assert second.version == first.version and second.status.phase == first.status.phase == "round 2"


def test_request_ids_survive_a_restart(tmp_path: Path) -> None:
    settings = Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"))
    first = ServerThread(settings).start()
    client = first.client()
    created = started_duel(client, seed=4)
    ann = client.join(created.match_id, "ann")
    request = pb.SubmitRequest(match_id=created.match_id, text="pick 2", request_id="before-restart")
    accepted = client.stub.Submit(request, metadata=bearer(ann))
    first.stop()
    second = ServerThread(settings).start()
    try:
        again = second.client().stub.Submit(request, metadata=bearer(ann))
        assert again.version == accepted.version and again.receipt == accepted.receipt
    finally:
        second.stop()


@pytest.mark.parametrize("request_id", ["", "x" * 65, "has space", "semi;colon", "ü"])
def test_a_malformed_request_id_is_invalid_argument(server: ServerThread, request_id: str) -> None:
    client = server.client()
    created = started_duel(client, seed=4)
    ann = client.join(created.match_id, "ann")
    joined = client.state(created.match_id, created.host_token).version
    request = pb.SubmitRequest(match_id=created.match_id, text="pick 2", request_id=request_id)
    if not request_id:  # no id is allowed: the write is simply not idempotent
        client.stub.Submit(request, metadata=bearer(ann))
        return
    code, details = code_of(lambda: client.stub.Submit(request, metadata=bearer(ann)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "request_id" in details and len(details) <= 256
    assert client.state(created.match_id, created.host_token).version == joined  # nothing after the join
