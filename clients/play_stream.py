"""A seat's Play stream from Python (docs/BOTS.md, "The Play stream"): iterate the server's messages (Turn,
Update, MoveResult, Ended) and answer each Turn with one `move`. `play_seat` is the whole seat loop for a
function of a Turn: the loop every language writes once.

    with PlaySession(client, match_id, token) as session:
        for message in session:
            if message.WhichOneof("kind") == "turn":
                session.move(message.turn.version, text=decide(message.turn))
"""

from __future__ import annotations

import json
import queue
import uuid
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from matchserver.v1 import matchserver_pb2 as pb

if TYPE_CHECKING:
    from clients.client import MatchClient

_CLOSE = object()


class PlaySession:
    """One Play stream. Iterating yields PlayResponse messages until the match ends (Ended is the last)."""

    def __init__(
        self,
        client: MatchClient,
        match_id: str,
        token: str,
        player: str = "",
        from_version: int = 0,
        bundle: bool = False,
    ):
        """`bundle`: the server sends each pass's messages as one Bundle (fewer messages, less server CPU);
        iterating still yields them one by one."""
        self._requests: queue.Queue[Any] = queue.Queue()
        start = pb.PlayStart(match_id=match_id, player=player, from_version=from_version, bundle=bundle)
        self._requests.put(pb.PlayRequest(start=start))
        self._call = client.stub.Play(_outgoing(self._requests), metadata=client._auth(token))
        self.version = from_version  # the last version an Update carried
        self.ended: pb.Ended | None = None

    def __iter__(self) -> Iterator[pb.PlayResponse]:
        for received in self._call:
            for message in received.bundle.items if received.WhichOneof("kind") == "bundle" else (received,):
                kind = message.WhichOneof("kind")
                if kind == "update":
                    self.version = message.update.event.version
                elif kind == "ended":
                    self.ended = message.ended
                yield message

    def move(
        self,
        turn_version: int,
        text: str | None = None,
        typed: pb.GameCommand | None = None,
        request_id: str | None = None,
    ) -> str:
        """Send one Move answering the Turn at `turn_version`; returns its request id (its MoveResult names it)."""
        move = pb.Move(request_id=request_id or uuid.uuid4().hex, turn_version=turn_version)
        if typed is not None:
            move.typed.CopyFrom(typed)
        else:
            move.text = text or ""
        self._requests.put(pb.PlayRequest(move=move))
        return move.request_id

    def close(self) -> None:
        self._requests.put(_CLOSE)
        self._call.cancel()

    def __enter__(self) -> PlaySession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _outgoing(requests: queue.Queue[Any]) -> Iterator[pb.PlayRequest]:
    """The requests a session sends, as gRPC's own thread takes them. A function of the queue, not a method:
    that thread may still hold it as the process exits, and through a method it kept the session's call
    alive into the interpreter's finalization, where gRPC's finalizer of the call waited for good on a lock
    a frozen thread held (a bridge said the match was over and never exited)."""
    while True:
        request = requests.get()
        if request is _CLOSE:
            return
        yield request


def play_seat(
    session: PlaySession, decide: Callable[[pb.Turn], str | None], on_message: Callable[[Any], None] | None = None
) -> pb.Ended | None:
    """The seat loop: answer every Turn with `decide(turn)` (its view is `json.loads(turn.view_json)`),
    once; a refused Move is logged by `on_message` and the seat waits for its next Turn. Returns Ended."""
    for message in session:
        if on_message is not None:
            on_message(message)
        if message.WhichOneof("kind") == "turn":
            text = decide(message.turn)
            if text is not None:
                session.move(message.turn.version, text=text)
    return session.ended


def view_of(turn: pb.Turn) -> Any:
    return json.loads(turn.view_json)
