"""A thin, synchronous Python client for matchserver over the generated stubs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
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


class MatchClient:
    def __init__(self, address: str, timeout: float = 30.0) -> None:
        self.address = address
        self.timeout = timeout
        self.channel = grpc.insecure_channel(address)
        self.stub = pb_grpc.MatchServiceStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> MatchClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def _auth(token: str | None) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {token}")] if token else []

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

    def force_phase_end(
        self, match_id: str, token: str, reason: str = "", expected_version: int | None = None
    ) -> pb.ForcePhaseEndResponse:
        """End the current phase; with `expected_version`, only if the match is still at that version."""
        request = pb.ForcePhaseEndRequest(match_id=match_id, reason=reason)
        if expected_version is not None:
            request.expected_version = expected_version
        response: pb.ForcePhaseEndResponse = self.stub.ForcePhaseEnd(
            request, metadata=self._auth(token), timeout=self.timeout
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
        response: pb.HostActionResponse = self.stub.HostAction(
            request, metadata=self._auth(token), timeout=self.timeout
        )
        return response

    def rollback(
        self, match_id: str, token: str, to_version: int, reason: str, reopen: bool = False
    ) -> pb.RollbackResponse:
        """Roll back to `to_version` (the match is then paused); `reopen` is needed for a finished match."""
        request = pb.RollbackRequest(match_id=match_id, to_version=to_version, reason=reason, reopen=reopen)
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
