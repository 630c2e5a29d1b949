"""bench/bare_server.py's durable floor (`--durable`), the column `make bench-peers` reads as the least a
server of our protocol on grpc.aio pays to keep every acknowledged move in SQLite: it must tell no seat of a
move before the move's rows are committed, or the column would be cheaper than any durable server can be."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from bench.bare_server import Bare, Commits, Match, Outbox
from matchserver.v1 import matchserver_pb2 as pb


def test_the_durable_floor_tells_no_seat_of_a_move_before_its_rows_are_committed(tmp_path: Path) -> None:
    path = tmp_path / "floor.db"
    committed_when_told: list[int] = []  # rows another connection sees (committed ones) as a seat is told

    class Told(Outbox):
        def put(self, *items: Any, close: bool = False) -> None:
            with closing(sqlite3.connect(path)) as other:
                committed_when_told.append(other.execute("SELECT count(*) FROM stored_events").fetchone()[0])
            super().put(*items, close=close)

    async def play() -> None:
        bare = Bare(Commits(str(path)))
        match = Match(rounds=0)
        match.seats = {"ann": Told(), "bob": Told()}
        bare._move(match, "ann", pb.Move(request_id="1", text="pick 1"))
        assert committed_when_told == []  # gathering: nobody told yet
        assert (await asyncio.wait_for(match.seats["ann"].take(), 60))[0].result.request_id == "1"
        assert not (await match.seats["bob"].take())[0].HasField("result")  # ann's pick, as bob sees it
        bare._move(match, "bob", pb.Move(request_id="2", text="pick 2"))  # closes the round: three versions
        assert (await asyncio.wait_for(match.seats["bob"].take(), 60))[0].result.request_id == "2"

    asyncio.run(play())
    assert committed_when_told == [1, 1, 4, 4]  # each seat told only once its move's rows were committed
