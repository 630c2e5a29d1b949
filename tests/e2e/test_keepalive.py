"""Keepalive as gRPC core reads it (issue 24, defect 3). gRPC ignores an option name it does not know,
silently: under a wrong name the server's ping allowance stayed at core's 5-minute default, and every
idle client's pings were struck out with GOAWAY too_many_pings. The adversary here is our own typo."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from clients.client import MatchClient, channel_options
from server.app import ConnectionLimits, Settings
from server.startup import EXCLUSIVE_PORT_OPTIONS
from tests.support.duel import seat_duel
from tests.support.server import ServerThread

KNOWN = Path(__file__).resolve().parents[1] / "fixtures" / "grpc_channel_arg_names.txt"


def known_names() -> set[str]:
    lines = KNOWN.read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def test_every_channel_option_the_server_and_the_client_pass_is_a_name_grpc_knows() -> None:
    passed = [name for name, _ in [*ConnectionLimits().options(), *EXCLUSIVE_PORT_OPTIONS, *channel_options()]]
    assert sorted(set(passed) - known_names()) == []


@pytest.mark.slow
def test_an_idle_stream_lives_past_several_client_ping_intervals(tmp_path: Path) -> None:
    """The server allows a ping every 0.5 s, the client pings every 1 s: an idle stream must live through
    many pings (under the old option name, two strikes closed the connection within seconds)."""
    limits = ConnectionLimits(min_ping_interval_without_data_ms=500, keepalive_time_ms=60_000)
    settings = Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"), connections=limits)
    server = ServerThread(settings).start()
    admin = server.admin_token
    client = MatchClient(server.address, timeout=30, host_credential=admin, keepalive_time_ms=1_000)
    try:
        match_id, _, ann, bob = seat_duel(client, seed=3)
        version = client.state(match_id).version
        stream = client.subscribe(match_id, ann, from_version=version, resume=False)
        threading.Event().wait(8)  # idle: eight of the client's ping intervals, no data either way
        client.submit(match_id, bob, text="pick 2")
        update = next(stream)  # the same stream, never cut: it raises if the connection was closed
        assert update.event.version == version + 1
        stream.cancel()
    finally:
        client.close()
        server.stop()
