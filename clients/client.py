"""A thin, synchronous Python client for matchserver over the generated stubs."""

from __future__ import annotations

import ipaddress
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from matchserver.v1 import matchserver_pb2 as pb
from matchserver.v1 import matchserver_pb2_grpc as pb_grpc


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
    loopback address unless `insecure=True`: anything else raises CleartextCredentialError instead."""

    def __init__(
        self,
        address: str,
        timeout: float = 30.0,
        tls: bool = False,
        ca: str | os.PathLike[str] | bytes | None = None,
        insecure: bool = False,
    ) -> None:
        self.address = address
        self.timeout = timeout
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

    def _auth(self, token: str | None) -> list[tuple[str, str]]:
        """The authorization metadata; checked before every call that carries a token."""
        if not token:
            return []
        if not self.tls and not self.insecure and not is_loopback_target(self.address):
            raise CleartextCredentialError(
                f"refusing to send a token in clear text to {self.address}, which is not a loopback address: "
                "connect with TLS (matchctl --tls, MatchClient(tls=True)) or allow plaintext explicitly "
                "(matchctl --insecure, MatchClient(insecure=True))"
            )
        return [("authorization", f"Bearer {token}")]

    def create(
        self, game: str, players: list[str], seed: int | None = None, config: dict[str, Any] | None = None
    ) -> pb.CreateMatchResponse:
        request = pb.CreateMatchRequest(game=game, players=players, config_json=json.dumps(config or {}))
        if seed is not None:
            request.seed = seed
        response: pb.CreateMatchResponse = self.stub.CreateMatch(request, timeout=self.timeout)
        return response

    def join(self, match_id: str, player: str, token: str | None = None) -> str:
        response = self.stub.JoinMatch(
            pb.JoinMatchRequest(match_id=match_id, player=player), metadata=self._auth(token), timeout=self.timeout
        )
        return str(response.player_token)

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
        response: pb.SubmitResponse = self.stub.Submit(request, metadata=self._auth(token), timeout=self.timeout)
        return response

    def force_phase_end(self, match_id: str, token: str, reason: str = "") -> pb.ForcePhaseEndResponse:
        response: pb.ForcePhaseEndResponse = self.stub.ForcePhaseEnd(
            pb.ForcePhaseEndRequest(match_id=match_id, reason=reason), metadata=self._auth(token), timeout=self.timeout
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

    def history(self, match_id: str, token: str | None = None) -> list[pb.Event]:
        reply = self.stub.History(
            pb.HistoryRequest(match_id=match_id), metadata=self._auth(token), timeout=self.timeout
        )
        return list(reply.events)

    def subscribe(
        self, match_id: str, token: str | None = None, from_version: int = 0
    ) -> Iterator[pb.SubscribeResponse]:
        """Updates after `from_version`; resume after a disconnect with the last version seen."""
        stream: Iterator[pb.SubscribeResponse] = self.stub.Subscribe(
            pb.SubscribeRequest(match_id=match_id, from_version=from_version), metadata=self._auth(token)
        )
        return stream

    def host_action(
        self, match_id: str, token: str, action: str, reason: str = "", seconds: float = 0.0
    ) -> pb.HostActionResponse:
        request = pb.HostActionRequest(match_id=match_id, action=action, reason=reason, seconds=seconds)
        response: pb.HostActionResponse = self.stub.HostAction(
            request, metadata=self._auth(token), timeout=self.timeout
        )
        return response

    def rollback(self, match_id: str, token: str, to_version: int, reason: str) -> pb.RollbackResponse:
        request = pb.RollbackRequest(match_id=match_id, to_version=to_version, reason=reason)
        response: pb.RollbackResponse = self.stub.Rollback(request, metadata=self._auth(token), timeout=self.timeout)
        return response

    def fork(self, match_id: str, token: str, at_version: int, reason: str = "") -> pb.ForkResponse:
        request = pb.ForkRequest(match_id=match_id, at_version=at_version, reason=reason)
        response: pb.ForkResponse = self.stub.Fork(request, metadata=self._auth(token), timeout=self.timeout)
        return response

    def verify(self, match_id: str, token: str | None) -> pb.VerifyResponse:
        request = pb.VerifyRequest(match_id=match_id)
        response: pb.VerifyResponse = self.stub.Verify(request, metadata=self._auth(token), timeout=self.timeout)
        return response

    def audit(self, match_id: str, token: str | None = None, at: int | None = None) -> list[pb.AuditEntry]:
        request = pb.AuditRequest(match_id=match_id)
        if at is not None:
            request.at_version = at
        return list(self.stub.Audit(request, metadata=self._auth(token), timeout=self.timeout).entries)

    def list_matches(self) -> list[pb.MatchSummary]:
        return list(self.stub.ListMatches(pb.ListMatchesRequest(), timeout=self.timeout).matches)
