"""The floor under any Python server of our protocol: MatchService over grpc.aio with no application (no
store, no rules, no chain, no views), in `make bench-peers` beside ours and the peers (bench/peers.py, its
"grpc.aio, no application" column), driven by the same client processes (bench/peer_client.py).

    python -m bench.bare_server        prints "listening on 127.0.0.1:PORT", serves until killed

It plays the duel's shape and nothing more: CreateMatch and JoinMatch hand out ids and tokens; each Play
stream gets a Turn per round, and a Move is answered as ours answers it, with the same reads and writes on
the wire: one read, one Bundle to the mover (its MoveResult, the Updates, the next Turn) and one to the
other seat (the Updates, the next Turn), messages of about our sizes; a round closes when both seats have
picked (three Updates: the pick, the round resolved, the next opened); a duel of ROUNDS rounds sends Ended
and closes its streams. Spectators (Subscribe, bundled) get each move's Updates as one message; GetState
answers the version. Reads in a task of their own and writes from the handler, as ours.

What a move costs here is what grpc.aio and protobuf cost to carry it in this process: our server's CPU
beyond it is our application's, and a peer whose whole move costs less than this one is out of reach of
any grpc.aio server of this protocol on the machine that measured it.

    python -m bench.bare_server --durable FILE

The durable floor ("grpc.aio + SQLite commits, no application"): the same, but no one hears of a move
before its records are committed to an SQLite file as ours commits them (WAL, synchronous=FULL, one row per
version in the library's table, on the loop's thread, moves grouped as server/writer.py groups them: a
group gathers up to GATHER_FOR s, until as many more have come as joined the last one, plus one, and stops
gathering for PAUSE_AFTER_ALONE groups after one nobody joined). A peer whose whole move costs less than
this one's is out of reach of any server of this protocol on grpc.aio that keeps each acknowledged move in
SQLite, before it runs a rule."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import sqlite3
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from matchserver.v1 import matchserver_pb2 as pb

ROUNDS = {"duel": 3, "duel-endless": 0}  # 0: rounds never run out
SEATS = ("ann", "bob")
# About the sizes ours sends for a duel (its records' JSON, a seat's view): the same bytes on the wire.
RECORD = json.dumps({"at": 1.0, "cause": {"actor": "ann"}, "event": {"type": "Picked"}, "x": "y" * 60})
VIEW = json.dumps({"picks": {"ann": 2}, "round": 1, "scores": {"ann": 0, "bob": 0}, "x": "y" * 20})
GATHER_FOR = 0.002  # as server/writer.py
PAUSE_AFTER_ALONE = 32
TABLE = (  # the eventsourcing library's table for an application's events (rowids: its notification ids)
    "CREATE TABLE IF NOT EXISTS stored_events (originator_id TEXT, originator_version INTEGER, topic TEXT, "
    "state BLOB, PRIMARY KEY (originator_id, originator_version))"
)
INSERT = "INSERT INTO stored_events (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)"
Row = tuple[str, int, str, bytes]


@dataclass
class Outbox:
    """One stream's messages not written yet, and a future its handler waits on."""

    items: list[pb.PlayResponse | pb.SubscribeResponse] = field(default_factory=list)
    ready: asyncio.Future[None] | None = None
    closed: bool = False

    def put(self, *items: Any, close: bool = False) -> None:
        self.items.extend(items)
        self.closed = self.closed or close
        if self.ready is not None and not self.ready.done():
            self.ready.set_result(None)

    async def take(self) -> list[Any]:
        while not self.items and not self.closed:
            self.ready = asyncio.get_running_loop().create_future()
            await self.ready
        items, self.items = self.items, []
        return items


@dataclass
class Match:
    rounds: int
    id: str = field(default_factory=lambda: uuid.uuid4().hex)  # its rows' key, as long as ours
    version: int = 1
    round: int = 1
    picked: set[str] = field(default_factory=set)
    seats: dict[str, Outbox] = field(default_factory=dict)
    watchers: list[Outbox] = field(default_factory=list)


def _status(match: Match) -> pb.Status:
    awaiting = [seat for seat in SEATS if seat not in match.picked]
    return pb.Status(phase=f"round {match.round}", awaiting=awaiting, submitted=sorted(match.picked), binding=True)


def _update(match: Match, version: int, last: bool) -> pb.PlayResponse:
    update = pb.Update(event=pb.Event(version=version, kind="game", type="Picked", json=RECORD))
    if last:
        update.view_json = VIEW
        update.status.CopyFrom(_status(match))
    return pb.PlayResponse(update=update)


def _turn(match: Match, seat: str) -> pb.PlayResponse:
    turn = pb.Turn(
        version=match.version,
        match_version=match.version,
        view_json=VIEW,
        status=_status(match),
        forms=["pick N (1 to 3)"],
        example="pick 1",
        seat=seat,
        game="duel",
    )
    return pb.PlayResponse(turn=turn)


class Commits:
    """--durable: moves' rows committed in groups on the loop's thread; each move's deliveries run after its
    group's commit (see the module's docstring)."""

    def __init__(self, path: str) -> None:
        self.connection = sqlite3.connect(path, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute(TABLE)
        self.waiting: list[tuple[list[Row], Callable[[], None]]] = []
        self.expect = 1  # more moves a gathering waits for
        self.alone = 0  # groups still to write at once
        self.timer: asyncio.Handle | None = None

    def add(self, rows: list[Row], deliver: Callable[[], None]) -> None:
        self.waiting.append((rows, deliver))
        loop = asyncio.get_running_loop()
        if len(self.waiting) == 1:
            if self.alone:
                self.alone -= 1
                self.timer = loop.call_soon(self.commit)
            else:
                self.timer = loop.call_later(GATHER_FOR, self.commit)
        elif len(self.waiting) > self.expect and self.timer is not None:
            self.timer.cancel()
            self.timer = loop.call_soon(self.commit)

    def commit(self) -> None:
        group, self.waiting, self.timer = self.waiting, [], None
        joined = len(group) - 1
        if joined == 0:
            self.alone, self.expect = PAUSE_AFTER_ALONE, 1
        else:
            self.expect = joined + 1 if joined >= self.expect else joined
        self.connection.execute("BEGIN")
        self.connection.executemany(INSERT, [row for rows, _ in group for row in rows])
        self.connection.execute("COMMIT")
        for _, deliver in group:
            deliver()


class Bare:
    def __init__(self, commits: Commits | None = None) -> None:
        self.matches: dict[str, Match] = {}
        self.ids = itertools.count(1)
        self.commits = commits

    async def CreateMatch(self, request: pb.CreateMatchRequest, context: Any) -> pb.CreateMatchResponse:
        match_id = f"m{next(self.ids)}"
        self.matches[match_id] = Match(ROUNDS.get(request.game, 0))
        return pb.CreateMatchResponse(match_id=match_id, version=1)

    async def JoinMatch(self, request: pb.JoinMatchRequest, context: Any) -> pb.JoinMatchResponse:
        match = self.matches[request.match_id]
        match.version += 1
        return pb.JoinMatchResponse(player_token=f"{request.match_id}/{request.player}", version=match.version)

    async def GetState(self, request: pb.GetStateRequest, context: Any) -> pb.GetStateResponse:
        return pb.GetStateResponse(match_id=request.match_id, version=self.matches[request.match_id].version)

    async def Play(self, requests: AsyncIterator[pb.PlayRequest], context: Any) -> None:
        first = await anext(aiter(requests))
        token = dict(context.invocation_metadata())["authorization"].removeprefix("Bearer ")
        seat = token.split("/")[1]  # JoinMatch's token: MATCH/SEAT
        match = self.matches[first.start.match_id]
        outbox = match.seats[seat] = Outbox()
        outbox.put(_turn(match, seat))

        async def read() -> None:
            async for request in requests:
                self._move(match, seat, request.move)

        reader = asyncio.ensure_future(read())
        try:
            while items := await outbox.take():
                await context.write(pb.PlayResponse(bundle=pb.Bundle(items=items)) if len(items) > 1 else items[0])
        finally:
            reader.cancel()

    def _move(self, match: Match, seat: str, move: pb.Move) -> None:
        first = match.version + 1
        deliver = self._decide(match, seat, move)
        if self.commits is None:
            deliver()
        else:
            rows = [(match.id, version, "Picked", RECORD.encode()) for version in range(first, match.version + 1)]
            self.commits.add(rows, deliver)

    def _decide(self, match: Match, seat: str, move: pb.Move) -> Callable[[], None]:
        """The move applied to the match; what tells the seats and watchers of it, to run once it is kept."""
        match.picked.add(seat)
        first = match.version + 1
        closes = len(match.picked) == len(SEATS)
        match.version += 3 if closes else 1
        if closes:
            match.picked.clear()
            match.round += 1
        versions = range(first, match.version + 1)
        updates = [_update(match, version, version == match.version) for version in versions]
        result = pb.MoveResult(request_id=move.request_id, accepted=True, version=match.version, text=move.text)
        ended = closes and match.rounds and match.round > match.rounds
        sends: list[tuple[Outbox, list[Any]]] = []  # built now: the match may move on before they are sent
        for other, outbox in match.seats.items():
            items: list[Any] = [pb.PlayResponse(result=result)] if other == seat else []
            items += updates
            if ended:
                items.append(pb.PlayResponse(ended=pb.Ended(version=match.version, status=_status(match))))
            elif closes:
                items.append(_turn(match, other))
            sends.append((outbox, items))
        watched = pb.SubscribeResponse(updates=[pb.SubscribeResponse(event=item.update.event) for item in updates])
        watchers = list(match.watchers)

        def deliver() -> None:
            for outbox, items in sends:
                outbox.put(*items, close=bool(ended))
            for watcher in watchers:
                watcher.put(watched)

        return deliver

    async def Subscribe(self, request: pb.SubscribeRequest, context: Any) -> None:
        match = self.matches[request.match_id]
        outbox = Outbox()
        match.watchers.append(outbox)
        outbox.put(pb.SubscribeResponse(updates=[pb.SubscribeResponse(event=pb.Event(version=match.version))]))
        try:
            while items := await outbox.take():  # a pass's moves as one message, as ours bundles them
                updates = [update for item in items for update in item.updates]
                await context.write(items[0] if len(items) == 1 else pb.SubscribeResponse(updates=updates))
        finally:
            match.watchers.remove(outbox)


async def serve(durable: str | None = None) -> None:
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    bare = Bare(Commits(durable) if durable else None)
    descriptor = pb.DESCRIPTOR.services_by_name["MatchService"]
    handlers = {}
    for method in descriptor.methods:  # only the methods it plays; the rest answer UNIMPLEMENTED
        behaviour = getattr(bare, method.name, None)
        if behaviour is not None:
            kind = (
                grpc.stream_stream_rpc_method_handler
                if method.client_streaming
                else grpc.unary_stream_rpc_method_handler
                if method.server_streaming
                else grpc.unary_unary_rpc_method_handler
            )
            handlers[method.name] = kind(
                behaviour,
                request_deserializer=getattr(pb, method.input_type.name).FromString,
                response_serializer=getattr(pb, method.output_type.name).SerializeToString,
            )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(descriptor.full_name, handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"listening on 127.0.0.1:{port}", flush=True)
    await server.wait_for_termination()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="our protocol over grpc.aio with no application")
    parser.add_argument("--durable", metavar="FILE", help="commit each move's rows to this SQLite file first")
    asyncio.run(serve(parser.parse_args().durable))
