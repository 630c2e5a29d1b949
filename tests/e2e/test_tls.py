"""TLS end to end: a real server with a certificate the test makes, clients that trust it or not, and a
token that never leaves in clear for an address off this machine."""

from __future__ import annotations

import datetime
import ipaddress
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from clients import cli
from clients.client import CleartextCredentialError, MatchClient
from matchserver.v1 import matchserver_pb2 as pb
from server.app import Settings
from tests.support.duel import seat_duel
from tests.support.server import ServerThread


@dataclass(frozen=True)
class Certificates:
    ca: Path  # the authority clients trust
    cert: Path  # the server's certificate, signed by it: DNS:localhost, IP:127.0.0.1
    key: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _builder(subject: x509.Name, issuer: x509.Name, key: ec.EllipticCurvePrivateKey) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
    )


def make_certificates(folder: Path, authority: str = "matchserver test CA") -> Certificates:
    folder.mkdir(parents=True, exist_ok=True)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (
        _builder(_name(authority), _name(authority), ca_key)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    server_key = ec.generate_private_key(ec.SECP256R1())
    san = x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    server_cert = (
        _builder(_name("localhost"), ca_cert.subject, server_key)
        .add_extension(san, critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    paths = Certificates(folder / "ca.pem", folder / "server.pem", folder / "server.key")
    paths.ca.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    paths.cert.write_bytes(server_cert.public_bytes(serialization.Encoding.PEM))
    paths.key.write_bytes(
        server_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return paths


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
    with MatchClient(tls_server.address, tls=True, ca=certificates.ca) as client:  # IP:127.0.0.1
        match_id, host, ann, bob = seat_duel(client, seed=3)
        client.submit(match_id, ann, text="pick 3")
    with MatchClient(f"localhost:{port}", tls=True, ca=certificates.ca.read_bytes()) as client:  # DNS:localhost
        client.submit(match_id, bob, text="pick 1")
        state = client.state(match_id, host)
    assert state.view["round"] == 2 and state.view["scores"] == {"ann": 1, "bob": 0}  # round 1 went to ann


def test_matchctl_speaks_tls_with_ca(
    tls_server: ServerThread, certificates: Certificates, capsys: pytest.CaptureFixture[str]
) -> None:
    server = ["--server", tls_server.address, "--ca", str(certificates.ca)]
    assert cli.main([*server, "create", "duel", "--players", "ann,bob"]) == 0
    match_id = capsys.readouterr().out.strip()
    assert cli.main([*server, "join", match_id, "ann"]) == 0
    assert cli.main([*server, "submit", match_id, "--as", "ann", "pick", "2"]) == 0
    assert "accepted at version" in capsys.readouterr().out


def test_clients_without_tls_or_trusting_another_authority_are_turned_away(
    tls_server: ServerThread, tmp_path: Path
) -> None:
    with MatchClient(tls_server.address, timeout=10) as plaintext:
        with pytest.raises(grpc.RpcError) as failed:
            plaintext.list_matches()
    assert failed.value.code() == grpc.StatusCode.UNAVAILABLE
    stranger = make_certificates(tmp_path / "other", authority="someone else's CA")
    with MatchClient(tls_server.address, timeout=10, ca=stranger.ca) as untrusting:
        with pytest.raises(grpc.RpcError) as failed:
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
        with MatchClient(server.address) as local:
            created = local.stub.CreateMatch(pb.CreateMatchRequest(game="duel", players=["ann", "bob"]), timeout=30)
            before = local.state(created.match_id, created.host_token).version
            with MatchClient(remote) as careful:
                with pytest.raises(CleartextCredentialError, match="--insecure"):
                    careful.join(created.match_id, "ann", created.host_token)
            assert local.state(created.match_id, created.host_token).version == before  # nothing arrived
            with MatchClient(remote, insecure=True) as told:  # the same call, allowed: it does arrive
                told.join(created.match_id, "ann", created.host_token)
            assert local.state(created.match_id, created.host_token).version == before + 1
    finally:
        server.stop()
