"""The platform end to end: a real server on a loopback port, real clients, a real SQLite file."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import grpc
import pytest
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from matchserver.v1 import matchserver_pb2 as pb
from server.clock import ManualClock
from tests.conftest import make_server
from tests.support.duel import seat_duel
from tests.support.server import ServerThread
from tests.support.waiting import wait_until


def code_of(call) -> tuple[grpc.StatusCode, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def test_health_and_reflection_are_served(server: ServerThread) -> None:
    channel = grpc.insecure_channel(server.address)
    health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""))
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    replies = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
    names = {service.name for reply in replies for service in reply.list_services_response.service}
    assert "matchserver.v1.MatchService" in names and "grpc.health.v1.Health" in names


def test_reflection_describes_the_v1_contract_with_each_games_package(server: ServerThread) -> None:
    """A client built from reflection alone (grpcurl, another language) sees every RPC's own response
    type and the typed commands under matchserver.<game>.v1."""
    pool = DescriptorPool(ProtoReflectionDescriptorDatabase(grpc.insecure_channel(server.address)))
    service = pool.FindServiceByName("matchserver.v1.MatchService")
    responses = {method.name: method.output_type.full_name for method in service.methods}
    assert responses["GetState"] == "matchserver.v1.GetStateResponse"
    assert responses["Fork"] == "matchserver.v1.ForkResponse"
    assert len(set(responses.values())) == len(responses), "every RPC has a response type of its own"
    game_command = pool.FindMessageTypeByName("matchserver.v1.GameCommand")
    assert {field.message_type.full_name for field in game_command.fields} == {
        "matchserver.last_gathering.v1.Command",
        "matchserver.cookoff.v1.Command",
        "matchserver.mining.v1.Command",
    }


def test_every_error_class_has_its_status_and_appends_nothing(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, _bob = seat_duel(client, seed=11)
    before = client.state(match_id, host).version
    cases = {
        "unparseable text": (lambda: client.submit(match_id, ann, text="pick ten"), grpc.StatusCode.INVALID_ARGUMENT),
        "illegal move": (lambda: client.submit(match_id, ann, text="pick 9"), grpc.StatusCode.FAILED_PRECONDITION),
        "no token": (lambda: client.submit(match_id, "", text="pick 1"), grpc.StatusCode.UNAUTHENTICATED),
        "unknown token": (lambda: client.submit(match_id, "forged", text="pick 1"), grpc.StatusCode.UNAUTHENTICATED),
        "wrong player": (
            lambda: client.submit(match_id, ann, text="pick 1", player="bob"),
            grpc.StatusCode.PERMISSION_DENIED,
        ),
        "host plays": (lambda: client.submit(match_id, host, text="pick 1"), grpc.StatusCode.PERMISSION_DENIED),
        "stale version": (
            lambda: client.submit(match_id, ann, text="pick 1", expected_version=before - 1),
            grpc.StatusCode.ABORTED,
        ),
        "unknown match": (
            lambda: client.state("00000000-0000-0000-0000-000000000000"),
            grpc.StatusCode.NOT_FOUND,
        ),
        "bad match id": (lambda: client.state("not-a-uuid"), grpc.StatusCode.INVALID_ARGUMENT),
        "unknown game": (lambda: client.create("chess", ["a", "b"]), grpc.StatusCode.INVALID_ARGUMENT),
        "bad config": (lambda: client.create("duel", ["a", "b", "c"]), grpc.StatusCode.INVALID_ARGUMENT),
        "bad config json": (
            lambda: client.stub.CreateMatch(
                pb.CreateMatchRequest(game="duel", players=["a", "b"], config_json="{x"),
                metadata=[("authorization", f"Bearer {server.admin_token}")],
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        "no authorization header": (
            lambda: client.stub.GetState(pb.GetStateRequest(match_id=match_id)),
            grpc.StatusCode.UNAUTHENTICATED,
        ),
        "taken seat without reissue": (lambda: client.join(match_id, "ann"), grpc.StatusCode.FAILED_PRECONDITION),
        "a player's token fills a seat": (lambda: client.join(match_id, "bob", ann), grpc.StatusCode.PERMISSION_DENIED),
        "not a seat": (lambda: client.join(match_id, "eve"), grpc.StatusCode.INVALID_ARGUMENT),
        "player ends phase": (lambda: client.force_phase_end(match_id, ann), grpc.StatusCode.PERMISSION_DENIED),
    }
    for name, (call, expected) in cases.items():
        code, details = code_of(call)
        assert code == expected, f"{name}: {code} {details}"
        assert details, name
    client.submit(match_id, ann, text="pick 2")
    code, details = code_of(lambda: client.submit(match_id, ann, text="pick 3"))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "binding" in details
    assert client.state(match_id, host).version == before + 1  # only the one accepted pick


def test_a_malformed_protobuf_is_invalid_argument_not_internal(server: ServerThread) -> None:
    channel = grpc.insecure_channel(server.address)
    raw = channel.unary_unary(
        "/matchserver.v1.MatchService/Submit", request_serializer=None, response_deserializer=None
    )
    with pytest.raises(grpc.RpcError) as info:
        raw(b"\x0a\xff\xff\xff\xff\xff")  # field 1 with a truncated length
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "malformed" in info.value.details()


def test_a_token_of_another_match_is_permission_denied(server: ServerThread) -> None:
    client = server.client()
    _first, _, ann, _ = seat_duel(client, seed=11)
    second, _, _, _ = seat_duel(client, seed=11)
    code, _ = code_of(lambda: client.submit(second, ann, text="pick 1"))
    assert code == grpc.StatusCode.PERMISSION_DENIED


def test_sealed_picks_stay_hidden_in_views_history_and_streams(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=11)
    client.submit(match_id, ann, text="pick 3")
    for token in (bob, None):
        assert client.state(match_id, token).view["my_picks"] == {}
        history = [json.loads(event.json) for event in client.history(match_id, token)]
        picked = [record for record in history if record.get("event", {}).get("type") == "Picked"]
        assert picked and all("number" not in r["event"] and "command" not in r["cause"] for r in picked)
        assert "seed" not in history[0]  # the seed would reveal every future draw
        stream = client.subscribe(match_id, token)
        updates = [next(stream) for _ in range(client.state(match_id, host).version)]
        stream.cancel()
        assert all('"number": 3' not in update.event.json for update in updates)
    own = [json.loads(e.json) for e in client.history(match_id, ann)]
    assert any(r.get("event", {}).get("number") == 3 for r in own)
    host_view = [json.loads(e.json) for e in client.history(match_id, host)]
    assert host_view[0]["seed"] == 11


def test_subscribe_streams_live_updates_and_resumes_from_a_version(server: ServerThread) -> None:
    client = server.client()
    match_id, _host, ann, bob = seat_duel(client, seed=11)
    stream = client.subscribe(match_id, ann)
    seen = [next(stream).event.version for _ in range(4)]  # created, opened, 2 joins
    assert seen == [1, 2, 3, 4]
    received: list[int] = []

    def follow() -> None:
        for update in stream:
            received.append(update.event.version)
            if update.status.phase == "round 2":
                return

    follower = threading.Thread(target=follow)
    follower.start()
    client.submit(match_id, ann, text="pick 1")
    client.submit(match_id, bob, text="pick 2")
    follower.join(10)
    assert received == [5, 6, 7, 8]
    resumed = client.subscribe(match_id, ann, from_version=6)
    assert [next(resumed).event.version for _ in range(2)] == [7, 8]
    resumed.cancel()


def test_a_restart_keeps_every_accepted_command(tmp_path: Path) -> None:
    clock = ManualClock()
    first = make_server(tmp_path, clock)
    client = first.client()
    match_id, host, ann, bob = seat_duel(client, seed=11)
    client.submit(match_id, ann, text="pick 3")
    client.submit(match_id, bob, text="pick 1")
    client.submit(match_id, ann, text="pick 2")
    before = client.state(match_id, host)
    first.stop()
    second = make_server(tmp_path, clock)
    again = second.client()
    after = again.state(match_id, host)
    assert (after.version, after.view, after.status.phase) == (before.version, before.view, before.status.phase)
    code, _ = code_of(lambda: again.submit(match_id, ann, text="pick 1"))
    assert code == grpc.StatusCode.FAILED_PRECONDITION  # ann's binding pick survived the restart
    again.submit(match_id, bob, text="pick 3")  # the old tokens still work
    assert again.state(match_id, host).status.phase == "round 3"
    assert [m.match_id for m in again.list_matches()] == [match_id]
    second.stop()


def test_a_deadline_that_passed_while_the_server_was_down_applies_at_start(tmp_path: Path) -> None:
    clock = ManualClock()
    first = make_server(tmp_path, clock)
    client = first.client()
    match_id, host, ann, _ = seat_duel(client, seed=11)
    client.submit(match_id, ann, text="pick 3")
    first.stop()
    clock.advance(61)  # round 1's deadline passes while nothing runs
    second = make_server(tmp_path, clock)
    again = second.client()
    wait_until(
        lambda: again.state(match_id, host).status.phase == "round 2", "the restarted server applied round 1's deadline"
    )
    records = [json.loads(e.json) for e in again.history(match_id, host)]
    defaulted = [r for r in records if r.get("event", {}).get("type") == "Defaulted"]
    assert [r["event"]["player"] for r in defaulted] == ["bob"]
    assert defaulted[0]["at"] == 1_000_060.0  # recorded at the time it should have fired
    second.stop()


def test_two_concurrent_submissions_on_one_version_land_once(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=11)
    version = client.state(match_id, host).version
    outcomes: list[str] = []

    def submit(token: str, text: str) -> None:
        try:
            client.submit(match_id, token, text=text, expected_version=version)
            outcomes.append("ok")
        except grpc.RpcError as exc:
            outcomes.append(exc.code().name)

    threads = [threading.Thread(target=submit, args=args) for args in ((ann, "pick 1"), (bob, "pick 2"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["ABORTED", "ok"]
    assert client.state(match_id, host).version == version + 1


def test_the_host_can_end_a_phase_and_defaults_apply(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, _ = seat_duel(client, seed=11)
    client.submit(match_id, ann, text="pick 2")
    reply = client.force_phase_end(match_id, host, "bob is away")
    assert reply.status.phase == "round 2"
    records = [json.loads(e.json) for e in client.history(match_id, host)]
    forced = [r for r in records if r.get("cause", {}).get("forced")]
    assert forced and forced[0]["cause"]["reason"] == "bob is away"


def test_the_host_reissues_a_seat_token_and_the_old_one_stops_working(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, _ = seat_duel(client, seed=11)
    fresh = client.join(match_id, "ann", host, reissue=True)
    code, details = code_of(lambda: client.submit(match_id, ann, text="pick 1"))
    assert code == grpc.StatusCode.UNAUTHENTICATED and "replaced" in details
    client.submit(match_id, fresh, text="pick 1")


def test_results_are_sent_only_once_the_match_is_over(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=11)
    client.submit(match_id, ann, text="pick 3")
    assert client.state(match_id, bob).results == {}
    client.submit(match_id, bob, text="pick 1")
    for _ in range(2):
        client.force_phase_end(match_id, host, "away")
    final = client.state(match_id, bob)
    assert final.status.finished and final.results["results"][0]["player"] in ("ann", "bob")
    assert client.state(match_id, bob, at=final.version - 1).results == {}
