"""Which addresses stay on this machine, and what the server and the clients refuse because of it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest

from clients import cli
from clients import client as client_module
from clients.client import CleartextCredentialError, MatchClient, is_loopback_target
from server import startup
from server.app import Settings, start_server
from server.errors import StartupRefused
from server.startup import listen_host, refuse_plaintext_in_public

# (host, loopback?) for both copies of the classification: the server's and the client library's.
HOSTS = [
    ("127.0.0.1", True),
    ("127.8.9.10", True),  # all of 127.0.0.0/8
    ("::1", True),
    ("::ffff:127.0.0.1", True),  # IPv4-mapped loopback
    ("localhost", True),
    ("LocalHost.", True),
    ("0.0.0.0", False),  # every interface
    ("::", False),
    ("", False),  # an empty host listens on every interface
    ("128.0.0.1", False),
    ("192.168.1.20", False),
    ("10.0.0.1", False),
    ("::ffff:10.0.0.1", False),
    ("fe80::1", False),
    ("example.org", False),
    ("localhost.example.org", False),  # a name that only starts like localhost may resolve anywhere
    ("myhost", False),
]


@pytest.mark.parametrize(("host", "loopback"), HOSTS)
def test_the_server_and_the_client_library_agree_on_what_is_loopback(host: str, loopback: bool) -> None:
    assert startup.is_loopback_host(host) is loopback
    assert client_module.is_loopback_host(host) is loopback


@pytest.mark.parametrize(
    ("address", "host"),
    [
        ("127.0.0.1:50051", "127.0.0.1"),
        ("[::1]:50051", "::1"),
        ("[::]:0", "::"),
        ("0.0.0.0:50051", "0.0.0.0"),
        (":50051", ""),
        ("localhost:0", "localhost"),
    ],
)
def test_the_host_of_a_listen_address(address: str, host: str) -> None:
    assert listen_host(address) == host


@pytest.mark.parametrize(
    ("target", "loopback"),
    [
        ("127.0.0.1:50051", True),
        ("localhost:50051", True),
        ("[::1]:50051", True),
        ("::1", True),
        ("dns:///localhost:50051", True),
        ("dns://8.8.8.8/localhost:50051", True),  # the authority is the resolver, not the server
        ("ipv4:127.0.0.1:1,127.0.0.2:2", True),
        ("ipv6:[::1]:50051", True),
        ("unix:/run/matchserver.sock", True),
        ("unix-abstract:matchserver", True),
        ("192.0.2.7:50051", False),
        ("[2001:db8::1]:50051", False),
        ("dns:///games.example.org:50051", False),
        ("ipv4:127.0.0.1:1,192.0.2.7:2", False),  # one remote address in the list is enough
        ("games.example.org", False),
    ],
)
def test_client_targets(target: str, loopback: bool) -> None:
    assert is_loopback_target(target) is loopback


@pytest.mark.parametrize("address", ["0.0.0.0:50051", "[::]:50051", ":50051", "192.0.2.7:50051", "myhost:1"])
def test_the_server_refuses_plaintext_on_a_public_address_naming_both_ways_out(address: str) -> None:
    with pytest.raises(StartupRefused) as refused:
        refuse_plaintext_in_public(address, tls=False, insecure_public=False)
    assert refused.value.exit_code == 2
    assert address in str(refused.value)
    assert "--tls-cert" in str(refused.value) and "--insecure-public" in str(refused.value)
    refuse_plaintext_in_public(address, tls=True, insecure_public=False)
    refuse_plaintext_in_public(address, tls=False, insecure_public=True)


@pytest.mark.parametrize("address", ["127.0.0.1:0", "[::1]:0", "localhost:50051"])
def test_plaintext_on_loopback_needs_no_flag(address: str) -> None:
    refuse_plaintext_in_public(address, tls=False, insecure_public=False)


def test_start_server_refuses_before_touching_the_data_folder(tmp_path: Path) -> None:
    settings = Settings(address="0.0.0.0:0", var_dir=str(tmp_path / "var"))
    with pytest.raises(StartupRefused, match="--insecure-public"):
        asyncio.run(start_server(settings))
    assert not (tmp_path / "var").exists()


@pytest.mark.parametrize(
    ("cert", "key", "problem"),
    [
        ("cert.pem", "", "both --tls-cert FILE and --tls-key FILE"),
        ("missing.pem", "key.pem", "cannot read --tls-cert"),
        ("key.pem", "key.pem", "--tls-cert"),  # a key where the certificate belongs
        ("cert.pem", "cert.pem", "--tls-key"),
    ],
)
def test_unusable_tls_files_are_named_at_start_up(tmp_path: Path, cert: str, key: str, problem: str) -> None:
    (tmp_path / "cert.pem").write_text("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
    (tmp_path / "key.pem").write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    settings = Settings(
        address="127.0.0.1:0",
        var_dir=str(tmp_path / "var"),
        tls_cert=str(tmp_path / cert) if cert else "",
        tls_key=str(tmp_path / key) if key else "",
    )
    with pytest.raises(StartupRefused, match=problem) as refused:
        asyncio.run(start_server(settings))
    assert refused.value.exit_code == 2
    assert not (tmp_path / "var").exists()


# A documentation address (TEST-NET-2): nothing answers there, so a request that was sent would end in
# UNAVAILABLE or DEADLINE_EXCEEDED, never in the library's own refusal.
REMOTE = "198.51.100.7:50051"


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.join("m", "ann", "secret"),
        lambda c: c.submit("m", "secret", text="pick 1"),
        lambda c: c.state("m", "secret"),
        lambda c: c.subscribe("m", "secret"),
        lambda c: c.rollback("m", "secret", 3, "why"),
    ],
)
def test_the_client_library_refuses_to_send_a_token_in_clear_to_a_remote_address(call: object) -> None:
    with MatchClient(REMOTE, timeout=5) as client, pytest.raises(CleartextCredentialError) as refused:
        call(client)  # type: ignore[operator]
    message = str(refused.value)
    assert REMOTE in message and "tls=True" in message and "insecure=True" in message
    assert "secret" not in message


def test_insecure_lets_a_token_go_in_clear_and_tls_needs_no_permission() -> None:
    # Sent: nothing answers there.
    with MatchClient(REMOTE, timeout=0.5, insecure=True) as client, pytest.raises(grpc.RpcError):
        client.state("m", "secret")
    with MatchClient(REMOTE, timeout=0.5, tls=True) as client, pytest.raises(grpc.RpcError):
        client.state("m", "secret")


def test_matchctl_refuses_too_and_names_its_flags(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["--server", REMOTE, "join", "m", "ann", "--token", "secret"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--tls" in err and "--insecure" in err and REMOTE in err
