"""The `matchserver` process at start-up: where it agrees to serve plaintext, one server per address,
the data folder for its owner only, and no secret in its log. Real child processes, real files."""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from clients.client import MatchClient
from server.app import Settings
from server.main import shown_store
from tests.support.certificates import make_certificates
from tests.support.server import ServerThread

MATCHSERVER = str(Path(sys.executable).parent / "matchserver")


def child_env() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if not key.startswith("MATCHSERVER_")}


class Child:
    """A running `matchserver`: its address from the line it prints; its log (stderr) in a file."""

    def __init__(self, log: Path, *args: str) -> None:
        self.log = log
        with log.open("w") as err:
            self.process = subprocess.Popen(
                [MATCHSERVER, *args], stdout=subprocess.PIPE, stderr=err, text=True, env=child_env()
            )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # EOF (an empty line) if it exits instead
        found = re.search(r"listening on (\S+)", line)
        if not found:
            self.stop()
            pytest.fail(f"the server did not start: {line!r}; its log: {log.read_text()}")
        self.address = found.group(1)
        self.port = int(self.address.rsplit(":", 1)[1])

    def stop(self) -> str:
        """Stop it; returns all it wrote (stdout and log)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        out, _ = self.process.communicate(timeout=30)
        return (out or "") + self.log.read_text()


@pytest.fixture
def children() -> Iterator[list[Child]]:
    started: list[Child] = []
    yield started
    for child in started:
        if child.process.poll() is None:
            child.process.kill()
            child.process.wait(30)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MATCHSERVER, *args], capture_output=True, text=True, env=child_env(), timeout=60)


def serving(address: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def test_plaintext_on_a_public_address_exits_2_naming_the_flags_and_touching_nothing(tmp_path: Path) -> None:
    done = run("--address", "0.0.0.0:0", "--var", str(tmp_path / "var"))
    assert done.returncode == 2
    assert "0.0.0.0:0" in done.stderr and "--tls-cert" in done.stderr and "--insecure-public" in done.stderr
    assert not (tmp_path / "var").exists()


@pytest.mark.parametrize("how", ["tls", "insecure-public"])
def test_a_public_address_is_served_with_tls_or_when_told(tmp_path: Path, children: list[Child], how: str) -> None:
    if how == "tls":
        certificates = make_certificates(tmp_path / "tls")
        flags = ["--tls-cert", str(certificates.cert), "--tls-key", str(certificates.key)]
    else:
        flags = ["--insecure-public"]
    child = Child(tmp_path / "log", "--address", "0.0.0.0:0", "--var", str(tmp_path / "var"), *flags)
    children.append(child)
    if how == "tls":
        with MatchClient(f"127.0.0.1:{child.port}", tls=True, ca=certificates.ca) as client:
            assert client.list_matches() == []
    else:
        assert serving(f"127.0.0.1:{child.port}")


@pytest.mark.slow
def test_a_second_server_on_a_taken_address_exits_1_naming_it(tmp_path: Path, children: list[Child]) -> None:
    first = Child(tmp_path / "first.log", "--address", "127.0.0.1:0", "--var", str(tmp_path / "first"))
    children.append(first)
    address = f"127.0.0.1:{first.port}"
    second = subprocess.Popen(
        [MATCHSERVER, "--address", address, "--var", str(tmp_path / "second")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    assert second.stdout is not None
    first_line = second.stdout.readline()  # EOF (empty) when it exits, as it should
    if "listening" in first_line:
        second.kill()
    _, err = second.communicate(timeout=60)
    assert "listening" not in first_line, "a second server started on a taken port"
    assert second.returncode == 1
    assert f"cannot listen on {address}" in err and "in use" in err
    assert not (tmp_path / "second" / "matches.db").exists()  # it stopped before opening a store
    assert serving(address)  # the first one is undisturbed


def modes(folder: Path) -> dict[str, str]:
    """Like `stat -c %a folder folder/*`."""
    paths = [folder, *sorted(folder.iterdir())]
    return {path.name: oct(stat.S_IMODE(path.stat().st_mode))[2:] for path in paths}


def test_the_data_folder_and_every_file_in_it_are_for_the_owner_only(tmp_path: Path, children: list[Child]) -> None:
    var = tmp_path / "var"
    earlier = ServerThread(Settings(address="127.0.0.1:0", var_dir=str(var))).start()  # a store to reopen
    with earlier.client() as client:
        client.create("mining", ["a", "b", "c", "d", "e"], seed=4)
    earlier.stop()
    (var / "host.key").write_text("a key file\n")
    for path in var.iterdir():
        path.chmod(0o644)  # as an older release, or a careless copy, left them
    var.chmod(0o755)
    child = Child(tmp_path / "log", "--address", "127.0.0.1:0", "--var", str(var))
    children.append(child)
    admin = (var / "admin.token").read_text().strip()
    with MatchClient(child.address, host_credential=admin) as client:  # a write: -wal and -shm exist now
        created = client.create("mining", ["a", "b", "c", "d", "e"], seed=5)
        client.join(created.match_id, "a")
    found = modes(var)
    assert {"admin.token", "matches.db", "matches.db-wal", "matches.db-shm", "host.key"} <= set(found)
    assert found == {"var": "700", **{name: "600" for name in found if name != "var"}}


def test_no_token_reaches_the_server_log(tmp_path: Path, children: list[Child]) -> None:
    var = tmp_path / "var"
    child = Child(tmp_path / "log", "--address", "127.0.0.1:0", "--var", str(var))
    children.append(child)
    admin = (var / "admin.token").read_text().strip()
    secrets = {"admin": admin}
    with MatchClient(child.address, host_credential=admin) as client:
        secrets["host key"] = client.create_host_key("log test").host_key
        created = client.create("mining", ["a", "b", "c", "d", "e"], seed=7, token=secrets["host key"])
        secrets["host"] = created.host_token
        client.host_action(created.match_id, created.host_token, "start", "d and e join later")
        secrets.update({f"invitation {seat.player}": seat.invitation for seat in created.invitations})
        secrets["c"] = client.join(created.match_id, "c", invitation=secrets["invitation c"])
        secrets["new invitation d"] = client.invite(created.match_id, "d", created.host_token)
        for player in ("a", "b"):
            secrets[player] = client.join(created.match_id, player, created.host_token)
        with pytest.raises(grpc.RpcError):  # a refused invitation: the error path
            client.join(created.match_id, "e", invitation=secrets["invitation d"])
        client.submit(created.match_id, secrets["a"], text="start b 1; start c 2; start p 3; start s 4; start t 5")
        with pytest.raises(grpc.RpcError):  # not understood: the error path
            client.submit(created.match_id, secrets["b"], text="dig for gold")
        forged = admin[:-4] + "AAAA"  # a near miss must not be echoed either
        secrets["forged"] = forged
        for token in (forged, secrets["b"]):  # a bad token; a player where the host is needed
            with pytest.raises(grpc.RpcError):
                client.rollback(created.match_id, token, 1, "trying")
        with pytest.raises(grpc.RpcError):
            client.submit(created.match_id, forged, text="start b 1")
    written = child.stop()
    assert "INFO root: matchserver on port" in written  # the log was captured, at INFO
    leaked = [name for name, secret in secrets.items() if secret in written]
    assert leaked == [], f"the server wrote these tokens: {leaked}"


def test_a_store_password_is_not_shown_in_the_start_up_line() -> None:
    assert shown_store("postgres:host=db user=u password=hunter2 dbname=d") == (
        "postgres:host=db user=u password=*** dbname=d"
    )
    assert shown_store("postgres:host=db password='two words' dbname=d") == "postgres:host=db password=*** dbname=d"


def test_a_fresh_store_starts_without_talking_of_an_upgrade(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 24: a new host saw "upgrading the store: building the match catalog of 0 matches"."""
    caplog.set_level("INFO")
    server = ServerThread(Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"))).start()
    try:
        assert server.client().list_matches() == []
    finally:
        server.stop()
    assert "upgrad" not in caplog.text
