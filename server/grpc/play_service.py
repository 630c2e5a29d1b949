"""MatchService.Play: one seat's whole game on one bidirectional stream (docs/BOTS.md, "The Play stream").

The server sends every record after the client's version as an Update (built once per viewer class and
shared, as Subscribe's are), a Turn whenever the seat's turn opens (server/turns.py: exactly once per
decision point on a stream), a MoveResult for each Move, and Ended once the match is over (the stream then
closes with OK). A Move names the turn it answers; decided on any other it is refused as stale and nothing
is applied. Moves are taken one at a time, in order. Like Subscribe, a stream the server ends on purpose
carries the RESUME_FROM trailer.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

import grpc

from engine.contract import Game, Viewer
from matchserver.v1 import matchserver_pb2 as pb
from server.errors import BadRequest, DataLoss, PermissionDenied, Unauthenticated
from server.fanout import StreamWake, WriteWatch
from server.grpc import convert
from server.grpc.plumbing import MalformedRequest, abort_for, bearer_token, end_stream, request_tag, status_code_for
from server.limits import check_command_text, check_seat_name, cut
from server.live import LiveMatch
from server.matches import Matches
from server.records import token_hash
from server.repository import parse_id
from server.streams import OpenStream, StreamEnd, peer_address
from server.turns import turn_view
from server.visibility import visible_results

CLIENT_DONE = object()  # the client closed its side: no more moves, the server goes on sending


class PlayStream:
    def __init__(self, matches: Matches, context: grpc.aio.ServicerContext) -> None:
        self.matches = matches
        self.limits = matches.limits
        self.context = context
        # The client's requests not taken yet; the reader pokes the stream's wait when it adds one (while
        # the stream waits for a move or a change): no queue, no task per wait.
        self.moves: deque[Any] = deque()
        self.wake: StreamWake | None = None  # made in _follow, inside the running loop
        self.turn_sent: int | None = None  # the turn this stream last sent (one Turn per decision point)
        self.watch = WriteWatch(matches.streams.limits.write_timeout)
        # PlayStart.bundle: what a pass has for the seat is kept here and written as one Bundle before the
        # stream waits (or ends), instead of one message each.
        self.bundle = False
        self.pending: list[bytes] = []

    async def run(self, requests: AsyncIterator[Any]) -> None:
        context = self.context
        try:
            first = await anext(aiter(requests), None)
            start = _start_of(first)
            match_id = parse_id(start.match_id)
            token = bearer_token(context)
            if start.player:
                check_seat_name(start.player, self.limits)
            live = await self.matches.load(match_id)
            viewer = await self.matches.callers.viewer_for(live, token)
            if viewer.kind != "player" or viewer.player is None:
                raise PermissionDenied("Play is a seat's stream: use the seat's token, or the bot key that holds it")
            if start.player and start.player != viewer.player:
                raise PermissionDenied(f"this credential is {viewer.player}'s; a player can act only as themself")
            if start.from_version < 0:
                raise BadRequest("from_version must be 0 or more")
            self.bundle = start.bundle
            credential = token_hash(token) if token else None
            stream = self.matches.streams.open(match_id, credential, peer_address(context.peer()), placed=True)
        except Exception as exc:
            await abort_for(exc, context, self.limits)
            return
        reader = asyncio.ensure_future(self._read(requests))
        try:
            outcome = await self._follow(stream, token, viewer, min(start.from_version, live.version))
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            self.watch.close()
            self.matches.streams.close(stream)
        if outcome is not None:
            await end_stream(context, *outcome)

    async def _read(self, requests: AsyncIterator[Any]) -> None:
        async for request in requests:
            self._arrive(request)
        self._arrive(CLIENT_DONE)

    def _arrive(self, request: Any) -> None:
        self.moves.append(request)
        if self.wake is not None:
            self.wake.poke()

    async def _follow(
        self, stream: OpenStream, token: str | None, viewer: Viewer, sent: int
    ) -> tuple[StreamEnd, int] | None:
        """Send until the match ends (None: the stream closes with OK) or the stream is ended on purpose."""
        self.wake = StreamWake(self.matches.changes, stream.match_id, stream.ending, self.matches.repository.cached)
        try:
            return await self._follow_woken(stream, token, viewer, sent)
        finally:
            self.wake.close()
            self.wake = None

    async def _follow_woken(
        self, stream: OpenStream, token: str | None, viewer: Viewer, sent: int
    ) -> tuple[StreamEnd, int] | None:
        seat = str(viewer.player)
        limits = self.matches.streams.limits
        stream.sent = sent
        taking = True
        checked = -1  # the version the credential was last checked at: a revocation is a record
        while True:
            try:
                live = await self.matches.load(stream.match_id)
            except DataLoss as exc:
                return StreamEnd(str(exc), revoked=False, lost=True), sent
            if live.version != checked:
                try:
                    await self.matches.callers.viewer_for(live, token)
                except (Unauthenticated, PermissionDenied) as exc:
                    return StreamEnd(f"the credential of this stream was revoked: {exc}", revoked=True), sent
                checked = live.version
            passed = sent  # the last version the client has whole: a Bundle it does not take is not resumed past
            sent, slow = await self._updates(live, viewer, stream, sent)
            if slow:
                return _slow(sent + 1, sent, limits.write_timeout), sent
            if stream.ending.done():
                await self._flush()
                return stream.ending.result(), sent
            status = live.status()
            if status.finished:
                ended = convert.ended_response(live.version, status, visible_results(live, live.version))
                await self._send(ended.SerializeToString())
                await self._flush()
                return None
            turn = turn_view(live, seat, self.matches.clock.now(), shown=self.turn_sent)
            if turn is not None:
                self.turn_sent = turn.version
                await self._send(convert.turn_response(turn).SerializeToString())
            if not await self._flush():
                stream.sent = passed
                return _slow(passed + 1, passed, limits.write_timeout), passed
            age_left = stream.opened_at + limits.max_age - time.monotonic()
            if age_left <= 0:  # (nothing is pending: the pass was flushed above)
                return StreamEnd(
                    f"this stream reached its maximum age of {limits.max_age:g} s (StreamLimits.max_age); "
                    f"play again from version {sent}",
                    revoked=False,
                ), sent
            wait = min(5.0, self.matches.refresh_every or 5.0, age_left)
            if not taking:
                await self._changed(stream, sent, wait)
                continue
            move = await self._next(stream, sent, wait)
            if move is CLIENT_DONE:
                taking = False
            elif move is not None:
                await self._answer(stream.match_id, token, seat, move)

    async def _updates(self, live: LiveMatch, viewer: Viewer, stream: OpenStream, sent: int) -> tuple[int, bool]:
        """Send every version past `sent` (until the stream is ended on purpose): (the last sent, whether the
        client was too slow to take one)."""
        updates, last = self.matches.streams.updates, live.version
        for version in range(sent + 1, last + 1):
            if stream.ending.done():
                break
            key = (live.id, viewer, version, last)  # Subscribe's update, shared with its streams
            update = updates.get(key, convert.update_bytes, live, viewer, version, last)
            if not await self._send(convert.play_update(update)):
                return sent, True
            sent = stream.sent = version
        return sent, False

    async def _next(self, stream: OpenStream, sent: int, wait: float) -> Any:
        """The client's next request, or None once the match moves past `sent` (or `wait` s pass)."""
        if not self.moves:
            assert self.wake is not None  # made by _follow for the stream's life
            await self.wake.wait(sent, wait)
        return self.moves.popleft() if self.moves else None

    async def _changed(self, stream: OpenStream, sent: int, wait: float) -> None:
        await self.matches.queries.wait_for_change(stream.match_id, sent, timeout=wait, until=stream.ending)

    async def _answer(self, match_id: uuid.UUID, token: str | None, seat: str, request: Any) -> None:
        """One Move, decided and answered; a refusal is a MoveResult (the stream goes on)."""
        request_id = "" if isinstance(request, MalformedRequest) else str(request.move.request_id)
        try:
            move = _move_of(request)
            text: str | None = None
            typed: Any = None
            if move.WhichOneof("command") == "text":
                text = move.text
                check_command_text(text, self.limits)
            elif move.WhichOneof("command") == "typed":
                message = move.typed

                def typed(game: Game[Any, Any]) -> Any:
                    return convert.game_command(game, message)
            else:
                raise BadRequest("a move needs a command: text or typed")
            tag = request_tag(move, self.limits)
            accepted = await self.matches.commands.submit(
                match_id, token, seat, text, typed, None, tag, turn_version=int(move.turn_version), with_records=False
            )
        except Exception as exc:
            code = status_code_for(exc)
            if code is None:
                raise  # a server bug: the stream ends INTERNAL, as any unmapped error does
            await self._send(
                convert.move_refused(request_id, code.name, cut(str(exc), self.limits)).SerializeToString()
            )
            return
        await self._send(convert.move_accepted(request_id, accepted).SerializeToString())  # after the commit

    async def _send(self, message: bytes) -> bool:
        """A serialized PlayResponse: kept for the pass's Bundle, or written now; False if the client is too
        slow to take it (StreamLimits.write_timeout)."""
        if self.bundle:
            self.pending.append(message)
            return True
        return await self._write(message, self.limits_write_timeout)

    async def _flush(self) -> bool:
        """Write the pass's Bundle, if anything is kept (True when nothing is, or unbundled)."""
        if not self.pending:
            return True
        items, self.pending = self.pending, []
        return await self._write(convert.play_bundle(items) if len(items) > 1 else items[0], self.limits_write_timeout)

    @property
    def limits_write_timeout(self) -> float:
        return self.matches.streams.limits.write_timeout

    async def _write(self, message: Any, timeout: float) -> bool:
        """Write one message; False if the client has not taken it within StreamLimits.write_timeout
        (self.watch: one timer per stream, not one per message)."""
        return await self.watch.write(self.context, message)


def _slow(version: int, sent: int, timeout: float) -> StreamEnd:
    return StreamEnd(
        f"the client did not take update {version} within {timeout:g} s (StreamLimits.write_timeout); "
        f"play again from version {sent}",
        revoked=False,
    )


def _start_of(request: Any) -> pb.PlayStart:
    if request is None:
        raise BadRequest("a Play stream starts with a PlayStart message (match_id, player, from_version)")
    if isinstance(request, MalformedRequest):
        raise BadRequest(request.error)
    if request.WhichOneof("kind") != "start":
        raise BadRequest("a Play stream starts with a PlayStart message, before any Move")
    start: pb.PlayStart = request.start
    return start


def _move_of(request: Any) -> pb.Move:
    if isinstance(request, MalformedRequest):
        raise BadRequest(request.error)
    if request.WhichOneof("kind") != "move":
        raise BadRequest("after its PlayStart, a Play stream takes only Moves")
    move: pb.Move = request.move
    return move
