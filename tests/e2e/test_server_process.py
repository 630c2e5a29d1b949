"""The `matchserver` program itself, as `make run` starts it: health, reflection, and a kill -9."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from clients.client import MatchClient
from tests.support.process import WAIT, start_process


def start(var: Path) -> tuple[subprocess.Popen[str], str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("MATCHSERVER_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "server.main", "--address", "127.0.0.1:0", "--var", str(var)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"listening on (\S+)", line)
    assert found, f"the server did not start: {line!r}"
    return process, found.group(1)


@pytest.mark.slow
def test_the_server_process_serves_health_and_reflection_and_survives_kill_9(tmp_path: Path) -> None:
    process, address = start(tmp_path / "var")
    try:
        channel = grpc.insecure_channel(address)
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        replies = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(iter([request]))
        assert "matchserver.v1.MatchService" in {s.name for r in replies for s in r.list_services_response.service}
        assert (tmp_path / "var" / "admin.token").exists() and (tmp_path / "var" / "matches.db").exists()
        admin = (tmp_path / "var" / "admin.token").read_text().strip()
        client = MatchClient(address, host_credential=admin)
        created = client.create("mining", ["a", "b", "c", "d", "e"], seed=4)
        client.host_action(created.match_id, created.host_token, "start", "the others join later")
        token = client.join(created.match_id, "a")
        client.submit(created.match_id, token, text="start b 1; start c 2; start p 3; start s 4; start t 5")
        before = client.state(created.match_id, created.host_token)
        client.close()
    finally:
        process.send_signal(signal.SIGKILL)  # no clean shutdown: only what was committed survives
        process.wait(10)
    process, address = start(tmp_path / "var")
    try:
        client = MatchClient(address)
        after = client.state(created.match_id, created.host_token)
        assert (after.version, after.view) == (before.version, before.view)
        assert client.verify(created.match_id, created.host_token).ok
        client.close()
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.slow
def test_a_truncated_shm_file_stops_the_server_saying_why_and_a_restart_loses_nothing(tmp_path: Path) -> None:
    """SQLite memory-maps its -shm file: once it is cut short, the next write faults (SIGBUS) where no
    Python code can catch it. The server says why on stderr (every thread's stack), and a restart
    rebuilds the index from the -wal: every acknowledged write is there (issue 23, item 10)."""
    var = tmp_path / "var"
    first = start_process(var, tmp_path / "first.log")
    client = MatchClient(first.address, timeout=30, host_credential=first.admin_token())
    kept = client.create("cookoff", ["ann", "bob"], seed=3).match_id
    os.truncate(var / "matches.db-shm", 0)
    with pytest.raises(grpc.RpcError):
        client.create("cookoff", ["ann", "bob"], seed=4)
    client.close()
    assert first.process.wait(WAIT) == -signal.SIGBUS
    said = (tmp_path / "first.log").read_text()
    assert "Fatal Python error: Bus error" in said and "sqlite" in said
    second = start_process(var, tmp_path / "second.log")
    client = MatchClient(second.address, timeout=30, host_credential=second.admin_token())
    try:
        assert client.state(kept).version >= 1
    finally:
        client.close()
        second.stop()
