"""The keyed chain, receipts and the chain key, without a server (server/records.py, server/chainkey.py)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from server import chainkey
from server.errors import StartupRefused
from server.records import (
    ChainKey,
    Receipt,
    chain,
    chain_encoded,
    digest,
    first_broken_link,
    needs_chain_keyed,
    receipt_problem,
    unkeyed_until,
)

KEY = ChainKey(b"k" * 64, chainkey.key_id(b"k" * 64))
KEYS = {KEY.key_id: KEY.secret}


def game(n: int) -> dict[str, object]:
    return {"kind": "game", "event": {"type": "Picked", "number": n}, "at": float(n)}


def keyed_log(count: int = 4) -> list[dict[str, object]]:
    return chain("", [{"kind": "created", "at": 0.0}] + [game(n) for n in range(1, count)], KEY)


def resealed_with_sha256(records: list[dict[str, object]], start: int = 0) -> list[dict[str, object]]:
    """What someone who can edit the store but lacks the key can do: recompute the plain hashes from
    `start` on (the records before it stay as they were)."""
    out, previous = records[:start], str(records[start - 1]["hash"]) if start else ""
    for record in records[start:]:
        stamped = {key: value for key, value in record.items() if key != "hash"} | {"prev": previous}
        stamped["hash"] = digest(stamped)
        previous = stamped["hash"]
        out.append(stamped)
    return out


def test_a_keyed_log_verifies_under_its_key_only() -> None:
    records = keyed_log()
    assert all(record["key_id"] == KEY.key_id for record in records)
    assert first_broken_link(records, KEYS) is None
    assert unkeyed_until(records) == 0
    broken = first_broken_link(records, {"k1-other": b"x" * 64})
    assert broken is not None and broken[0] == 1 and KEY.key_id in broken[1]


def test_an_edit_re_chained_with_sha256_is_caught_at_the_edited_record() -> None:
    records = keyed_log()
    records[2] = {**records[2], "event": {"type": "Picked", "number": 3}}
    resealed = resealed_with_sha256(records, start=2)
    assert [record["prev"] for record in resealed[1:]] == [record["hash"] for record in resealed[:-1]]
    broken = first_broken_link(resealed, KEYS)
    assert broken is not None and broken[0] == 3 and "keyed hash" in broken[1]


def test_stripping_the_keys_after_the_keyed_chain_began_is_caught() -> None:
    old = chain("", [{"kind": "created", "at": 0.0}, game(1)])
    keyed = chain(old[-1]["hash"], [{"kind": "chain_keyed", "key_id": KEY.key_id, "at": 2.0}, game(2)], KEY)
    records = old + keyed
    assert first_broken_link(records, KEYS) is None and unkeyed_until(records) == 2
    without_key = [*records[:3], {key: value for key, value in records[3].items() if key != "key_id"}]
    tail_stripped = resealed_with_sha256(without_key, start=3)
    broken = first_broken_link(tail_stripped, KEYS)
    assert broken is not None and broken[0] == 4 and "unkeyed record after the keyed chain" in broken[1]


def test_a_keyed_chain_in_an_old_log_must_start_with_chain_keyed() -> None:
    old = chain("", [{"kind": "created", "at": 0.0}, game(1)])
    records = old + chain(old[-1]["hash"], [game(2)], KEY)
    broken = first_broken_link(records, KEYS)
    assert broken is not None and broken[0] == 3 and "chain_keyed" in broken[1]


def test_only_a_log_not_ending_under_the_current_key_needs_chain_keyed() -> None:
    assert not needs_chain_keyed([], KEY.key_id)
    assert needs_chain_keyed(chain("", [game(1)]), KEY.key_id)
    assert not needs_chain_keyed(keyed_log(), KEY.key_id)
    assert needs_chain_keyed(keyed_log(), "k1-next")


def test_a_receipt_holds_only_for_the_same_record_at_the_same_version() -> None:
    records = keyed_log(4)
    last = Receipt(4, str(records[3]["hash"]), KEY.key_id)
    assert receipt_problem(records, last) is None
    problem = receipt_problem(records[:2], last)
    assert problem is not None and "ends at version 2" in problem and "deleted" in problem
    assert "not the one receipted" in str(receipt_problem(records, Receipt(4, "0" * 64, KEY.key_id)))
    assert "keyed under" in str(receipt_problem(records, Receipt(4, str(records[3]["hash"]), "k1-other")))
    assert "start at 1" in str(receipt_problem(records, Receipt(0, "x", KEY.key_id)))


def test_the_chain_key_is_created_once_owner_only_and_named_without_revealing_it(tmp_path: Path) -> None:
    var = tmp_path / "var"
    first = chainkey.load_or_create(str(var))
    path = var / chainkey.FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert chainkey.load_or_create(str(var)) == first
    assert first.key_id.startswith("k1-") and first.key_id[3:] not in first.secret.decode()


def test_an_empty_key_file_is_refused_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / chainkey.FILE_NAME
    path.write_text("")
    with pytest.raises(StartupRefused, match=str(path)):
        chainkey.load_or_create(str(tmp_path))
    assert path.read_text() == ""


def test_postgres_needs_a_key_file_and_every_node_given_it_shares_the_key(tmp_path: Path) -> None:
    with pytest.raises(StartupRefused, match="--chain-key-file"):
        chainkey.for_store("postgres:host=db", str(tmp_path / "var"))
    assert not (tmp_path / "var" / chainkey.FILE_NAME).exists()
    shared = tmp_path / "shared.key"
    shared.write_text("ab" * 32 + "\n")
    one = chainkey.for_store("postgres:host=db", str(tmp_path / "one"), str(shared))
    two = chainkey.for_store("postgres:host=db", str(tmp_path / "two"), str(shared))
    assert one == two
    with pytest.raises(StartupRefused, match="cannot be read"):
        chainkey.for_store("postgres:host=db", str(tmp_path), str(tmp_path / "missing.key"))
    (tmp_path / "short.key").write_text("abc")
    with pytest.raises(StartupRefused, match="fewer than"):
        chainkey.for_store("sqlite:x.db", str(tmp_path), str(tmp_path / "short.key"))


def test_a_postgres_server_without_a_key_file_does_not_start(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("MATCHSERVER_")}
    store = "postgres:host=127.0.0.1 port=1 dbname=never-reached"  # refused before any connection
    done = subprocess.run(
        [sys.executable, "-m", "server.main", "--address", "127.0.0.1:0", "--var", str(tmp_path), "--store", store],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and "--chain-key-file" in done.stderr
    assert not (tmp_path / chainkey.FILE_NAME).exists()


def test_a_chained_record_is_kept_as_the_bytes_its_link_was_computed_over_with_the_link_added() -> None:
    """records.chain_encoded: one encoding per record for its hash and for what the store and the live match
    keep. The kept row decodes to the stamped record, ASCII as compact.encode writes, its link holding
    (keyed and unkeyed alike)."""
    records = [
        {"kind": "game", "event": {"type": "Picked", "n": 2, "note": "é\u2028"}, "at": 1.5, "cause": {"actor": "a"}},
        {"kind": "game", "event": {"type": "Resolved", "picks": {"bob": 1, "ann": 2}}, "at": 1.5},
    ]
    for key, keys in ((KEY, KEYS), (None, {})):
        encoded = chain_encoded("", records, key)
        for stamped, row in encoded:
            assert json.loads(row) == stamped and row.isascii()
            assert row.endswith(b',"hash":"' + str(stamped["hash"]).encode() + b'"}')
        assert first_broken_link([json.loads(row) for _, row in encoded], keys, marked=False) is None
        assert [stamped for stamped, _ in encoded] == chain("", records, key)
