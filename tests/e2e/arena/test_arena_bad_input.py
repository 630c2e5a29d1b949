"""Bad input of every kind at every ArenaService RPC, through a real server: random requests from the
admin, a bot, a spectator and a forged key, and undecodable bytes. Each is answered with a clear status
(never INTERNAL or UNKNOWN), and afterwards the arena still works."""

from __future__ import annotations

import random

import grpc
import pytest

from matchserver.v1 import arena_pb2 as apb
from tests.e2e.arena.support import Arena, auth
from tests.e2e.test_bad_input_never_internal import fill
from tests.support.server import ServerThread

SERVICE = apb.DESCRIPTOR.services_by_name["ArenaService"]
CLEAR = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.DEADLINE_EXCEEDED,  # BotEvents waits for news: the test's own deadline ends it
}


def _call(
    channel: grpc.Channel, method: object, request: bytes, metadata: tuple[tuple[str, str], ...]
) -> grpc.StatusCode:
    path = f"/{SERVICE.full_name}/{method.name}"  # type: ignore[attr-defined]
    try:
        if method.server_streaming:  # type: ignore[attr-defined]
            stream = channel.unary_stream(path)(request, metadata=metadata, timeout=0.5)
            for _ in stream:
                pass
        else:
            channel.unary_unary(path)(request, metadata=metadata, timeout=10)
    except grpc.RpcError as exc:
        error = exc
    else:
        return grpc.StatusCode.OK
    assert error.details() or error.code() == grpc.StatusCode.DEADLINE_EXCEEDED, (method, error)
    return error.code()


# A stream (BotEvents) waits out its 0.5 s deadline on each request it lets through: about 3 s, so slow.
@pytest.mark.parametrize(
    "method", [pytest.param(m.name, marks=[pytest.mark.slow] if m.server_streaming else []) for m in SERVICE.methods]
)
def test_random_and_malformed_requests_get_a_clear_status(server: ServerThread, method: str) -> None:
    arena = Arena(server)
    try:
        bot = arena.bot("ann")
        arena.bot("bob")
        descriptor = SERVICE.methods_by_name[method]
        request_class = getattr(apb, descriptor.input_type.name)
        rng = random.Random(method)
        credentials = [auth(arena.admin), auth(bot), auth(None), auth("msbk_forged"), (("authorization", "Basic x"),)]
        codes = set()
        for attempt in range(30):
            request = request_class()
            fill(request, rng)
            data = request.SerializeToString() if attempt % 5 else b"\x0a\xff\xff\xff\xff\xff"
            codes.add(_call(arena.channel, descriptor, data, rng.choice(credentials)))
        assert codes <= CLEAR, codes
        # Afterwards the arena still holds its bots and plays a tournament.
        made = arena.tournament("duel", ["ann", "bob"], format="round-robin", games_per_pair=1, seed=2)
        assert arena.play_out(made.tournament_id).state == "finished"
    finally:
        arena.close()


def test_a_tournament_too_large_or_ill_formed_is_refused_before_it_is_drawn(server: ServerThread) -> None:
    arena = Arena(server)
    try:
        for name in ("ann", "bob", "cid"):
            arena.bot(name)
        bad = [
            ({"game": "cookoff", "format": "round-robin", "games_per_pair": 2**31 - 1}, "max_tournament_matches"),
            ({"game": "mining", "format": "rotation", "rounds": 2**31 - 1}, "max_tournament_matches"),
            ({"game": "mining", "format": "rotation", "table_size": 9}, "table_size 9"),
            ({"game": "mining", "format": "rotation", "rounds": -1}, "0 (the default) or more"),
            ({"game": "mining", "format": "swiss"}, "format 'swiss'"),
            ({"game": "chess"}, "unknown game"),
        ]
        for options, said in bad:
            with pytest.raises(grpc.RpcError) as refused:
                arena.tournament(bots=["ann", "bob", "cid"], **options)  # type: ignore[arg-type]
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and said in refused.value.details()
        with pytest.raises(grpc.RpcError) as twice:
            arena.tournament("mining", ["ann", "ann", "bob"])
        assert "named once" in twice.value.details()
        listing = arena.stub.ListTournaments(apb.ListTournamentsRequest(), metadata=auth(None))
        assert list(listing.tournaments) == []  # nothing refused was recorded
    finally:
        arena.close()
