"""One caller's work is bounded (issue 23, item 6). The adversaries: a seat that replaces its submission
without end (every replacement is a record), an anonymous Audit caller paging a long match, and a
spectator whose first view of a long match would hold the event loop."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from clients.client import MatchClient
from matchserver.v1 import matchserver_pb2 as pb
from server.app import Settings
from server.clock import ManualClock
from server.limits import Limits
from server.web.live import DRAW_CHUNK, LiveReplay
from tests.support.server import ServerThread


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[ServerThread]:
    limits = Limits(max_submissions_per_seat_per_phase=3, max_audit_records_per_page=10)
    settings = Settings(
        address="127.0.0.1:0", var_dir=str(tmp_path / "var"), clock=ManualClock(), tick_interval=0.05, limits=limits
    )
    server = ServerThread(settings).start()
    yield server
    server.stop()


def _seated(client: MatchClient, game: str, players: list[str]) -> tuple[str, str, dict[str, str]]:
    created = client.create(game, players, seed=17)
    return created.match_id, created.host_token, {p: client.join(created.match_id, p) for p in players}


def _starts(index: int) -> str:
    return "; ".join(f"start {miner} {index + offset + 1}" for offset, miner in enumerate("bcpst"))


def test_a_seat_replaces_its_submission_at_most_max_submissions_per_seat_per_phase(limited: ServerThread) -> None:
    client = limited.client()
    try:
        players = ["a", "b", "c", "d", "e"]
        match_id, host, tokens = _seated(client, "mining", players)
        for _ in range(3):
            client.submit(match_id, tokens["a"], text=_starts(0))
        version = client.state(match_id, host).version
        with pytest.raises(grpc.RpcError) as refused:
            client.submit(match_id, tokens["a"], text=_starts(0))
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "max_submissions_per_seat_per_phase is 3" in (refused.value.details() or "")
        assert client.state(match_id, host).version == version  # nothing was written
        client.submit(match_id, tokens["b"], text=_starts(1))  # the others are not limited by a's count
    finally:
        client.close()


def test_one_audit_page_walks_at_most_max_audit_records_per_page_and_the_pages_hold_the_whole_trail(
    limited: ServerThread,
) -> None:
    client = limited.client()
    try:
        match_id, host, _ = _seated(client, "duel", ["ann", "bob"])
        for _ in range(15):  # a long log of host records, each explained in the trail
            client.host_action(match_id, host, "pause", reason="a")
            client.host_action(match_id, host, "resume", reason="b")
        version = client.state(match_id, host).version
        request = pb.AuditRequest(match_id=match_id, page_size=1000)
        seen: list[int] = []
        first = 1
        while True:
            page = client.stub.Audit(request, metadata=[("authorization", "Spectator")])
            versions = [entry.version for entry in page.entries]
            assert all(first <= v < first + 10 for v in versions), "a page walked past its window"
            seen += versions
            if not page.next_page_token:
                break
            request.page_token = page.next_page_token
            first += 10  # a page of room for 1,000 entries ends where its window does
        assert seen == sorted(set(seen)) and seen[-1] == version  # every entry once, in order, to the end
        assert len(seen) >= 30
    finally:
        client.close()


@pytest.mark.slow
def test_a_first_view_of_a_long_match_is_drawn_in_chunks_the_loop_serves_others_between(
    limited: ServerThread,
) -> None:
    client = limited.client()
    try:
        match_id, host, _ = _seated(client, "cookoff", ["ann", "bob"])
        for _ in range(DRAW_CHUNK):
            client.host_action(match_id, host, "pause", reason="a")
            client.host_action(match_id, host, "resume", reason="b")
        assert limited.running is not None
        matches = limited.running.matches

        async def watch_the_draw() -> tuple[list[int], int]:
            live = await matches.load(uuid.UUID(match_id))
            replay = LiveReplay()
            drawing = asyncio.ensure_future(replay.catch_up(live))
            seen: list[int] = []
            while not drawing.done():
                seen.append(replay.version)  # this coroutine runs while the page is being drawn
                await asyncio.sleep(0)
            await drawing
            return seen, live.version

        seen, version = limited.run(watch_the_draw(), timeout=240)
        assert any(0 < drawn < version for drawn in seen)
    finally:
        client.close()
