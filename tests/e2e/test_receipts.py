"""Receipts and the keyed chain over a real server and a real SQLite file (docs/AUDIT.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import grpc
import pytest

from clients import cli
from matchserver.v1 import matchserver_pb2 as pb
from server.clock import ManualClock
from server.records import digest
from tests.conftest import make_server
from tests.support import storefile
from tests.support.duel import seat_duel
from tests.support.server import ServerThread

FIXTURE = Path(__file__).parents[1] / "fixtures" / "release-10"


def store_path(server: ServerThread) -> Path:
    return Path(server.settings.var_dir) / "matches.db"


def test_every_write_answers_a_receipt_that_verify_proves(server: ServerThread) -> None:
    client = server.client()
    created = client.create("duel", ["ann", "bob"], seed=5)
    match_id, host = created.match_id, created.host_token
    ann = client.join_match(match_id, "ann")
    bob = client.join_match(match_id, "bob")
    replies: list[Any] = [created, ann, bob]
    replies.append(client.submit(match_id, ann.player_token, text="pick 3"))
    replies.append(client.host_action(match_id, host, "extend", "slow network", seconds=30))
    replies.append(client.submit(match_id, bob.player_token, text="pick 1"))
    replies.append(client.force_phase_end(match_id, host, "nobody picks"))
    replies.append(client.rollback(match_id, host, replies[-2].version, "ended by mistake"))
    fork = client.fork(match_id, host, replies[-1].version)
    receipts = [reply.receipt for reply in replies]
    assert [r.version for r in receipts] == [reply.version for reply in replies]
    assert len({r.key_id for r in [*receipts, fork.receipt]}) == 1 and receipts[0].key_id.startswith("k1-")
    heads = [json.loads(event.json) for event in client.history(match_id, host)]
    assert "hash" not in heads[0]  # the history shows no hashes: a receipt comes only from a write
    report = client.verify(match_id, host, receipts)
    assert report.ok and report.receipts_checked == len(receipts) and report.unkeyed_until == 0
    forked = client.verify(fork.match_id, fork.host_token, [fork.receipt])
    assert forked.ok and forked.receipts_checked == 1


def test_a_deleted_tail_passes_without_receipts_and_is_caught_with_them(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--server", server.address, "--var", server.settings.var_dir]
    assert cli.main([*base, "create", "duel", "--players", "ann,bob", "--seed", "8"]) == 0
    match_id = capsys.readouterr().out.strip()
    for player in ("ann", "bob"):
        assert cli.main([*base, "join", match_id, player]) == 0
    assert cli.main([*base, "submit", match_id, "--as", "ann", "pick", "2"]) == 0
    assert cli.main([*base, "submit", match_id, "--as", "bob", "pick", "3"]) == 0
    version = server.client().state(match_id).version
    assert cli.main([*base, "verify", match_id, "--receipts"]) == 0
    assert f"{version} records, 5 receipts held" in capsys.readouterr().out

    ann_picked = version - 3  # bob's pick resolves the round: 3 records
    deleted = storefile.delete_after(store_path(server), match_id, ann_picked)  # as if bob never picked
    assert deleted == 3
    assert cli.main([*base, "verify", match_id]) == 0  # the shortened chain is whole: only receipts see it
    assert cli.main([*base, "verify", match_id, "--receipts"]) == 1
    out = capsys.readouterr().out
    assert f"DIFFERS at version {version}" in out and f"ends at version {ann_picked}" in out and "deleted" in out


def test_an_edit_re_chained_with_sha256_is_caught_and_a_stripped_chain_by_receipts(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=21)
    picked = client.submit(match_id, ann, text="pick 3")
    last = client.submit(match_id, bob, text="pick 1")
    path = store_path(server)
    stored = storefile.records(path, match_id)

    def resealed(edited: list[dict[str, Any]], start: int, keep_key: bool) -> None:
        """Recompute the plain SHA-256 links from `start` on, as one without the key can."""
        previous = edited[start - 1]["hash"] if start else ""
        for version, record in enumerate(edited[start:], start=start + 1):
            body = {k: v for k, v in record.items() if k != "hash" and (keep_key or k != "key_id")}
            body["prev"] = previous
            body["hash"] = previous = digest(body)
            storefile.rewrite(path, match_id, version, lambda _, body=body: body)

    edited = [dict(record) for record in stored]
    edited[picked.version - 1]["event"] = {"type": "Picked", "player": "ann", "number": 1}
    resealed(edited, picked.version - 1, keep_key=True)
    report = client.verify(match_id, host)
    assert not report.ok and report.first_bad_version == picked.version and "keyed hash" in report.problem

    resealed(edited, 0, keep_key=False)  # every key id gone: it reads as an old, unkeyed match
    report = client.verify(match_id, host)
    assert report.unkeyed_until == last.version  # the downgrade shows: a new match is keyed from version 1
    report = client.verify(match_id, host, [picked.receipt, last.receipt])
    assert not report.ok and report.first_bad_version == picked.version and "keyed under" in report.problem


def test_an_old_unkeyed_match_is_keyed_from_its_next_append(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE / "var", tmp_path / "var")  # never touch the fixture itself
    credentials = json.loads((FIXTURE / "credentials.json").read_text())
    match_id = (FIXTURE / "last-gathering.id").read_text().strip()
    host = next(iter(credentials.values()))["matches"][match_id]["host"]
    server = make_server(tmp_path, ManualClock())
    try:
        client = server.client()
        before = client.verify(match_id, host)
        assert before.ok and before.unkeyed_until == before.version
        paused = client.host_action(match_id, host, "pause", "lunch")
        assert [event.kind for event in paused.events] == ["chain_keyed", "host"]
        assert paused.version == before.version + 2 and paused.receipt.version == paused.version
        after = client.verify(match_id, host, [paused.receipt])
        assert after.ok and after.unkeyed_until == before.version and after.receipts_checked == 1
        resumed = client.host_action(match_id, host, "resume", "back")
        assert [event.kind for event in resumed.events] == ["host"]  # keyed once, not at every append
    finally:
        server.stop()
    again = make_server(tmp_path, ManualClock())  # the chain_keyed record replays like any other
    try:
        client = again.client()
        receipt = pb.Receipt(version=resumed.receipt.version, chain_head=resumed.receipt.chain_head)
        receipt.key_id = resumed.receipt.key_id
        report = client.verify(match_id, host, [paused.receipt, receipt])
        assert report.ok and report.receipts_checked == 2 and report.version == resumed.version
        assert not client.state(match_id, host).status.paused
    finally:
        again.stop()


def test_malformed_receipts_are_refused_with_invalid_argument(server: ServerThread) -> None:
    client = server.client()
    created = client.create("duel", ["ann", "bob"], seed=6)
    for receipts, said in (
        ([pb.Receipt(version=0, chain_head="ab", key_id="k1-x")], "version must be 1 or more"),
        ([pb.Receipt(version=1, key_id="k1-x")], "no chain_head"),
        ([created.receipt] * 1001, "at most 1000 receipts"),
    ):
        with pytest.raises(grpc.RpcError) as caught:
            client.verify(created.match_id, created.host_token, receipts)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT and said in str(caught.value.details())
