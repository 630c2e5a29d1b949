"""A thin, synchronous Python client for matchserver over the generated stubs."""

from __future__ import annotations

import ipaddress
import json
import os
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from matchserver.v1 import matchserver_pb2 as pb
from matchserver.v1 import matchserver_pb2_grpc as pb_grpc

# Pauses before sending a write again while the server is unavailable (about 30 s in all).
WRITE_RETRY_PAUSES = (0.2, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0)


@dataclass(frozen=True)
class State:
    match_id: str
    game: str
    version: int
    view: dict[str, Any]
    status: pb.Status
    viewer: str
    players: list[str]
    results: dict[str, Any]
    clock: float = 0.0


class CleartextCredentialError(Exception):
    """A token would have crossed the network unencrypted; nothing was sent."""


def target_host(target: str) -> str:
    """The host of `HOST:PORT`, `[V6]:PORT`, a bare IPv6 address, or HOST."""
    if target.startswith("["):
        return target[1:].split("]", 1)[0]
    if target.count(":") > 1:
        return target  # a bare IPv6 address: no port
    return target.rsplit(":", 1)[0]


def is_loopback_host(host: str) -> bool:
    """127.0.0.0/8, ::1 (also as ::ffff:127.x.y.z) and `localhost`; other names may resolve anywhere.
    (The server has its own copy in server/startup.py: clients never import the server.)"""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def is_loopback_target(target: str) -> bool:
    """Whether a gRPC target stays on this machine: a loopback host (also as dns:///, ipv4:, ipv6: target,
    every address of a list), or a unix socket."""
    if target.startswith(("unix:", "unix-abstract:")):
        return True
    for scheme in ("ipv4:", "ipv6:"):
        if target.startswith(scheme):
            return all(is_loopback_host(target_host(part)) for part in target.removeprefix(scheme).split(","))
    if target.startswith("dns:"):
        target = target.removeprefix("dns:")
        if target.startswith("//"):  # dns://[authority]/host:port
            target = target[2:].partition("/")[2]
    return is_loopback_host(target_host(target))


class MatchClient:
    """A client of one server. `tls=True` encrypts (with `ca`, a PEM file or its bytes, as the trusted
    roots; the system's roots without it; `ca` alone implies TLS). Without TLS, a token is sent only to a
    loopback address unless `insecure=True`: anything else raises CleartextCredentialError instead.
    `host_credential` (the admin token or a host key) is used where a call names no token and needs one to
    create matches, fill seats, list matches or manage host keys; reads without a token are made as a
    spectator (`authorization: Spectator`)."""

    def __init__(
        self,
        address: str,
        timeout: float = 30.0,
        tls: bool = False,
        ca: str | os.PathLike[str] | bytes | None = None,
        insecure: bool = False,
        host_credential: str | None = None,
    ) -> None:
        self.address = address
        self.timeout = timeout
        self.host_credential = host_credential
        self.tls = tls or ca is not None
        self.insecure = insecure
        if self.tls:
            roots = ca if isinstance(ca, bytes) or ca is None else Path(ca).read_bytes()
            self.channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=roots))
        else:
            self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.MatchServiceStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> MatchClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, call: Any, request: Any, **kwargs: Any) -> Any:
        """Send a write with a request_id (made here when the request has none) and, when the server
        is unavailable (restarting, shutting down), send it again with the same id: the server then
        returns the original outcome instead of writing twice."""
        if not request.request_id:
            request.request_id = uuid.uuid4().hex
        for attempt, pause in enumerate((*WRITE_RETRY_PAUSES, None)):
            try:
                return call(request, **kwargs)
            except grpc.RpcError as exc:
                if pause is None or exc.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                time.sleep(pause * (1 + attempt * 0.1))
        raise AssertionError("unreachable")

    def _auth(self, token: str | None) -> list[tuple[str, str]]:
        """The authorization metadata (a spectator says so); checked before every call with a token."""
        if not token:
            return [("authorization", "Spectator")]
        if not self.tls and not self.insecure and not is_loopback_target(self.address):
            raise CleartextCredentialError(
                f"refusing to send a token in clear text to {self.address}, which is not a loopback address: "
                "connect with TLS (matchctl --tls, MatchClient(tls=True)) or allow plaintext explicitly "
                "(matchctl --insecure, MatchClient(insecure=True))"
            )
        return [("authorization", f"Bearer {token}")]

    def _host_auth(self, token: str | None) -> list[tuple[str, str]]:
        return self._auth(token or self.host_credential)

    def create(
        self,
        game: str,
        players: list[str],
        seed: int | None = None,
        config: dict[str, Any] | None = None,
        token: str | None = None,
        private: bool = False,
    ) -> pb.CreateMatchResponse:
        """Create a match with `token` (the admin token or a host key; default: host_credential)."""
        request = pb.CreateMatchRequest(
            game=game, players=players, config_json=json.dumps(config or {}), private=private
        )
        if seed is not None:
            request.seed = seed
        response: pb.CreateMatchResponse = self._write(
            self.stub.CreateMatch, request, metadata=self._host_auth(token), timeout=self.timeout
        )
        return response

    def join(
        self, match_id: str, player: str, token: str | None = None, invitation: str = "", reissue: bool = False
    ) -> str:
        """Claim a seat with its invitation, or fill it as host/admin (`token`, default host_credential)."""
        return str(self.join_match(match_id, player, token, invitation, reissue).player_token)

    def join_match(
        self, match_id: str, player: str, token: str | None = None, invitation: str = "", reissue: bool = False
    ) -> pb.JoinMatchResponse:
        """The whole response of a join: the player's token, the version and the receipt."""
        request = pb.JoinMatchRequest(match_id=match_id, player=player, invitation=invitation, reissue=reissue)
        metadata = self._auth(token) if invitation else self._host_auth(token)
        response: pb.JoinMatchResponse = self._write(
            self.stub.JoinMatch, request, metadata=metadata, timeout=self.timeout
        )
        return response

    def invite(self, match_id: str, player: str, token: str | None = None) -> str:
        request = pb.InviteSeatRequest(match_id=match_id, player=player)
        response = self._write(self.stub.InviteSeat, request, metadata=self._host_auth(token), timeout=self.timeout)
        return str(response.invitation)

    def create_host_key(self, name: str, token: str | None = None) -> pb.CreateHostKeyResponse:
        response: pb.CreateHostKeyResponse = self._write(
            self.stub.CreateHostKey,
            pb.CreateHostKeyRequest(name=name),
            metadata=self._host_auth(token),
            timeout=self.timeout,
        )
        return response

    def list_host_keys(self, token: str | None = None) -> list[pb.HostKey]:
        reply = self.stub.ListHostKeys(pb.ListHostKeysRequest(), metadata=self._host_auth(token), timeout=self.timeout)
        return list(reply.keys)

    def revoke_host_key(self, key_id: str, reason: str = "", token: str | None = None) -> pb.HostKey:
        reply = self.stub.RevokeHostKey(
            pb.RevokeHostKeyRequest(key_id=key_id, reason=reason), metadata=self._host_auth(token), timeout=self.timeout
        )
        return reply.key

    def submit(
        self,
        match_id: str,
        token: str,
        text: str | None = None,
        typed: pb.GameCommand | None = None,
        player: str = "",
        expected_version: int | None = None,
    ) -> pb.SubmitResponse:
        request = pb.SubmitRequest(match_id=match_id, player=player)
        if text is not None:
            request.text = text
        if typed is not None:
            request.typed.CopyFrom(typed)
        if expected_version is not None:
            request.expected_version = expected_version
        response: pb.SubmitResponse = self._write(
            self.stub.Submit, request, metadata=self._auth(token), timeout=self.timeout
        )
        return response

    def force_phase_end(
        self, match_id: str, token: str, reason: str = "", expected_version: int | None = None
    ) -> pb.ForcePhaseEndResponse:
        """End the current phase; with `expected_version`, only if the match is still at that version."""
        request = pb.ForcePhaseEndRequest(match_id=match_id, reason=reason)
        if expected_version is not None:
            request.expected_version = expected_version
        response: pb.ForcePhaseEndResponse = self._write(
            self.stub.ForcePhaseEnd, request, metadata=self._auth(token), timeout=self.timeout
        )
        return response

    def state(self, match_id: str, token: str | None = None, at: int | None = None) -> State:
        request = pb.GetStateRequest(match_id=match_id)
        if at is not None:
            request.at_version = at
        reply = self.stub.GetState(request, metadata=self._auth(token), timeout=self.timeout)
        return State(
            match_id=reply.match_id,
            game=reply.game,
            version=reply.version,
            view=json.loads(reply.view_json or "{}"),
            status=reply.status,
            viewer=reply.viewer,
            players=list(reply.players),
            results=json.loads(reply.results_json or "{}"),
            clock=reply.clock,
        )

    def history(self, match_id: str, token: str | None = None, page_size: int = 0) -> list[pb.Event]:
        """The whole log, page by page."""
        events: list[pb.Event] = []
        page_token = ""
        while True:
            request = pb.HistoryRequest(match_id=match_id, page_size=page_size, page_token=page_token)
            reply = self.stub.History(request, metadata=self._auth(token), timeout=self.timeout)
            events.extend(reply.events)
            page_token = reply.next_page_token
            if not page_token:
                return events

    def subscribe(
        self, match_id: str, token: str | None = None, from_version: int = 0
    ) -> Iterator[pb.SubscribeResponse]:
        """Updates after `from_version`; resume after a disconnect with the last version seen."""
        stream: Iterator[pb.SubscribeResponse] = self.stub.Subscribe(
            pb.SubscribeRequest(match_id=match_id, from_version=from_version), metadata=self._auth(token)
        )
        return stream

    def host_action(
        self,
        match_id: str,
        token: str,
        action: str,
        reason: str = "",
        seconds: float = 0.0,
        expected_version: int | None = None,
    ) -> pb.HostActionResponse:
        request = pb.HostActionRequest(match_id=match_id, action=action, reason=reason, seconds=seconds)
        if expected_version is not None:
            request.expected_version = expected_version
        response: pb.HostActionResponse = self._write(
            self.stub.HostAction, request, metadata=self._auth(token), timeout=self.timeout
        )
        return response

    def rollback(
        self, match_id: str, token: str, to_version: int, reason: str, reopen: bool = False
    ) -> pb.RollbackResponse:
        """Roll back to `to_version` (the match is then paused); `reopen` is needed for a finished match."""
        request = pb.RollbackRequest(match_id=match_id, to_version=to_version, reason=reason, reopen=reopen)
        response: pb.RollbackResponse = self._write(
            self.stub.Rollback, request, metadata=self._auth(token), timeout=self.timeout
        )
        return response

    def fork(self, match_id: str, token: str, at_version: int, reason: str = "") -> pb.ForkResponse:
        request = pb.ForkRequest(match_id=match_id, at_version=at_version, reason=reason)
        response: pb.ForkResponse = self._write(
            self.stub.Fork, request, metadata=self._auth(token), timeout=self.timeout
        )
        return response

    def verify(self, match_id: str, token: str | None, receipts: Iterable[pb.Receipt] = ()) -> pb.VerifyResponse:
        """Verify the match; with receipts, also that the log still holds each receipted version unchanged."""
        request = pb.VerifyRequest(match_id=match_id, receipts=list(receipts))
        response: pb.VerifyResponse = self.stub.Verify(request, metadata=self._auth(token), timeout=self.timeout)
        return response

    def audit(
        self, match_id: str, token: str | None = None, at: int | None = None, page_size: int = 0
    ) -> list[pb.AuditEntry]:
        """Every audit entry, page by page."""
        entries: list[pb.AuditEntry] = []
        page_token = ""
        while True:
            request = pb.AuditRequest(match_id=match_id, page_size=page_size, page_token=page_token)
            if at is not None:
                request.at_version = at
            reply = self.stub.Audit(request, metadata=self._auth(token), timeout=self.timeout)
            entries.extend(reply.entries)
            page_token = reply.next_page_token
            if not page_token:
                return entries

    def list_matches(self, token: str | None = None, page_size: int = 0) -> list[pb.MatchSummary]:
        """The matches `token` (default host_credential) hosts or sits in; the admin sees all."""
        matches: list[pb.MatchSummary] = []
        page_token = ""
        while True:
            request = pb.ListMatchesRequest(page_size=page_size, page_token=page_token)
            reply = self.stub.ListMatches(request, metadata=self._host_auth(token), timeout=self.timeout)
            matches.extend(reply.matches)
            page_token = reply.next_page_token
            if not page_token:
                return matches
