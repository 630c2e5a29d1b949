"""Another program holding the SQLite store's write lock (a `sqlite3` shell inside a transaction): the
adversary can neither stall the server nor make it lose or half-write a move. A commit that meets the lock
waits for it on the store's thread, never on the event loop, so everyone else is still served; past
SQLite's lock timeout (server/store.py SQLITE_LOCK_TIMEOUT) the submit is UNAVAILABLE, saying to retry,
nothing is written, and the retry with the same request id, once the lock is gone, lands once."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest

from matchserver.v1 import matchserver_pb2 as pb
from server import store
from server.clock import ManualClock
from tests.conftest import make_server
from tests.support.duel import started_duel
from tests.support.server import ServerThread
from tests.support.waiting import wait_until


def bearer(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


@contextmanager
def write_lock_held(path: Path) -> Iterator[None]:
    """Another program's transaction holding the file's write lock until the block ends."""
    outside = sqlite3.connect(path, isolation_level=None)
    outside.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        outside.execute("ROLLBACK")
        outside.close()


@contextmanager
def server_waiting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: int) -> Iterator[ServerThread]:
    """A server on SQLite whose writes wait `seconds` for a held lock."""
    monkeypatch.setattr(store, "SQLITE_LOCK_TIMEOUT", seconds)
    running = make_server(tmp_path, ManualClock())
    try:
        yield running
    finally:
        running.stop()


@pytest.mark.slow
def test_a_submit_while_another_program_holds_the_write_lock_is_unavailable_and_its_retry_lands_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with server_waiting(tmp_path, monkeypatch, seconds=2) as server:
        client = server.client(timeout=120)
        created = started_duel(client, seed=4)
        ann = client.join(created.match_id, "ann")
        before = client.state(created.match_id, created.host_token).version
        request = pb.SubmitRequest(match_id=created.match_id, text="pick 2", request_id="ann-pick-1")
        with write_lock_held(tmp_path / "var" / "matches.db"), pytest.raises(grpc.RpcError) as refused:
            client.stub.Submit(request, metadata=bearer(ann), timeout=120)
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "retry" in (refused.value.details() or "")
        assert client.state(created.match_id, created.host_token).version == before  # nothing was written

        again = client.stub.Submit(request, metadata=bearer(ann), timeout=120)
        assert again.version > before
        picks = [e for e in client.history(created.match_id, created.host_token) if e.type == "Picked"]
        assert len(picks) == 1


def test_while_a_commit_waits_on_the_write_lock_the_server_answers_others_and_the_move_lands_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The lock outlasts the reader's deadline unless the reader is answered while the move waits: a commit
    that waited on the event loop would hold every other call for the whole lock timeout (300 s here)."""
    with server_waiting(tmp_path, monkeypatch, seconds=300) as server:
        assert server.running is not None
        writer = server.running.matches.writer
        client, reader = server.client(timeout=120), server.client(timeout=60)
        created = started_duel(client, seed=4)
        ann = client.join(created.match_id, "ann")
        before = client.state(created.match_id, created.host_token).version
        outcome: list[pb.SubmitResponse] = []
        move = pb.SubmitRequest(match_id=created.match_id, text="pick 2")
        submitting = threading.Thread(target=lambda: outcome.append(client.stub.Submit(move, metadata=bearer(ann))))
        with write_lock_held(tmp_path / "var" / "matches.db"):
            submitting.start()
            wait_until(lambda: writer.lock_waits >= 1, "the move's commit meets the lock")
            assert reader.state(created.match_id, created.host_token).version == before  # answered meanwhile
            assert submitting.is_alive() and not outcome  # ... while the move still waits
        submitting.join(120)
        assert outcome and outcome[0].version > before  # acknowledged once the lock was gone, and kept
        assert client.state(created.match_id, created.host_token).version == outcome[0].version
    assert any("locked by another program" in r.getMessage() for r in caplog.records if r.name == "server.matches")
