"""The store at rest: a match whose stored record cannot be read is set aside (DATA_LOSS), every other
match is served; a store file that is empty, truncated or not SQLite stops the server, untouched."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest

from clients import cli
from clients.client import RESUME_FROM
from server.clock import ManualClock
from server.store import EventStore
from tests.conftest import make_server
from tests.support import storefile
from tests.support.duel import seat_duel
from tests.support.server import ServerThread
from tests.support.streams import ended


def undecodable(path: Path, match_id: str, version: int) -> None:
    storefile.overwrite(path, match_id, version, b'{"record": {"kind": "game", "eve')


def unappliable(path: Path, match_id: str, version: int) -> None:
    storefile.rewrite(path, match_id, version, lambda record: {k: v for k, v in record.items() if k != "kind"})


@pytest.mark.parametrize("damage", [undecodable, unappliable])
def test_a_damaged_row_quarantines_its_match_and_every_other_match_is_served(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: Callable[[Path, str, int], None]
) -> None:
    clock = ManualClock()
    first = make_server(tmp_path, clock)
    client = first.client()
    damaged, damaged_host, ann, _ = seat_duel(client, seed=1)
    bad_version = client.submit(damaged, ann, text="pick 2").version
    healthy, healthy_host, other_ann, _ = seat_duel(client, seed=2)
    first.stop()
    damage(Path(first.settings.var_dir) / "matches.db", damaged, bad_version)

    server = make_server(tmp_path, clock)  # starts: the damage is one match's, not the server's
    try:
        client = server.client()
        for call in (lambda: client.state(damaged, damaged_host), lambda: client.submit(damaged, ann, text="pick 1")):
            with pytest.raises(grpc.RpcError) as caught:
                call()
            assert caught.value.code() == grpc.StatusCode.DATA_LOSS
            assert f"version {bad_version}" in str(caught.value.details()) and damaged in str(caught.value.details())
        assert client.submit(healthy, other_ann, text="pick 3").version > 0
        # Listed from the catalog (nothing is loaded to list), so `verify --all` finds and reports it.
        assert [m.match_id for m in client.list_matches()] == [damaged, healthy]
        report = client.verify(damaged, damaged_host)
        assert not report.ok and report.first_bad_version == bad_version and "cannot be read" in report.problem
        assert client.verify(healthy, healthy_host).ok
        with pytest.raises(grpc.RpcError) as caught:
            client.verify(damaged, other_ann)  # the prefix still says who the host is
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
        base = ["--server", server.address, "--var", server.settings.var_dir]
        assert cli.main([*base, "verify", damaged, f"--token={damaged_host}"]) == 1
        assert f"DIFFERS at version {bad_version}" in capsys.readouterr().out
    finally:
        server.stop()


def test_a_row_damaged_while_serving_is_reported_by_verify_then_quarantined(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=3)
    client.submit(match_id, ann, text="pick 1")
    other, other_host, _, _ = seat_duel(client, seed=4)
    undecodable(Path(server.settings.var_dir) / "matches.db", match_id, 3)
    report = client.verify(match_id, host)
    assert not report.ok and report.first_bad_version == 3 and "quarantined" in report.problem
    with pytest.raises(grpc.RpcError) as caught:
        client.submit(match_id, bob, text="pick 2")
    assert caught.value.code() == grpc.StatusCode.DATA_LOSS and "version 3" in str(caught.value.details())
    assert client.state(other, other_host).version > 0


def a_store_with_rows(path: Path) -> None:
    store = EventStore(f"sqlite:{path}")
    match = uuid.uuid4()
    store.append(match, 0, [{"kind": "game", "event": {"padding": "x" * 500}} for _ in range(200)])
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("pragma wal_checkpoint(TRUNCATE)")  # everything in the main file, as after a clean stop


def emptied(path: Path) -> str:
    a_store_with_rows(path)
    path.write_bytes(b"")
    return "empty (0 bytes)"


def truncated(path: Path) -> str:
    a_store_with_rows(path)
    with path.open("r+b") as file:
        file.truncate(path.stat().st_size // 3)
    return "truncated"


def not_sqlite(path: Path) -> str:
    path.write_text("matches, as a text file someone saved over the store\n")
    return "not an SQLite database"


@pytest.mark.parametrize("spoil", [emptied, truncated, not_sqlite])
def test_an_unusable_store_file_stops_the_server_and_stays_as_it_was(
    tmp_path: Path, spoil: Callable[[Path], str]
) -> None:
    var = tmp_path / "var"
    var.mkdir()
    path = var / "matches.db"
    said = spoil(path)
    before = path.read_bytes()
    env = {key: value for key, value in os.environ.items() if not key.startswith("MATCHSERVER_")}
    done = subprocess.run(
        [sys.executable, "-m", "server.main", "--address", "127.0.0.1:0", "--var", str(var)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and "listening" not in done.stdout
    assert str(path) in done.stderr and said in done.stderr
    assert path.read_bytes() == before


def test_a_match_quarantined_while_followed_ends_its_streams_with_data_loss_and_the_resume_trailer(
    server: ServerThread,
) -> None:
    client = server.client()
    match_id, host, ann, _bob = seat_duel(client, seed=5)
    client.submit(match_id, ann, text="pick 1")
    other, _, other_ann, _ = seat_duel(client, seed=6)
    version = client.state(match_id, host).version
    followers = {"host": host, "ann": ann, "spectator": None}
    streams = {who: client.subscribe(match_id, token) for who, token in followers.items()}
    for stream in streams.values():  # each has taken every version so far
        assert [next(stream).event.version for _ in range(version)] == list(range(1, version + 1))
    elsewhere = client.subscribe(other)
    other_version = client.state(other).version
    assert [next(elsewhere).event.version for _ in range(other_version)][-1] == other_version

    undecodable(Path(server.settings.var_dir) / "matches.db", match_id, 3)
    assert not client.verify(match_id, host).ok  # reads the store: the match is quarantined now

    for who, stream in streams.items():
        versions, error = ended(stream)  # the resuming client raises DATA_LOSS: it cannot come back
        assert versions == [], who
        assert error.code() == grpc.StatusCode.DATA_LOSS, (who, error.code(), error.details())
        assert "version 3" in (error.details() or "") and match_id in (error.details() or ""), who
        assert int(dict(error.trailing_metadata() or ())[RESUME_FROM]) == version, who
    client.submit(other, other_ann, text="pick 2")  # the other match's stream still follows it
    assert next(elsewhere).event.version == other_version + 1
    elsewhere.cancel()
    client.close()
