"""A thin, synchronous Python client for matchserver over the generated stubs."""

from __future__ import annotations

import ipaddress
import json
import os
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from matchserver.v1 import arena_pb2 as arena_pb
from matchserver.v1 import arena_pb2_grpc as arena_grpc
from matchserver.v1 import matchserver_pb2 as pb
from matchserver.v1 import matchserver_pb2_grpc as pb_grpc

# Pauses before sending a write again while the server is unavailable (about 30 s in all).
WRITE_RETRY_PAUSES = (0.2, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0)
# Trailing metadata on a stream the server ended on purpose: the last version it sent.
RESUME_FROM = "matchserver-resume-from"
# Keepalive pings on an idle connection: the server permits this interval (server.app CLIENT_KEEPALIVE_MS);
# pinging more often than it permits gets the connection closed (too_many_pings).
KEEPALIVE_TIME_MS = 60_000


def channel_options(keepalive_time_ms: int = KEEPALIVE_TIME_MS) -> list[tuple[str, int]]:
    return [
        ("grpc.keepalive_time_ms", keepalive_time_ms),
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
        keepalive_time_ms: int = KEEPALIVE_TIME_MS,
    ) -> None:
        self.address = address
        self.timeout = timeout
        self.host_credential = host_credential
        self.tls = tls or ca is not None
        self.insecure = insecure
        if self.tls:
            roots = ca if isinstance(ca, bytes) or ca is None else Path(ca).read_bytes()
            credentials = grpc.ssl_channel_credentials(root_certificates=roots)
            self.channel = grpc.secure_channel(address, credentials, options=channel_options(keepalive_time_ms))
        else:
            self.channel = grpc.insecure_channel(address, options=channel_options(keepalive_time_ms))
        self.stub = pb_grpc.MatchServiceStub(self.channel)
        self.arena = arena_grpc.ArenaServiceStub(self.channel)  # the bot arena, on the same connection

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
        for pause in WRITE_RETRY_PAUSES:
            try:
                return call(request, **kwargs)
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                time.sleep(pause)
        return call(request, **kwargs)  # the last try: whatever it raises, the caller sees

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
        starts_at: float | None = None,
    ) -> pb.CreateMatchResponse:
        """Create a match with `token` (the admin token or a host key; default: host_credential). It waits for
        its players: its first phase opens when the last seat is claimed, when the host starts it, or at
        `starts_at` (server time, Unix seconds) if given."""
        request = pb.CreateMatchRequest(
            game=game, players=players, config_json=json.dumps(config or {}), private=private
        )
        if seed is not None:
            request.seed = seed
        if starts_at is not None:
            request.starts_at = starts_at
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
        return str(self.invite_seat(match_id, player, token).invitation)

    def invite_seat(self, match_id: str, player: str, token: str | None = None) -> pb.InviteSeatResponse:
        """A new invitation for a seat, with its link to the seat's page when the server serves pages."""
        request = pb.InviteSeatRequest(match_id=match_id, player=player)
        response: pb.InviteSeatResponse = self._write(
            self.stub.InviteSeat, request, metadata=self._host_auth(token), timeout=self.timeout
        )
        return response

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
        reply: pb.RevokeHostKeyResponse = self.stub.RevokeHostKey(
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
        request = pb.HistoryRequest(match_id=match_id, page_size=page_size)
        events: list[pb.Event] = self._every_page(self.stub.History, request, "events", self._auth(token))
        return events

    def first_record(self, match_id: str, token: str | None = None) -> pb.Event | None:
        """The match's first record (its start time, for offsets), in one small call."""
        request = pb.HistoryRequest(match_id=match_id, page_size=1)
        reply = self.stub.History(request, metadata=self._auth(token), timeout=self.timeout)
        return reply.events[0] if reply.events else None

    def subscribe(
        self,
        match_id: str,
        token: str | None = None,
        from_version: int = 0,
        resume: bool = True,
        on_resume: Callable[[int, str], None] | None = None,
        bundle: bool = False,
    ) -> Subscription:
        """Updates after `from_version`. When the server ends the stream in a way that allows it
        (UNAVAILABLE: shutdown, the stream's age, a slow reader, a restart) it is resumed from the
        last version received, with no duplicate and no gap; a stream refused for want of a place
        (RESOURCE_EXHAUSTED) is asked for again, backing off, for up to ten minutes; a revoked credential
        (UNAUTHENTICATED) raises. `on_resume(version, why)` is told of each resume. `bundle`: the server
        sends each pass's updates as one message (less server CPU); they are still yielded one by one."""
        return Subscription(
            self,
            match_id,
            token,
            from_version,
            attempts=10 if resume else 0,
            on_resume=on_resume,
            crowded_patience=600.0 if resume else 0.0,
            bundle=bundle,
        )

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

    # --- disputes (docs/AUDIT.md, "Disputes") ---------------------------------------------------------

    def file_dispute(self, match_id: str, token: str, at_version: int, text: str) -> pb.FileDisputeResponse:
        """A seat's (or the host's) dispute of the resolution at `at_version`; returns its id."""
        request = pb.FileDisputeRequest(match_id=match_id, at_version=at_version, text=text)
        response: pb.FileDisputeResponse = self._write(
            self.stub.FileDispute, request, metadata=self._auth(token), timeout=self.timeout
        )
        return response

    def list_disputes(self, match_id: str, token: str | None = None) -> list[dict[str, Any]]:
        request = pb.ListDisputesRequest(match_id=match_id)
        response = self.stub.ListDisputes(request, metadata=self._auth(token), timeout=self.timeout)
        return [json.loads(text) for text in response.disputes_json]

    def review_dispute(self, dispute_id: str, token: str | None = None) -> dict[str, Any]:
        request = pb.ReviewDisputeRequest(dispute_id=dispute_id)
        response = self.stub.ReviewDispute(request, metadata=self._host_auth(token), timeout=self.timeout)
        review: dict[str, Any] = json.loads(response.review_json)
        return review

    def try_dispute(
        self,
        dispute_id: str,
        replacements: dict[str, str],
        rules_version: str = "",
        forward: bool = False,
        token: str | None = None,
    ) -> dict[str, Any]:
        request = pb.TryDisputeRequest(
            dispute_id=dispute_id,
            replacements=[pb.Replacement(seat=seat, text=text) for seat, text in replacements.items()],
            rules_version=rules_version,
            forward=forward,
        )
        response = self.stub.TryDispute(request, metadata=self._host_auth(token), timeout=self.timeout)
        outcome: dict[str, Any] = json.loads(response.outcome_json)
        return outcome

    def decide_dispute(
        self,
        dispute_id: str,
        decision: str,
        reason: str,
        replacements: dict[str, str] | None = None,
        reapply: bool = False,
        token: str | None = None,
    ) -> pb.DecideDisputeResponse:
        request = pb.DecideDisputeRequest(
            dispute_id=dispute_id,
            decision=decision,
            reason=reason,
            replacements=[pb.Replacement(seat=seat, text=text) for seat, text in (replacements or {}).items()],
            reapply=reapply,
        )
        response: pb.DecideDisputeResponse = self._write(
            self.stub.DecideDispute, request, metadata=self._host_auth(token), timeout=self.timeout
        )
        return response

    def audit(
        self, match_id: str, token: str | None = None, at: int | None = None, page_size: int = 0
    ) -> list[pb.AuditEntry]:
        """Every audit entry, page by page."""
        request = pb.AuditRequest(match_id=match_id, page_size=page_size)
        if at is not None:
            request.at_version = at
        entries: list[pb.AuditEntry] = self._every_page(self.stub.Audit, request, "entries", self._auth(token))
        return entries

    def list_matches(self, token: str | None = None, page_size: int = 0) -> list[pb.MatchSummary]:
        """The matches `token` (default host_credential) hosts or sits in; the admin sees all."""
        request = pb.ListMatchesRequest(page_size=page_size)
        matches: list[pb.MatchSummary] = self._every_page(
            self.stub.ListMatches, request, "matches", self._host_auth(token)
        )
        return matches

    # The arena (protos/matchserver/v1/arena.proto). Bots and tournaments are managed with `token` (the admin
    # token or a host key; default host_credential); a bot acts with its own bot key.

    def create_bot(self, name: str, auto_accept: bool = False, token: str | None = None) -> arena_pb.CreateBotResponse:
        """Register a bot; the response holds its bot key, which the server shows this once."""
        request = arena_pb.CreateBotRequest(name=name, auto_accept=auto_accept)
        response: arena_pb.CreateBotResponse = self._write(
            self.arena.CreateBot, request, metadata=self._host_auth(token), timeout=self.timeout
        )
        return response

    def list_bots(self, token: str | None = None) -> list[arena_pb.Bot]:
        """Every bot the caller registered (the admin: all), page by page."""
        bots: list[arena_pb.Bot] = self._every_page(
            self.arena.ListBots, arena_pb.ListBotsRequest(), "bots", self._host_auth(token)
        )
        return bots

    def rotate_bot_key(self, name: str, reason: str = "", token: str | None = None) -> arena_pb.RotateBotKeyResponse:
        """A new bot key (the old one stops working at once). Not retried: it carries no request id, and
        a second rotation would lose the key of the first."""
        request = arena_pb.RotateBotKeyRequest(name=name, reason=reason)
        response: arena_pb.RotateBotKeyResponse = self.arena.RotateBotKey(
            request, metadata=self._host_auth(token), timeout=self.timeout
        )
        return response

    def revoke_bot(self, name: str, reason: str, token: str | None = None) -> arena_pb.Bot:
        request = arena_pb.RevokeBotRequest(name=name, reason=reason)
        reply: arena_pb.RevokeBotResponse = self.arena.RevokeBot(
            request, metadata=self._host_auth(token), timeout=self.timeout
        )
        return reply.bot

    def create_challenge(
        self, game: str, bots: list[str], config_json: str = "", token: str | None = None
    ) -> arena_pb.Challenge:
        """Invite `bots` (in seat order) to a match; `token` may be the admin's, a host key or a bot key."""
        request = arena_pb.CreateChallengeRequest(game=game, bots=bots, config_json=config_json)
        reply = self._write(self.arena.CreateChallenge, request, metadata=self._host_auth(token), timeout=self.timeout)
        challenge: arena_pb.Challenge = reply.challenge
        return challenge

    def answer_challenge(self, challenge_id: str, accept: bool, token: str) -> arena_pb.Challenge:
        """Accept or decline with the challenged bot's key."""
        request = arena_pb.AnswerChallengeRequest(challenge_id=challenge_id, accept=accept)
        reply = self.arena.AnswerChallenge(request, metadata=self._auth(token), timeout=self.timeout)
        challenge: arena_pb.Challenge = reply.challenge
        return challenge

    def create_tournament(
        self,
        game: str,
        bots: list[str],
        format: str,  # shadows the builtin: the request's own word
        games_per_pair: int = 0,
        rounds: int = 0,
        table_size: int = 0,
        config_json: str = "",
        name: str = "",
        seed: int | None = None,
        token: str | None = None,
    ) -> arena_pb.Tournament:
        """A tournament of registered bots; the caller (`token`, default host_credential) is its organiser."""
        request = arena_pb.CreateTournamentRequest(
            game=game,
            bots=bots,
            format=format,
            games_per_pair=games_per_pair,
            rounds=rounds,
            table_size=table_size,
            config_json=config_json,
            name=name,
        )
        if seed is not None:
            request.seed = seed
        reply = self._write(self.arena.CreateTournament, request, metadata=self._host_auth(token), timeout=self.timeout)
        tournament: arena_pb.Tournament = reply.tournament
        return tournament

    def get_tournament(self, tournament_id: str, token: str | None = None) -> arena_pb.Tournament:
        request = arena_pb.GetTournamentRequest(tournament_id=tournament_id)
        reply = self.arena.GetTournament(request, metadata=self._auth(token), timeout=self.timeout)
        tournament: arena_pb.Tournament = reply.tournament
        return tournament

    def list_tournaments(self, token: str | None = None, page_size: int = 0) -> list[arena_pb.Tournament]:
        """Every tournament (without matches and audit), page by page."""
        request = arena_pb.ListTournamentsRequest(page_size=page_size)
        tournaments: list[arena_pb.Tournament] = self._every_page(
            self.arena.ListTournaments, request, "tournaments", self._auth(token)
        )
        return tournaments

    def void_tournament_match(
        self, tournament_id: str, match_id: str, reason: str, rematch: bool = False, token: str | None = None
    ) -> arena_pb.Tournament:
        """The organiser strikes a match from the standings (optionally scheduling a rematch on a new seed)."""
        request = arena_pb.VoidTournamentMatchRequest(
            tournament_id=tournament_id, match_id=match_id, reason=reason, rematch=rematch
        )
        reply = self._write(
            self.arena.VoidTournamentMatch, request, metadata=self._host_auth(token), timeout=self.timeout
        )
        tournament: arena_pb.Tournament = reply.tournament
        return tournament

    def verify_server_streams(
        self, identities: bool = True, arena: bool = True, token: str | None = None
    ) -> arena_pb.VerifyServerStreamsResponse:
        """The admin's check of the server's own streams' hash chains (the host keys and bots; the arena)."""
        request = arena_pb.VerifyServerStreamsRequest(identities=identities, arena=arena)
        response: arena_pb.VerifyServerStreamsResponse = self.arena.VerifyServerStreams(
            request, metadata=self._host_auth(token), timeout=self.timeout
        )
        return response

    def verify_tournament(self, tournament_id: str, token: str | None = None) -> arena_pb.VerifyTournamentResponse:
        request = arena_pb.VerifyTournamentRequest(tournament_id=tournament_id)
        response: arena_pb.VerifyTournamentResponse = self.arena.VerifyTournament(
            request, metadata=self._auth(token), timeout=self.timeout
        )
        return response

    def leaderboard(self, game: str, token: str | None = None) -> arena_pb.LeaderboardResponse:
        """The game's ratings, best ordinal first."""
        response: arena_pb.LeaderboardResponse = self.arena.Leaderboard(
            arena_pb.LeaderboardRequest(game=game), metadata=self._auth(token), timeout=self.timeout
        )
        return response

    def bot_events(self, bot_key: str, after: int = 0) -> Any:
        """The bot's notices after position `after`, as a plain gRPC stream (clients.botloop resumes it)."""
        return self.arena.BotEvents(arena_pb.BotEventsRequest(after=after), metadata=self._auth(bot_key))

    def _every_page(self, call: Any, request: Any, items: str, metadata: list[tuple[str, str]]) -> list[Any]:
        """A paged listing whole: `request` is sent again with each next_page_token until there is none."""
        out: list[Any] = []
        while True:
            reply = call(request, metadata=metadata, timeout=self.timeout)
            out.extend(getattr(reply, items))
            if not reply.next_page_token:
                return out
            request.page_token = reply.next_page_token


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
        crowded_patience: float = 600.0,
        bundle: bool = False,
    ) -> None:
        self.client = client
        self.bundle = bundle
        self._bundled: deque[pb.SubscribeResponse] = deque()  # a bundle's updates not yielded yet
        self.match_id = match_id
        self.token = token
        self.from_version = from_version
        self.attempts = attempts  # resumes in a row without an update in between
        self.wait = wait  # how long to wait for the server to come back, per stream end
        self.on_resume = on_resume
        # How long to keep asking, backing off, while the server has no stream to spare (RESOURCE_EXHAUSTED:
        # a cap of streams is full); 0 raises at once. A bot that gave up here would lose its match on time.
        self.crowded_patience = crowded_patience
        self.last_seen: int | None = None
        self.resumes = 0
        self._cancelled = False
        self._call: Any = self._open()  # the stream starts now, as a plain gRPC stream would

    def __iter__(self) -> Subscription:
        return self

    def __next__(self) -> pb.SubscribeResponse:
        failures = crowded = 0
        crowded_until = time.monotonic() + self.crowded_patience
        while True:
            if self._call is None:
                if self._cancelled:  # cancelled while it was resuming: the iteration ends
                    raise StopIteration
                self._call = self._open()
                if self._cancelled:  # cancel() ran while the call was being opened
                    self._call.cancel()
            try:
                update: pb.SubscribeResponse = self._bundled.popleft() if self._bundled else next_message(self._call)
                if update.updates:  # a bundle (SubscribeRequest.bundle): its updates, one at a time
                    self._bundled.extend(update.updates)
                    continue
            except grpc.RpcError as exc:
                if self._is_crowded(exc, crowded_until):
                    crowded += 1
                    self._call = None
                    time.sleep(min(5.0, 0.1 * 2**crowded))  # back off: places free as others close
                    continue
                if self._cancelled or exc.code() != grpc.StatusCode.UNAVAILABLE or failures >= self.attempts:
                    raise
                # An end with the trailer came from a live server (shutdown, age, slow reader): not a failure.
                failures = 0 if resume_trailer(exc) is not None else failures + 1
                self._call = None
                self._resume(exc, failures)
                continue
            if self.last_seen is not None and update.event.version <= self.last_seen:
                continue  # the server resent what it could not confirm was taken before the stream ended
            self.last_seen = update.event.version
            return update

    def _is_crowded(self, exc: grpc.RpcError, until: float) -> bool:
        """Whether the server refused the stream for want of a place, and there is patience left."""
        if self._cancelled or exc.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
            return False
        return time.monotonic() < until

    def cancel(self) -> None:
        self._cancelled = True
        if self._call is not None:
            self._call.cancel()

    def resume_version(self, ended: grpc.RpcError | None = None) -> int:
        """Where to subscribe again: the last version received, else the server's trailer, else the start."""
        if self.last_seen is not None:
            return self.last_seen
        trailer = resume_trailer(ended) if ended is not None else None
        return self.from_version if trailer is None else trailer

    def _open(self) -> Any:
        request = pb.SubscribeRequest(match_id=self.match_id, from_version=self.resume_version(), bundle=self.bundle)
        return self.client.stub.Subscribe(request, metadata=self.client._auth(self.token))

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


def next_message(call: Any) -> Any:
    """The next message of a plain gRPC stream read in this thread (StopIteration at its end). A Ctrl-C that
    lands in gRPC's wait for it just as the wait has let go of the call's lock comes out of gRPC's `with` as
    RuntimeError ("cannot release un-acquired lock"); it is raised here as the KeyboardInterrupt it was."""
    try:
        return next(call)
    except RuntimeError as exc:
        if isinstance(exc.__context__, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        raise


def messages(call: Any) -> Iterator[Any]:
    """A plain gRPC stream's messages, each read with next_message."""
    iterator = iter(call)
    while True:
        try:
            message = next_message(iterator)
        except StopIteration:
            return
        yield message


def resume_trailer(ended: Any) -> int | None:
    """The `matchserver-resume-from` trailer of a stream the server ended on purpose (an RpcError, or a
    call that ended cleanly), if it sent one: the last position it sent."""
    for key, value in ended.trailing_metadata() or ():
        if key == RESUME_FROM:
            return int(value)
    return None
