"""What the server checks and secures before it serves: TLS credentials, plaintext only on loopback, one
server per address, and the data folder readable by its owner only."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any

import grpc

from server.errors import StartupRefused

# One server per address: gRPC sets SO_REUSEPORT on Linux by default, so a second server on a taken
# port would start and share the clients at random with the first. Kept apart from other server options.
EXCLUSIVE_PORT_OPTIONS: list[tuple[str, Any]] = [("grpc.so_reuseport", 0)]


def listen_host(address: str) -> str:
    """The host of a listen address `HOST:PORT` or `[V6]:PORT` (an empty host means every interface)."""
    if address.startswith("["):
        return address[1:].split("]", 1)[0]
    if address.count(":") > 1:
        return address  # a bare IPv6 address
    return address.rsplit(":", 1)[0]


def is_loopback_host(host: str) -> bool:
    """127.0.0.0/8, ::1 (also as ::ffff:127.x.y.z) and `localhost`; anything else may face a network."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False  # another name (it may resolve anywhere), or an empty host: every interface
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def _read_pem(path: str, flag: str, marker: str) -> bytes:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise StartupRefused(f"cannot read {flag} {path}: {exc.strerror or exc}") from exc
    if f"-----BEGIN {marker}".encode() not in data:
        raise StartupRefused(f"{flag} {path} holds no PEM {marker}")
    return data


def server_credentials(cert: str, key: str) -> grpc.ServerCredentials | None:
    """TLS credentials from the --tls-cert and --tls-key files, or None for plaintext."""
    if not cert and not key:
        return None
    if not (cert and key):
        raise StartupRefused("TLS needs both --tls-cert FILE and --tls-key FILE")
    chain = _read_pem(cert, "--tls-cert", "CERTIFICATE")
    private_key = _read_pem(key, "--tls-key", "PRIVATE KEY")
    if b"PRIVATE KEY-----" in chain:
        raise StartupRefused(f"--tls-cert {cert} holds a private key: give the certificate chain only")
    return grpc.ssl_server_credentials([(private_key, chain)])


def refuse_plaintext_in_public(address: str, tls: bool, insecure_public: bool) -> None:
    """Tokens travel in request metadata: in clear text they must not leave the machine unless asked."""
    if not tls and not insecure_public and not is_loopback_host(listen_host(address)):
        raise StartupRefused(
            f"refusing to serve plaintext on {address}, which is not a loopback address: tokens would cross "
            "the network in clear. Serve TLS with --tls-cert FILE --tls-key FILE, or pass --insecure-public "
            "if something in front of the server encrypts the traffic"
        )


def secure_var_dir(var_dir: str) -> None:
    """The store and the tokens at rest are for the server's owner only: the folder 0700, its files 0600.
    Symlinks are left alone (chmod would follow them out of the folder)."""
    folder = Path(var_dir)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)
    for path in folder.iterdir():
        if path.is_file() and not path.is_symlink():
            path.chmod(0o600)


def tighten_sqlite_files(store_url: str) -> None:
    """A SQLite store may live outside the data folder (sqlite:PATH): the database, -wal, -shm, -journal."""
    if not store_url.startswith("sqlite:"):
        return
    database = Path(store_url.removeprefix("sqlite:"))
    for suffix in ("", "-wal", "-shm", "-journal"):
        path = database.with_name(database.name + suffix)
        if path.is_file() and not path.is_symlink():
            path.chmod(0o600)


def bind(server: grpc.aio.Server, address: str, credentials: grpc.ServerCredentials | None) -> int:
    """Listen on the address (exclusively: see EXCLUSIVE_PORT_OPTIONS), or a clear error naming it."""
    try:
        port = (
            server.add_insecure_port(address) if credentials is None else server.add_secure_port(address, credentials)
        )
    except RuntimeError:  # grpc's "Failed to bind to address"
        port = 0
    if port == 0:
        hint = ", or --tls-key does not match --tls-cert" if credentials is not None else ""
        raise StartupRefused(
            f"cannot listen on {address}: the address is in use (another server?) or not on this machine{hint}",
            exit_code=1,
        )
    return int(port)
