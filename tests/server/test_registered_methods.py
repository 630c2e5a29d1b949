"""Our services' methods are registered with gRPC by method, as generated code registers them: each method
then waits for its own next call. With one generic handler only, grpc.aio took the server's new calls one
at a time, and under load a CreateMatch queued behind the Play streams and joins being opened (its p99 fell
from about 31 to 24 ms, 8 clients playing: docs/BENCHMARKS.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest

from matchserver.v1 import arena_pb2, matchserver_pb2
from server.app import Settings
from tests.support.server import ServerThread


def test_every_method_of_both_services_is_registered_with_the_safe_handler_and_served(
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
        for module, name in ((matchserver_pb2, "MatchService"), (arena_pb2, "ArenaService")):
            descriptor = module.DESCRIPTOR.services_by_name[name]
            handlers = registered[descriptor.full_name]
            assert set(handlers) == {method.name for method in descriptor.methods}
            for method in descriptor.methods:  # the malformed-body guard, not the generated FromString
                assert (
                    handlers[method.name].request_deserializer is not getattr(module, method.input_type.name).FromString
                )
        client = server.client()
        created = client.create("duel", ["ann", "bob"], seed=3)
        assert client.state(created.match_id).version >= 1
        garbage = client.channel.unary_unary(
            f"/{matchserver_pb2.DESCRIPTOR.services_by_name['MatchService'].full_name}/GetState"
        )
        with pytest.raises(grpc.RpcError) as refused:
            garbage(b"\xff\xff\xff", timeout=30)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        server.stop()
