"""An engine that fails on a command it should have decided is the server's bug, not the caller's: the
caller gets INTERNAL with the id of the log line that holds the traceback, nothing is written, and the
match plays on (issue 25: the error is named, EngineFault, a row of the one error table)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from engine import registry
from engine.contract import Context, Event
from tests.support import duel
from tests.support.server import ServerThread


class Broken(duel.Duel):
    """A duel whose rules crash on a pick of 2 (as a bug in a game would)."""

    name = "broken-duel"

    def decide(self, state: Any, player: str, command: Any, ctx: Context) -> list[Event]:
        if command.number == 2:
            raise ZeroDivisionError("a bug in the rules")
        return super().decide(state, player, command, ctx)


@pytest.fixture
def broken() -> Iterator[None]:
    """The broken game, registered for this test only (every registered game is in the engine's tests)."""
    registry.register(Broken())
    yield
    registry.unregister(Broken.name)


def test_an_engine_crash_is_internal_with_a_log_id_and_writes_nothing(
    server: ServerThread, caplog: pytest.LogCaptureFixture, broken: None
) -> None:
    client = server.client()
    created = client.create("broken-duel", ["ann", "bob"], seed=3)
    ann, bob = client.join(created.match_id, "ann"), client.join(created.match_id, "bob")
    before = client.state(created.match_id, created.host_token).version
    with caplog.at_level(logging.ERROR), pytest.raises(grpc.RpcError) as crashed:
        client.submit(created.match_id, ann, text="pick 2")
    assert crashed.value.code() == grpc.StatusCode.INTERNAL
    details = str(crashed.value.details())
    assert "the engine failed" in details and "nothing was written" in details
    log_id = details.split("server log id ")[1].split(")")[0]
    assert any(log_id in record.getMessage() and record.exc_info for record in caplog.records)
    assert client.state(created.match_id, created.host_token).version == before  # nothing was written
    client.submit(created.match_id, ann, text="pick 3")  # the match plays on
    client.submit(created.match_id, bob, text="pick 1")
    assert client.state(created.match_id, created.host_token).view["scores"] == {"ann": 1, "bob": 0}
