"""A live match keeps compact records and a state every few versions: whatever it keeps, the state at
every version, the records and what each viewer is shown are those of a full fold from scratch."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.bot_records import bot_match_records
from bench.memory import held_bytes
from engine.contract import Viewer
from engine.registry import get_game, shipped
from server.clock import ManualClock
from server.live import LiveMatch
from server.visibility import visible_record, visible_records
from tests.conftest import make_server
from tests.support import storefile
from tests.support.duel import seat_duel
from tests.support.server import ServerThread

Record = dict[str, Any]
VIEWERS = (Viewer.host(), Viewer.of("ann"), Viewer.of("bob"), Viewer.spectator())
# Kept states every version, every few (so folds cross boundaries, and rollbacks land on both sides of
# them), by bytes only, and the defaults.
SNAPSHOT_SETTINGS = ((1, 1 << 30), (2, 1 << 30), (3, 1 << 30), (7, 1 << 30), (1 << 30, 600), (32, 96 * 1024))


def states_from_scratch(records: list[Record]) -> list[Any]:
    """The state after every version, each folded in full: what LiveMatch kept before it was compact."""
    header = records[0]
    game = get_game(header["game"], header.get("rules_version"))
    states: list[Any] = [None]
    for record in records:
        kind = record["kind"]
        if kind == "created":
            states.append(game.initial_state(record["config"], int(record["seed"])))
        elif kind == "game":
            states.append(game.evolve(states[-1], record["event"]))
        elif kind == "rollback":
            states.append(states[int(record["to"])])
        else:
            states.append(states[-1])
    return states


def eventful_duel(server: ServerThread) -> tuple[str, list[Record]]:
    """A duel with everything that moves a match's state or clock: sealed picks, a host pause, resume and
    extension, a forced phase end, rollbacks (one reopening the finished match with a new seed), a second
    finish. Its records as the store holds them. (The server's clock is a manual one: no deadline passes
    unless the host ends a phase.)"""
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=7)
    client.submit(match_id, ann, text="pick 3")
    client.submit(match_id, bob, text="pick 1")  # round 1 resolved
    after_round_one = client.state(match_id, host).version
    client.host_action(match_id, host, "pause", "a connection is down")
    client.host_action(match_id, host, "extend", "make up the time", seconds=30)
    client.host_action(match_id, host, "resume", "back")
    client.submit(match_id, ann, text="pick 2")
    client.force_phase_end(match_id, host, "bob is away")  # bob's pick is a seeded default
    client.rollback(match_id, host, after_round_one, "bob was not away")  # paused at round 2's start
    client.host_action(match_id, host, "resume", "play round 2 again")
    client.submit(match_id, bob, text="pick 3")
    client.submit(match_id, ann, text="pick 1")
    while not client.state(match_id, host).status.finished:
        client.force_phase_end(match_id, host, "time")
    finished = client.state(match_id, host).version
    client.rollback(match_id, host, after_round_one, "replay the end", reopen=True)
    client.host_action(match_id, host, "resume", "again")
    while not client.state(match_id, host).status.finished:
        client.force_phase_end(match_id, host, "time")
    records = storefile.records(Path(server.settings.var_dir) / "matches.db", match_id)
    kinds = [record["kind"] for record in records]
    assert kinds.count("rollback") == 2 and kinds.count("host") >= 4 and len(records) > finished
    return match_id, records


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerThread, str, list[Record]]]:
    server = make_server(tmp_path_factory.mktemp("duel"), ManualClock())
    try:
        yield server, *eventful_duel(server)
    finally:
        server.stop()


@pytest.fixture
def duel_records(played: tuple[ServerThread, str, list[Record]]) -> list[Record]:
    return played[2]


@pytest.mark.parametrize(("every", "size"), SNAPSHOT_SETTINGS)
def test_the_state_at_every_version_is_the_full_fold_whatever_is_kept(
    duel_records: list[Record], every: int, size: int
) -> None:
    expected = states_from_scratch(duel_records)
    live = LiveMatch.from_records(uuid.uuid4(), duel_records, every, size)
    versions = list(range(len(duel_records) + 1))
    shuffled = random.Random(every).sample(versions, len(versions))
    for order in (versions, versions[::-1], shuffled):  # sequential and random asks use the recent states
        for version in order:
            assert live.state_at(version) == expected[version], version
    assert live.state == expected[-1]
    with pytest.raises(IndexError):
        live.state_at(len(duel_records) + 1)


@pytest.mark.parametrize(("every", "size"), SNAPSHOT_SETTINGS)
def test_a_walk_gives_the_state_before_each_record_in_one_fold(
    duel_records: list[Record], every: int, size: int
) -> None:
    expected = states_from_scratch(duel_records)
    live = LiveMatch.from_records(uuid.uuid4(), duel_records, every, size)
    last = len(duel_records)
    for first, end in ((1, last), (2, 5), (every, every + 1), (last, last), (last - 4, last + 10), (5, 4)):
        walked = list(live.walk(first, end))
        assert [version for version, _, _ in walked] == list(range(max(first, 1), min(end, last) + 1))
        for version, record, before in walked:
            assert record == duel_records[version - 1]
            assert before == expected[version - 1], version


def test_what_the_match_derives_from_its_records_does_not_depend_on_what_is_kept(duel_records: list[Record]) -> None:
    """Pauses, dice positions, seeds, the last finish, requests, tokens and batch ends, at every version."""
    matches = [LiveMatch.from_records(uuid.uuid4(), duel_records, every, size) for every, size in SNAPSHOT_SETTINGS]
    reference = matches[0]
    last = len(duel_records)
    assert reference.finished_last == last and len(reference.seeds) == 2
    assert reference.paused_after(last) is False
    assert any(reference.paused_after(version) for version in range(last))
    assert reference.batches.retracted()
    for live in matches[1:]:
        for version in range(last + 1):
            assert live.paused_after(version) == reference.paused_after(version)
            assert live.moves[version] == reference.moves[version]
            assert live.envelope.seed_at(version) == reference.envelope.seed_at(version)
            assert live.envelope.seed_revealed(version) == reference.envelope.seed_revealed(version)
            assert version == 0 or live.status(version) == reference.status(version)
            assert live.batches.is_end(version) == reference.batches.is_end(version)
        for name in ("finished_last", "requests", "tokens", "started_version", "clock_offset", "paused_at", "seeds"):
            assert getattr(live, name) == getattr(reference, name), name
        assert live.batches.retracted() == reference.batches.retracted()
        assert live.last_hash == duel_records[-1]["hash"]


def test_a_page_of_visible_records_is_what_each_version_shows_alone(duel_records: list[Record]) -> None:
    live = LiveMatch.from_records(uuid.uuid4(), duel_records, 3)
    last = len(duel_records)
    for viewer in VIEWERS:
        one_by_one = [(version, visible_record(live, version, viewer)) for version in range(1, last + 1)]
        assert list(visible_records(live, 1, last, viewer)) == one_by_one
        assert list(visible_records(live, 4, 9, viewer)) == one_by_one[3:9]
    hidden = [record for _, record in visible_records(live, 1, last, Viewer.of("bob"))]
    assert any(record.get("event", {}).get("type") == "Picked" and "number" not in record["event"] for record in hidden)


def test_history_and_audit_over_grpc_page_through_the_whole_log(played: tuple[ServerThread, str, list[Record]]) -> None:
    """History in small pages (each a walk from a kept state) reads every record once, in order."""
    server, match_id, records = played
    client = server.client()
    host = client.host_credential
    paged = client.history(match_id, host, page_size=3)
    assert [event.version for event in paged] == list(range(1, len(records) + 1))
    live = LiveMatch.from_records(uuid.uuid4(), records)
    for event in paged:
        assert json.loads(event.json) == visible_record(live, event.version, Viewer.host())
    trail = client.audit(match_id, host)
    assert trail and all(1 <= entry.version <= len(records) for entry in trail)
    for page_size in (1, 2, 5):  # each page walks only as far as its last entry and one more
        assert client.audit(match_id, host, page_size=page_size) == trail
    assert client.audit(match_id, "", page_size=3) == client.audit(match_id, "")  # a spectator's trail
    middle = len(records) // 2
    assert client.audit(match_id, host, at=middle, page_size=2) == client.audit(match_id, host, at=middle)


@pytest.mark.parametrize("game", shipped())
def test_records_of_a_real_game_come_back_equal_and_every_state_is_the_full_fold(game: str) -> None:
    records = bot_match_records(game, seed=3)
    stored = [json.loads(json.dumps(record)) for record in records]  # as the store returns them
    live = LiveMatch.from_records(uuid.uuid4(), stored, 5, 4096)
    assert len(live.records) == len(stored) and live.version == len(stored)
    assert list(live.records) == stored
    assert [live.records[index] for index in range(len(stored))] == stored
    assert live.records[-1] == stored[-1] and live.records[-3] == stored[-3]
    assert live.records[2:7] == stored[2:7] and live.records[:-1] == stored[:-1]
    assert live.header == stored[0] and live.last_hash == stored[-1]["hash"]
    expected = states_from_scratch(stored)
    for version in range(len(stored) + 1):
        assert live.state_at(version) == expected[version], version
    assert live.status().finished and live.finished_last == len(stored)


def test_a_record_is_decoded_to_an_equal_dict_with_its_keys_in_order() -> None:
    header = bot_match_records("mining", seed=1)[0]
    record: Record = {"kind": "host", "at": 1.5, "by": "host", "reason": "ünïcode ✓ \ud800", "n": [1, 2.25, None]}
    live = LiveMatch.from_records(uuid.uuid4(), [header, record, {**record, "kind": "chain_keyed"}])
    assert live.records[1] == record and list(live.records[1]) == list(record)
    assert live.records[-1] == {**record, "kind": "chain_keyed"} and live.records[0] == header


def test_the_memory_estimate_follows_what_the_match_holds() -> None:
    texts = [json.dumps(record) for record in bot_match_records("mining", seed=2, overrides={"rounds": 30})]
    held, live = held_bytes(texts)  # what bench/memory.py reports, measured the same way
    assert 0.5 < live.approx_bytes() / held < 2.0
    assert held < 2 * sum(len(text) for text in texts)  # the bound: within 2x of the stored JSON
    settle = {"kind": "host", "action": "settle", "by": "host", "reason": "", "at": 1.0}
    live.apply(settle)
    grown = live.approx_bytes()
    live.apply({**settle, "reason": "x" * 10_000})
    assert live.approx_bytes() >= grown + 10_000
