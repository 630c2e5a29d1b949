"""The methods a match's start opens (CreateMatch, JoinMatch, Play) are registered with gRPC by method, each
then waiting for its own next call: with one generic handler only, grpc.aio took the server's new calls one
at a time, and under load a CreateMatch queued behind the Play streams and joins being opened (its p99 fell
from about 31 to 24 ms, 8 clients playing: docs/BENCHMARKS.md). The others stay generic: every registered
method costs each new call a little (all 37 registered made a unary Submit about 5% dearer). Registered or
not, every method keeps the deserializer that turns a malformed body into INVALID_ARGUMENT."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest

from matchserver.v1 import matchserver_pb2
from server.app import Settings
from tests.support.server import ServerThread

SERVICE = matchserver_pb2.DESCRIPTOR.services_by_name["MatchService"].full_name


def test_the_methods_a_start_opens_are_registered_by_method_with_the_safe_handler_and_all_are_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registered: dict[str, dict[str, Any]] = {}
    make_server = grpc.aio.server

    def spied_server(*args: Any, **kwargs: Any) -> Any:
        made = make_server(*args, **kwargs)
        register = made.add_registered_method_handlers

        def spied(service_name: str, handlers: dict[str, Any]) -> None:
            registered[service_name] = dict(handlers)
            register(service_name, handlers)

        made.add_registered_method_handlers = spied
        return made

    monkeypatch.setattr(grpc.aio, "server", spied_server)
    server = ServerThread(Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"), tick_interval=3600)).start()
    try:
        handlers = registered[SERVICE]
        assert set(handlers) == {"CreateMatch", "JoinMatch", "Play"}
        for name, handler in handlers.items():  # the malformed-body guard, not the generated FromString
            request_class = (
                getattr(matchserver_pb2, f"{name}Request") if name != "Play" else matchserver_pb2.PlayRequest
            )
            assert handler.request_deserializer is not request_class.FromString
        client = server.client()
        created = client.create("duel", ["ann", "bob"], seed=3)
        client.join(created.match_id, "ann")
        assert client.state(created.match_id).version >= 2
        for method in ("CreateMatch", "GetState"):  # one registered, one generic
            garbage = client.channel.unary_unary(f"/{SERVICE}/{method}")
            with pytest.raises(grpc.RpcError) as refused:
                garbage(b"\xff\xff\xff", timeout=30)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, method
    finally:
        server.stop()
