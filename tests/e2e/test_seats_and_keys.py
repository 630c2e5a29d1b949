"""Credentials end to end (docs/SECURITY.md): seats by invitation, host keys, scoped listing, paging."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest

from clients.client import MatchClient
from matchserver.v1 import matchserver_pb2 as pb
from server.access import HostQuotas
from server.app import Settings
from tests.support.server import ServerThread
from tests.support.streams import read_to_end


def code_of(call) -> tuple[grpc.StatusCode, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def invitations(created: pb.CreateMatchResponse) -> dict[str, str]:
    return {seat.player: seat.invitation for seat in created.invitations}


def test_a_seat_sweep_without_invitations_claims_nothing(server: ServerThread) -> None:
    host_client = server.client()
    created = host_client.create("duel", ["ann", "bob"], seed=3)
    ann = host_client.join(created.match_id, "ann", invitation=invitations(created)["ann"])
    before = host_client.state(created.match_id, created.host_token).version
    stranger = MatchClient(server.address)  # no credential at all
    raw = stranger.stub
    assert code_of(lambda: raw.ListMatches(pb.ListMatchesRequest()))[0] == grpc.StatusCode.UNAUTHENTICATED
    assert stranger.list_matches() == []  # as a spectator: sits in nothing
    assert [m.match_id for m in stranger.list_matches(ann)] == [created.match_id]  # a seat sees its own match
    attempts = {
        "no header": lambda: raw.JoinMatch(pb.JoinMatchRequest(match_id=created.match_id, player="bob")),
        "spectator": lambda: stranger.join(created.match_id, "bob"),
        "forged token": lambda: stranger.join(created.match_id, "bob", "forged"),
        "a player's token for a second seat": lambda: stranger.join(created.match_id, "bob", ann),
        "a wrong invitation": lambda: stranger.join(created.match_id, "bob", invitation="guess"),
        "another seat's invitation": lambda: stranger.join(
            created.match_id, "bob", invitation=invitations(created)["ann"]
        ),
    }
    for name, attempt in attempts.items():
        code, details = code_of(attempt)
        assert code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED), (name, code, details)
    assert host_client.state(created.match_id, created.host_token).version == before
    assert created.host_token not in json.dumps([e.json for e in host_client.history(created.match_id, ann)])


def test_an_invitation_claims_its_seat_until_the_seat_acts(server: ServerThread) -> None:
    client = server.client()
    created = client.create("duel", ["ann", "bob"], seed=3)
    client.host_action(created.match_id, created.host_token, "start", "bob joins later")  # it would wait for bob
    code = invitations(created)["ann"]
    lost = client.join(created.match_id, "ann", invitation=code)  # the reply was lost: retried
    ann = client.join(created.match_id, "ann", invitation=code)
    assert code_of(lambda: client.submit(created.match_id, lost, text="pick 1"))[0] == grpc.StatusCode.UNAUTHENTICATED
    client.submit(created.match_id, ann, text="pick 2")
    refused, details = code_of(lambda: client.join(created.match_id, "ann", invitation=code))
    assert refused == grpc.StatusCode.PERMISSION_DENIED and "invitation" in details
    # The host's new invitation replaces the old one, for an unclaimed seat as for a claimed one.
    old = invitations(created)["bob"]
    new = client.invite(created.match_id, "bob", created.host_token)
    assert code_of(lambda: client.join(created.match_id, "bob", invitation=old))[0] == grpc.StatusCode.PERMISSION_DENIED
    bob = client.join(created.match_id, "bob", invitation=new)
    client.submit(created.match_id, bob, text="pick 3")
    history = json.dumps([json.loads(e.json) for e in client.history(created.match_id, created.host_token)])
    assert code not in history and new not in history and "invitation" not in history.replace('"via"', "")


def test_the_host_fills_an_unclaimed_seat_and_reissues_only_when_asked(server: ServerThread) -> None:
    client = server.client()
    created = client.create("duel", ["ann", "bob"], seed=3)
    ann = client.join(created.match_id, "ann", created.host_token)
    code, details = code_of(lambda: client.join(created.match_id, "ann", created.host_token))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "reissue" in details
    fresh = client.join(created.match_id, "ann", created.host_token, reissue=True)
    assert code_of(lambda: client.state(created.match_id, ann))[0] == grpc.StatusCode.UNAUTHENTICATED
    assert client.state(created.match_id, fresh).viewer == "player:ann"
    # The host filled the seat: the seat's original invitation no longer claims it.
    assert (
        code_of(lambda: client.join(created.match_id, "ann", invitation=invitations(created)["ann"]))[0]
        == grpc.StatusCode.PERMISSION_DENIED
    )


def test_host_keys_create_matches_and_revoking_one_keeps_its_host_tokens(server: ServerThread) -> None:
    admin = server.client()
    plain = MatchClient(server.address)
    refused, _ = code_of(lambda: plain.create("duel", ["ann", "bob"]))
    assert refused == grpc.StatusCode.UNAUTHENTICATED
    made = admin.create_host_key("club night")
    key = made.host_key
    assert made.key.key_id and key not in made.key.key_id
    assert code_of(lambda: plain.create_host_key("mine", key))[0] == grpc.StatusCode.PERMISSION_DENIED
    created = plain.create("duel", ["ann", "bob"], seed=1, token=key)
    other = admin.create("duel", ["cy", "di"], seed=2)
    assert [m.match_id for m in plain.list_matches(key)] == [created.match_id]
    assert {m.match_id for m in admin.list_matches()} >= {created.match_id, other.match_id}
    assert plain.state(created.match_id, key).viewer == "host"  # the key hosts what it created...
    assert code_of(lambda: plain.state(other.match_id, key))[0] == grpc.StatusCode.PERMISSION_DENIED  # ...only
    listed = {k.key_id: k for k in admin.list_host_keys()}
    assert listed[made.key.key_id].live_matches == 1 and not listed[made.key.key_id].revoked
    admin.revoke_host_key(made.key.key_id, "left the club")
    code, details = code_of(lambda: plain.create("duel", ["ann", "bob"], token=key))
    assert code == grpc.StatusCode.UNAUTHENTICATED and "revoked" in details
    assert plain.state(created.match_id, created.host_token).viewer == "host"  # its host token still acts
    assert {k.key_id: k for k in admin.list_host_keys()}[made.key.key_id].revoked


def test_host_keys_survive_a_restart(tmp_path: Path) -> None:
    settings = Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"))
    first = ServerThread(settings).start()
    key = first.client().create_host_key("bots").host_key
    first.stop()
    second = ServerThread(settings).start()
    try:
        created = MatchClient(second.address).create("duel", ["ann", "bob"], token=key)
        assert [m.match_id for m in MatchClient(second.address).list_matches(key)] == [created.match_id]
    finally:
        second.stop()


def test_quotas_per_host_key_refuse_with_resource_exhausted(tmp_path: Path) -> None:
    quotas = HostQuotas(max_live_matches_per_host_key=2, max_creations_per_minute_per_host_key=3)
    server = ServerThread(Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"), quotas=quotas)).start()
    try:
        admin = server.client()
        key = admin.create_host_key("busy").host_key
        client = MatchClient(server.address, host_credential=key)
        first = client.create("duel", ["ann", "bob"])
        client.create("duel", ["ann", "bob"])
        code, details = code_of(lambda: client.create("duel", ["ann", "bob"]))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "max_live_matches_per_host_key" in details
        ann, bob = (client.join(first.match_id, p) for p in ("ann", "bob"))
        client.submit(first.match_id, ann, text="pick 1")
        client.submit(first.match_id, bob, text="pick 2")
        for _ in range(2):
            client.force_phase_end(first.match_id, first.host_token, "finish")
        assert client.state(first.match_id, first.host_token).status.finished
        client.create("duel", ["ann", "bob"])  # a finished match no longer counts: the third creation
        code, details = code_of(lambda: client.create("duel", ["ann", "bob"]))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "max_creations_per_minute_per_host_key" in details
        admin.create("duel", ["ann", "bob"])  # the admin token has no quota
        assert len(admin.list_matches()) == 4
    finally:
        server.stop()


def test_a_private_match_refuses_spectators_and_serves_its_players(server: ServerThread) -> None:
    client = server.client()
    created = client.create("duel", ["ann", "bob"], seed=3, private=True)
    ann = client.join(created.match_id, "ann")
    code, details = code_of(lambda: client.state(created.match_id))
    assert code == grpc.StatusCode.PERMISSION_DENIED and "private" in details
    assert code_of(lambda: list(client.subscribe(created.match_id)))[0] == grpc.StatusCode.PERMISSION_DENIED
    assert client.state(created.match_id, ann).viewer == "player:ann"
    public = client.create("duel", ["ann", "bob"], seed=3)
    assert client.state(public.match_id).viewer == "spectator"


def test_history_audit_and_listing_come_in_pages_that_add_up(server: ServerThread) -> None:
    client = server.client()
    created = client.create("duel", ["ann", "bob"], seed=3)
    ann, bob = (client.join(created.match_id, p) for p in ("ann", "bob"))
    for pick in (1, 2):
        client.submit(created.match_id, ann, text=f"pick {pick}")
        client.submit(created.match_id, bob, text=f"pick {pick + 1}")
    host = created.host_token
    whole = client.history(created.match_id, host, page_size=1000)
    assert [e.version for e in client.history(created.match_id, host, page_size=2)] == [e.version for e in whole]
    first = client.stub.History(pb.HistoryRequest(match_id=created.match_id, page_size=2), metadata=client._auth(host))
    assert len(first.events) == 2 and first.next_page_token
    assert [e.version for e in client.audit(created.match_id, host, page_size=1)] == [
        e.version for e in client.audit(created.match_id, host)
    ]
    for _ in range(3):
        client.create("duel", ["ann", "bob"])
    assert [m.match_id for m in client.list_matches(page_size=2)] == [m.match_id for m in client.list_matches()]
    bad = pb.HistoryRequest(match_id=created.match_id, page_token="not a token")
    code, details = code_of(lambda: client.stub.History(bad, metadata=client._auth(host)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "page_token" in details


def resume_from(error: grpc.RpcError) -> int | None:
    for key, value in error.trailing_metadata() or ():  # type: ignore[attr-defined]
        if key == "matchserver-resume-from":
            return int(value)
    return None


def test_replacing_a_seat_token_or_revoking_a_host_key_ends_their_open_streams(server: ServerThread) -> None:
    admin = server.client()
    key = admin.create_host_key("club").host_key
    client = MatchClient(server.address, host_credential=key)
    created = client.create("duel", ["ann", "bob"], seed=5)
    ann = client.join(created.match_id, "ann")
    version = client.state(created.match_id, key).version
    seat_stream = client.subscribe(created.match_id, ann)
    key_stream = client.subscribe(created.match_id, key)
    host_stream = client.subscribe(created.match_id, created.host_token)
    for stream in (seat_stream, key_stream, host_stream):
        assert [next(stream).event.version for _ in range(version)] == list(range(1, version + 1))
    client.join(created.match_id, "ann", created.host_token, reissue=True)  # ann's old token is replaced
    with pytest.raises(grpc.RpcError) as seat_end:
        next(seat_stream)
    details = seat_end.value.details() or ""  # said by the revocation, or by the stream's own re-check
    assert seat_end.value.code() == grpc.StatusCode.UNAUTHENTICATED and ("ann" in details or "replaced" in details)
    assert resume_from(seat_end.value) == version
    admin.revoke_host_key(client.list_host_keys(server.admin_token)[0].key_id, "left the club")
    _, key_end = read_to_end(key_stream)  # the re-issue's update may come first
    assert key_end.code() == grpc.StatusCode.UNAUTHENTICATED and "revoked" in key_end.details()
    assert next(host_stream).event.kind == "joined"  # the match's own host token follows on
    host_stream.cancel()
