"""A bot key plays its own arena seat over Play (issue 27), and no other: another bot's seat, or a match
where it holds none, is PERMISSION_DENIED before anything is sent."""

from __future__ import annotations

import queue
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


def _play(arena: Arena, key: str, match_id: str, player: str = "") -> list[pb.PlayResponse]:
    """Open Play, answer the first Turn with pick 2, and read until the Move's result."""
    outgoing: queue.Queue[pb.PlayRequest | None] = queue.Queue()
    outgoing.put(pb.PlayRequest(start=pb.PlayStart(match_id=match_id, player=player)))
    call = arena.matches.Play(iter(outgoing.get, None), metadata=auth(key), timeout=60)
    seen: list[pb.PlayResponse] = []
    try:
        for message in call:
            seen.append(message)
            if message.WhichOneof("kind") == "turn":
                move = pb.Move(request_id="m1", turn_version=message.turn.version, text="pick 2")
                outgoing.put(pb.PlayRequest(move=move))
            if message.WhichOneof("kind") == "result":
                return seen
    finally:
        outgoing.put(None)
        call.cancel()
    return seen


def test_a_bot_key_plays_its_own_seat_over_play_and_no_other(arena: Arena) -> None:
    ann, _bob, cid = arena.bot("ann"), arena.bot("bob"), arena.bot("cid")
    request = apb.CreateChallengeRequest(game="duel", bots=["ann", "bob"])
    match = arena.stub.CreateChallenge(request, metadata=auth(arena.admin)).challenge.match_id
    seen = _play(arena, ann, match)
    turns = [m.turn for m in seen if m.WhichOneof("kind") == "turn"]
    results = [m.result for m in seen if m.WhichOneof("kind") == "result"]
    assert turns and turns[0].seat == "ann"
    assert results and results[0].accepted and results[0].text == "pick 2"
    for key, player, said in ((ann, "bob", "themself"), (cid, "", "bot cid holds no seat")):
        with pytest.raises(grpc.RpcError) as refused:
            _play(arena, key, match, player)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert said in (refused.value.details() or "")
