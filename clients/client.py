"""A thin, synchronous Python client for matchserver over the generated stubs."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc

from matchserver.v1 import matchserver_pb2 as pb
from matchserver.v1 import matchserver_pb2_grpc as pb_grpc

# Trailing metadata on a stream the server ended on purpose: the last version it sent.
RESUME_FROM = "matchserver-resume-from"
# Keepalive pings on an idle connection: the server permits this interval (server.app CLIENT_KEEPALIVE_MS);
# pinging more often than it permits gets the connection closed (too_many_pings).
KEEPALIVE_TIME_MS = 60_000


def channel_options() -> list[tuple[str, int]]:
    return [
        ("grpc.keepalive_time_ms", KEEPALIVE_TIME_MS),
        ("grpc.keepalive_timeout_ms", 20_000),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.max_pings_without_data", 0),  # keep pinging an idle stream (a quiet match)
        # Reconnect soon after a server restart, so a resumed stream waits little.
        ("grpc.initial_reconnect_backoff_ms", 200),
        ("grpc.min_reconnect_backoff_ms", 200),
        ("grpc.max_reconnect_backoff_ms", 2_000),
    ]


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
        self.channel = grpc.insecure_channel(
            address,
            options=channel_options(),
        )
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
        self,
        match_id: str,
        token: str | None = None,
        from_version: int = 0,
        resume: bool = True,
        on_resume: Callable[[int, str], None] | None = None,
    ) -> Subscription:
        """Updates after `from_version`. When the server ends the stream in a way that allows it
        (UNAVAILABLE: shutdown, the stream's age, a slow reader, a restart) it is resumed from the
        last version received, with no duplicate and no gap; a revoked credential (UNAUTHENTICATED)
        raises. `on_resume(version, why)` is told of each resume."""
        return Subscription(self, match_id, token, from_version, attempts=10 if resume else 0, on_resume=on_resume)

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


class Subscription:
    """A match's updates as an iterator that resumes by itself. cancel() ends it: the next read raises
    CANCELLED like a plain gRPC stream (or the iteration stops, if it was between two streams)."""

    def __init__(
        self,
        client: MatchClient,
        match_id: str,
        token: str | None,
        from_version: int,
        attempts: int = 10,
        wait: float = 60.0,
        on_resume: Callable[[int, str], None] | None = None,
    ) -> None:
        self.client = client
        self.match_id = match_id
        self.token = token
        self.from_version = from_version
        self.attempts = attempts  # resumes in a row without an update in between
        self.wait = wait  # how long to wait for the server to come back, per stream end
        self.on_resume = on_resume
        self.last_seen: int | None = None
        self.resumes = 0
        self._cancelled = False
        self._call: Any = self._open()  # the stream starts now, as a plain gRPC stream would

    def __iter__(self) -> Subscription:
        return self

    def __next__(self) -> pb.SubscribeResponse:
        failures = 0
        while True:
            if self._call is None:
                if self._cancelled:  # cancelled while it was resuming: the iteration ends
                    raise StopIteration
                self._call = self._open()
                if self._cancelled:  # cancel() ran while the call was being opened
                    self._call.cancel()
            try:
                update: pb.SubscribeResponse = next(self._call)
            except grpc.RpcError as exc:
                if self._cancelled or exc.code() != grpc.StatusCode.UNAVAILABLE or failures >= self.attempts:
                    raise
                # An end with the trailer came from a live server (shutdown, age, slow reader): not a failure.
                failures = 0 if _resume_trailer(exc) is not None else failures + 1
                self._call = None
                self._resume(exc, failures)
                continue
            if self.last_seen is not None and update.event.version <= self.last_seen:
                continue  # the server resent what it could not confirm was taken before the stream ended
            self.last_seen = update.event.version
            return update

    def cancel(self) -> None:
        self._cancelled = True
        if self._call is not None:
            self._call.cancel()

    def resume_version(self, ended: grpc.RpcError | None = None) -> int:
        """Where to subscribe again: the last version received, else the server's trailer, else the start."""
        if self.last_seen is not None:
            return self.last_seen
        trailer = _resume_trailer(ended) if ended is not None else None
        return self.from_version if trailer is None else trailer

    def _open(self) -> Any:
        request = pb.SubscribeRequest(match_id=self.match_id, from_version=self.resume_version())
        return self.client.stub.Subscribe(request, metadata=MatchClient._auth(self.token))

    def _resume(self, ended: grpc.RpcError, failures: int) -> None:
        self.from_version = self.resume_version(ended)
        time.sleep(min(2.0, 0.05 * 2**failures))  # back off: the server may be restarting
        try:
            grpc.channel_ready_future(self.client.channel).result(timeout=self.wait)
        except grpc.FutureTimeoutError:
            raise ended from None
        self.resumes += 1
        if self.on_resume is not None:
            self.on_resume(self.from_version, ended.details() or ended.code().name)


def _resume_trailer(ended: grpc.RpcError) -> int | None:
    for key, value in ended.trailing_metadata() or ():
        if key == RESUME_FROM:
            return int(value)
    return None
