"""TLS end to end: a real server with a certificate the test makes, clients that trust it or not, and a
token that never leaves in clear for an address off this machine."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from clients import cli
from clients.client import CleartextCredentialError, MatchClient
from server.app import Settings
from tests.support.certificates import Certificates, make_certificates
from tests.support.duel import seat_duel
from tests.support.server import ServerThread


@pytest.fixture
def certificates(tmp_path: Path) -> Certificates:
    return make_certificates(tmp_path / "tls")


@pytest.fixture
def tls_server(tmp_path: Path, certificates: Certificates) -> Iterator[ServerThread]:
    settings = Settings(
        address="127.0.0.1:0",
        var_dir=str(tmp_path / "var"),
        tick_interval=0.05,
        tls_cert=str(certificates.cert),
        tls_key=str(certificates.key),
    )
    running = ServerThread(settings).start()
    yield running
    running.stop()


def test_a_client_that_trusts_the_authority_plays_over_tls(
    tls_server: ServerThread, certificates: Certificates
) -> None:
    port = tls_server.address.rsplit(":", 1)[1]
    admin = tls_server.admin_token
    with MatchClient(tls_server.address, tls=True, ca=certificates.ca, host_credential=admin) as client:  # IP
        match_id, host, ann, bob = seat_duel(client, seed=3)
        client.submit(match_id, ann, text="pick 3")
    with MatchClient(f"localhost:{port}", tls=True, ca=certificates.ca.read_bytes()) as client:  # DNS:localhost
        client.submit(match_id, bob, text="pick 1")
        state = client.state(match_id, host)
    assert state.view["round"] == 2 and state.view["scores"] == {"ann": 1, "bob": 0}  # round 1 went to ann


def test_matchctl_speaks_tls_with_ca(
    tls_server: ServerThread, certificates: Certificates, capsys: pytest.CaptureFixture[str]
) -> None:
    server = ["--server", tls_server.address, "--var", tls_server.settings.var_dir, "--ca", str(certificates.ca)]
    assert cli.main([*server, "create", "duel", "--players", "ann,bob"]) == 0
    match_id = capsys.readouterr().out.strip()
    assert cli.main([*server, "join", match_id, "ann"]) == 0
    assert cli.main([*server, "join", match_id, "bob"]) == 0  # the match starts once every seat is claimed
    assert cli.main([*server, "submit", match_id, "--as", "ann", "pick", "2"]) == 0
    assert "accepted at version" in capsys.readouterr().out


def test_clients_without_tls_or_trusting_another_authority_are_turned_away(
    tls_server: ServerThread, tmp_path: Path
) -> None:
    with MatchClient(tls_server.address, timeout=10) as plaintext, pytest.raises(grpc.RpcError) as failed:
        plaintext.list_matches()
    assert failed.value.code() == grpc.StatusCode.UNAVAILABLE
    stranger = make_certificates(tmp_path / "other", authority="someone else's CA")
    with (
        MatchClient(tls_server.address, timeout=10, ca=stranger.ca) as untrusting,
        pytest.raises(grpc.RpcError) as failed,
    ):
        untrusting.list_matches()
    assert failed.value.code() == grpc.StatusCode.UNAVAILABLE


def non_loopback_ip() -> str | None:
    """This machine's address on its default route (a UDP connect sends nothing), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("198.51.100.1", 9))
        except OSError:
            return None
        ip = str(probe.getsockname()[0])
    return None if ipaddress.ip_address(ip).is_loopback else ip


def test_a_token_is_not_sent_in_clear_to_a_non_loopback_address(tmp_path: Path) -> None:
    ip = non_loopback_ip()
    if ip is None:
        pytest.skip("this machine has no non-loopback IPv4 address to serve on")
    settings = Settings(address="0.0.0.0:0", var_dir=str(tmp_path / "var"), tick_interval=0.05, insecure_public=True)
    server = ServerThread(settings).start()
    try:
        remote = f"{ip}:{server.address.rsplit(':', 1)[1]}"
        with server.client() as local:
            created = local.create("duel", ["ann", "bob"])
            before = local.state(created.match_id, created.host_token).version
            with MatchClient(remote) as careful, pytest.raises(CleartextCredentialError, match="--insecure"):
                careful.join(created.match_id, "ann", created.host_token)
            assert local.state(created.match_id, created.host_token).version == before  # nothing arrived
            with MatchClient(remote, insecure=True) as told:  # the same call, allowed: it does arrive
                told.join(created.match_id, "ann", created.host_token)
            assert local.state(created.match_id, created.host_token).version == before + 1
    finally:
        server.stop()
