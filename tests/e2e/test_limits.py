"""Each size and value limit at its edge over a real server: one under passes, one over is refused
with INVALID_ARGUMENT naming the setting, and nothing is stored (the match list and versions stay)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest

from clients.client import MatchClient
from engine.registry import get_game, shipped
from matchserver.v1 import matchserver_pb2 as pb
from tests.support.server import ServerThread

SERVICE = "/matchserver.v1.MatchService/"
SEATS = {game: list("abcdefgh"[: get_game(game).default_seats]) for game in shipped()}  # seats a, b, c, ...


@pytest.fixture
def client(server: ServerThread) -> Iterator[MatchClient]:
    with server.client() as connected:
        yield connected


def admin(server: ServerThread) -> str:
    assert server.running is not None and server.running.matches.admin_token
    return server.running.matches.admin_token


def auth(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


def listing(client: MatchClient) -> list[tuple[str, int]]:
    assert client.host_credential is not None
    reply = client.stub.ListMatches(
        pb.ListMatchesRequest(), metadata=auth(client.host_credential), timeout=client.timeout
    )
    return sorted((summary.match_id, summary.version) for summary in reply.matches)


def refused(call: Callable[[], Any], setting: str) -> str:
    """Run a call that must be refused as INVALID_ARGUMENT naming `setting`; returns the details."""
    with pytest.raises(grpc.RpcError) as error:
        call()
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT, error.value.details()
    details = str(error.value.details())
    assert setting in details
    assert len(details) <= 256
    return details


def create_raw(client: MatchClient, server: ServerThread, game: str, players: list[str], config: str) -> Any:
    request = pb.CreateMatchRequest(game=game, players=players, config_json=config, seed=1)
    return client.stub.CreateMatch(request, metadata=auth(admin(server)), timeout=client.timeout)


def duel(client: MatchClient, server: ServerThread) -> tuple[str, str, str]:
    """A duel with ann seated: (match id, host token, ann's token)."""
    created = client.create("duel", ["ann", "bob"], seed=7, token=admin(server))
    ann = client.join(created.match_id, "ann")
    client.join(created.match_id, "bob")  # the match starts once every seat is claimed
    return created.match_id, created.host_token, ann


def padded(message: Any, total: int) -> bytes:
    """The message's bytes grown to exactly `total` with an unknown field (field 1000, bytes), which a
    server parses and ignores."""
    body = message.SerializeToString()
    for length_size in (1, 2, 3, 4):
        payload = total - len(body) - 2 - length_size  # 2: the tag of field 1000, wire type 2
        if payload >= 0 and len(_varint(payload)) == length_size:
            return body + _varint(1000 << 3 | 2) + _varint(payload) + b"\0" * payload
    raise AssertionError(f"cannot pad to {total}")


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def test_request_bytes_edge(server: ServerThread, client: MatchClient) -> None:
    create = client.channel.unary_unary(
        SERVICE + "CreateMatch", response_deserializer=pb.CreateMatchResponse.FromString
    )
    request = pb.CreateMatchRequest(game="duel", players=["ann", "bob"])
    limit = 1024 * 1024
    before = listing(client)
    refused(lambda: create(padded(request, limit + 1), metadata=auth(admin(server)), timeout=30), "max_request_bytes")
    assert listing(client) == before
    created = create(padded(request, limit), metadata=auth(admin(server)), timeout=30)
    assert [match_id for match_id, _ in listing(client)] == sorted([*(m for m, _ in before), created.match_id])


def test_command_text_edge(server: ServerThread, client: MatchClient) -> None:
    match_id, _, ann = duel(client, server)
    version = client.state(match_id).version
    refused(lambda: client.submit(match_id, ann, text="pick 2" + " " * (4097 - 6)), "max_command_text_bytes")
    refused(lambda: client.submit(match_id, ann, text="pick 2" + " " * 900_000), "max_command_text_bytes")
    assert client.state(match_id).version == version
    accepted = client.submit(match_id, ann, text="pick 2" + " " * (4096 - 6))
    assert accepted.version > version


def test_config_bytes_edge(server: ServerThread, client: MatchClient) -> None:
    body = '{"duration": 30}'
    before = listing(client)
    refused(
        lambda: create_raw(client, server, "duel", ["ann", "bob"], body + " " * (65537 - len(body))), "max_config_bytes"
    )
    big_key = json.dumps({"unused": "x" * 900_000})
    refused(lambda: create_raw(client, server, "duel", ["ann", "bob"], big_key), "max_config_bytes")
    assert listing(client) == before
    create_raw(client, server, "duel", ["ann", "bob"], body + " " * (65536 - len(body)))
    assert len(listing(client)) == len(before) + 1


def test_config_depth_edge(server: ServerThread, client: MatchClient) -> None:
    def nested(depth: int) -> str:  # the object itself is the first level
        return '{"note": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"

    before = listing(client)
    refused(lambda: create_raw(client, server, "duel", ["ann", "bob"], nested(33)), "max_config_depth")
    refused(lambda: create_raw(client, server, "duel", ["ann", "bob"], nested(1000)), "max_config_depth")
    assert listing(client) == before
    create_raw(client, server, "duel", ["ann", "bob"], nested(32))
    assert len(listing(client)) == len(before) + 1


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"])
def test_non_finite_numbers_in_a_config_are_refused(server: ServerThread, client: MatchClient, number: str) -> None:
    before = listing(client)
    refused(lambda: create_raw(client, server, "duel", ["ann", "bob"], f'{{"duration": {number}}}'), "finite")
    refused(
        lambda: create_raw(client, server, "mining", SEATS["mining"], f'{{"spaces": [{{"gold": {number}}}]}}'), "finite"
    )
    assert listing(client) == before


def test_config_integers_edge(server: ServerThread, client: MatchClient) -> None:
    before = listing(client)
    refused(lambda: create_raw(client, server, "duel", ["ann", "bob"], f'{{"note": {2**53}}}'), "max_config_integer")
    assert listing(client) == before
    create_raw(client, server, "duel", ["ann", "bob"], f'{{"note": {2**53 - 1}}}')
    assert len(listing(client)) == len(before) + 1


def test_seat_name_edges(server: ServerThread, client: MatchClient) -> None:
    longest = "A_b.c-9" + "x" * 25
    before = listing(client)
    refused(lambda: create_raw(client, server, "duel", ["ann", longest + "x"], ""), "max_seat_name_chars")
    refused(lambda: create_raw(client, server, "duel", ["ann", ""], ""), "min_seat_name_chars")
    refused(lambda: create_raw(client, server, "duel", ["ann", "bob smith"], ""), "seat_name_pattern")
    refused(lambda: create_raw(client, server, "duel", ["ann", "x" * 900_000], ""), "max_seat_name_chars")
    assert listing(client) == before
    created = create_raw(client, server, "duel", ["a", longest], "")
    assert client.list_matches()  # listing works
    version = client.state(created.match_id).version
    refused(lambda: client.join(created.match_id, "x" * 33), "max_seat_name_chars")
    refused(lambda: client.join(created.match_id, "a b"), "seat_name_pattern")
    assert client.state(created.match_id).version == version
    client.join(created.match_id, longest)


def test_rounds_edge(server: ServerThread, client: MatchClient) -> None:
    before = listing(client)
    refused(lambda: create_raw(client, server, "mining", SEATS["mining"], '{"rounds": 101}'), "max_rounds")
    assert listing(client) == before
    create_raw(client, server, "mining", SEATS["mining"], '{"rounds": 100}')
    assert len(listing(client)) == len(before) + 1


@pytest.mark.parametrize(
    ("game", "key", "at_most"),
    [
        ("mining", "round_seconds", '{"round_seconds": %s}'),
        ("last-gathering", "step_seconds", '{"step_seconds": %s}'),
        (
            "cookoff",
            "times.placement",
            '{"times": {"gathering": 60, "placement": %s, "sabotage": 45, '
            '"moves": 45, "removal": 30, "final_choice": 120}}',
        ),
    ],
)
def test_phase_seconds_edges(server: ServerThread, client: MatchClient, game: str, key: str, at_most: str) -> None:
    before = listing(client)
    refused(lambda: create_raw(client, server, game, SEATS[game], at_most % "604801"), "max_phase_seconds")
    refused(lambda: create_raw(client, server, game, SEATS[game], at_most % "0"), "min_phase_seconds")
    assert listing(client) == before
    create_raw(client, server, game, SEATS[game], at_most % "604800")
    create_raw(client, server, game, SEATS[game], at_most % "1")
    assert len(listing(client)) == len(before) + 2


def host_action(
    client: MatchClient, match_id: str, token: str, action: str, seconds: float = 0, reason: str = ""
) -> Any:
    request = pb.HostActionRequest(match_id=match_id, action=action, seconds=seconds, reason=reason)
    return client.stub.HostAction(request, metadata=auth(token), timeout=client.timeout)


def test_extend_seconds_are_finite_and_bounded(server: ServerThread, client: MatchClient) -> None:
    match_id, host, _ = duel(client, server)
    version = client.state(match_id).version
    for seconds in (float("nan"), float("inf"), float("-inf")):
        for action in ("extend", "pause"):
            refused(lambda a=action, n=seconds: host_action(client, match_id, host, a, n), "finite")
    refused(lambda: host_action(client, match_id, host, "extend", 604800.5), "max_extend_seconds")
    assert client.state(match_id).version == version
    verified = client.stub.Verify(pb.VerifyRequest(match_id=match_id), metadata=auth(host), timeout=30)
    assert verified.ok, verified.problem
    assert host_action(client, match_id, host, "extend", 604800).version == version + 1


def test_reason_edge(server: ServerThread, client: MatchClient) -> None:
    match_id, host, _ = duel(client, server)
    version = client.state(match_id).version
    refused(lambda: host_action(client, match_id, host, "pause", reason="r" * 1025), "max_reason_chars")
    refused(lambda: client.force_phase_end(match_id, host, reason="r" * 1_000_000), "max_reason_chars")
    assert client.state(match_id).version == version
    assert host_action(client, match_id, host, "pause", reason="r" * 1024).version == version + 1


def test_error_details_never_echo_a_huge_input(server: ServerThread, client: MatchClient) -> None:
    calls: list[Callable[[], Any]] = [
        lambda: client.join("m" * 1_000_000, "ann"),
        lambda: client.state("m" * 1_000_000),
        lambda: create_raw(client, server, "g" * 1_000_000, ["ann", "bob"], ""),
    ]
    for call in calls:
        with pytest.raises(grpc.RpcError) as error:
            call()
        assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert 0 < len(str(error.value.details())) <= 256


@pytest.mark.slow
def test_requests_for_unknown_ids_leave_no_memory_behind(server: ServerThread, client: MatchClient) -> None:
    match_id, host, ann = duel(client, server)  # one real match, so there is something to keep
    assert server.running is not None
    matches = server.running.matches

    def entries() -> tuple[int, ...]:
        return tuple(
            len(table)
            for table in (
                matches.repository.locks,
                matches.changes,
                matches.repository._fresh,
                matches.repository._cache,
            )
        )

    before = entries()

    def calls_for(unknown: str) -> list[Callable[[], Any]]:
        return [
            lambda: client.join(unknown, "ann"),
            lambda: client.submit(unknown, ann, text="pick 1"),
            lambda: client.state(unknown),
            lambda: host_action(client, unknown, host, "pause"),
            lambda: client.force_phase_end(unknown, host),
            lambda: next(iter(client.subscribe(unknown))),
        ]

    for _ in range(300):
        for call in calls_for(str(uuid.uuid4())):
            with pytest.raises(grpc.RpcError) as error:
                call()
            assert error.value.code() == grpc.StatusCode.NOT_FOUND
    assert entries() == before
    assert client.submit(match_id, ann, text="pick 1").version > 0  # the real match still works
