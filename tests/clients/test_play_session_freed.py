"""A Play session dropped by its owner is freed at once, its gRPC call with it, even while gRPC's own thread
still holds the session's request stream (it has not taken the close yet, or never will). When that stream
was a method of the session, the thread kept the call alive into the interpreter's finalization, where
gRPC's finalizer of the call waited for good on a lock a frozen thread held: a bridge said the match was
over and never exited (once in 22 runs of tests/clients/test_bridge.py on loaded cores)."""

from __future__ import annotations

import weakref

from clients.play_stream import PlaySession
from tests.support.duel import seat_duel
from tests.support.server import ServerThread


def test_a_dropped_play_session_is_freed_while_grpc_still_holds_its_request_stream(server: ServerThread) -> None:
    client = server.client()
    match_id, _host, ann, _bob = seat_duel(client, seed=3)
    session = PlaySession(client, match_id, ann, player="ann")
    assert next(iter(session)).WhichOneof("kind")  # the stream is open; nothing closed its requests
    freed = weakref.ref(session)
    del session
    assert freed() is None  # not kept alive by the thread that reads its requests
