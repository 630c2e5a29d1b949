"""The organiser of an arena match (the host key or admin that challenged the bots) sees it as a spectator
while it is played (docs/SECURITY.md), through every door: Fork and Verify included (issue 23, items 1-2).
The adversary is an organiser who wants the bots' sealed moves or the seed before the end."""

from __future__ import annotations

import json
from collections.abc import Iterator

import grpc
import pytest

from matchserver.v1 import arena_pb2 as apb
from matchserver.v1 import matchserver_pb2 as pb
from tests.e2e.arena.support import Arena, auth
from tests.support.server import ServerThread


@pytest.fixture
def arena(server: ServerThread) -> Iterator[Arena]:
    arena = Arena(server)
    yield arena
    arena.close()


def _host_key(arena: Arena) -> str:
    return arena.matches.CreateHostKey(pb.CreateHostKeyRequest(name="organiser"), metadata=auth(arena.admin)).host_key


def _live_match_with_a_sealed_pick(arena: Arena, organiser: str) -> tuple[str, int]:
    """A duel the organiser challenged two auto-accept bots to, ann's pick (3) sealed in it."""
    ann = arena.bot("ann")
    arena.bot("bob")
    challenge = arena.stub.CreateChallenge(
        apb.CreateChallengeRequest(game="duel", bots=["ann", "bob"]), metadata=auth(organiser)
    ).challenge
    assert challenge.state == "started"
    reply = arena.matches.Submit(pb.SubmitRequest(match_id=challenge.match_id, text="pick 3"), metadata=auth(ann))
    return challenge.match_id, reply.version


def test_the_organiser_of_a_live_arena_match_cannot_fork_it_until_it_is_over(arena: Arena) -> None:
    organiser = _host_key(arena)
    match, picked = _live_match_with_a_sealed_pick(arena, organiser)
    for who in (organiser, arena.admin):
        with pytest.raises(grpc.RpcError) as refused:
            arena.matches.Fork(pb.ForkRequest(match_id=match, at_version=picked), metadata=auth(who))
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "only once it is over" in (refused.value.details() or "")
    assert arena.state(match, organiser).version == picked  # nothing was written
    arena.finish_by_defaults(match, organiser)
    fork = arena.matches.Fork(pb.ForkRequest(match_id=match, at_version=picked), metadata=auth(organiser))
    created = arena.matches.History(pb.HistoryRequest(match_id=fork.match_id), metadata=auth(fork.host_token))
    assert json.loads(created.events[0].json).get("reseeded") is True  # the origin's seed is public now


def test_verify_by_the_organiser_shows_records_as_a_spectator_sees_them(arena: Arena) -> None:
    organiser = _host_key(arena)
    match, picked = _live_match_with_a_sealed_pick(arena, organiser)
    for who in (organiser, arena.admin):
        for version in (1, picked):
            made_up = pb.Receipt(version=version, chain_head="0" * 64, key_id="made-up")
            report = arena.matches.Verify(pb.VerifyRequest(match_id=match, receipts=[made_up]), metadata=auth(who))
            assert not report.ok and report.first_bad_version == version
            shown = json.loads(report.recorded_json)
            assert "seed" not in shown and "host_token" not in shown and "invitations" not in shown
            assert '"number"' not in report.recorded_json and "pick 3" not in report.recorded_json
    # The host of an ordinary match still sees the stored record whole.
    client = arena.server.client()
    try:
        created = client.create("duel", ["ann", "bob"], seed=7)
        made_up = pb.Receipt(version=1, chain_head="0" * 64, key_id="made-up")
        report = arena.matches.Verify(
            pb.VerifyRequest(match_id=created.match_id, receipts=[made_up]), metadata=auth(created.host_token)
        )
        assert json.loads(report.recorded_json)["seed"] == 7
    finally:
        client.close()
