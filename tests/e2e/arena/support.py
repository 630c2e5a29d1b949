"""Arena calls over a real server's gRPC port, with raw stubs (what a bot author's program sends)."""

from __future__ import annotations

import json
from typing import Any

import grpc

from matchserver.v1 import arena_pb2 as apb
from matchserver.v1 import arena_pb2_grpc as apb_grpc
from matchserver.v1 import matchserver_pb2 as pb
from matchserver.v1 import matchserver_pb2_grpc as pb_grpc
from tests.support.server import ServerThread


def auth(token: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}" if token else "Spectator"),)


def secret_terms_challenge() -> apb.CreateChallengeRequest:
    """A Cookoff challenge of ann and bob that sets the judges, which the game keeps from its players."""
    judges = [
        {"family": "flavour", "want": "bitter"},
        {"family": "size", "want": "large"},
        {"family": "cook", "want": "raw"},
    ]
    return apb.CreateChallengeRequest(game="cookoff", bots=["ann", "bob"], config_json=json.dumps({"judges": judges}))


class Arena:
    """The admin's and the bots' side of the arena on one server."""

    def __init__(self, server: ServerThread) -> None:
        self.server = server
        self.channel = grpc.insecure_channel(server.address)
        self.stub = apb_grpc.ArenaServiceStub(self.channel)
        self.matches = pb_grpc.MatchServiceStub(self.channel)
        self.admin = server.admin_token
        self.keys: dict[str, str] = {}

    def close(self) -> None:
        self.channel.close()

    def bot(self, name: str, auto_accept: bool = True) -> str:
        reply = self.stub.CreateBot(apb.CreateBotRequest(name=name, auto_accept=auto_accept), metadata=auth(self.admin))
        self.keys[name] = reply.bot_key
        return reply.bot_key

    def tournament(self, game: str, bots: list[str], token: str | None = None, **options: Any) -> apb.Tournament:
        request = apb.CreateTournamentRequest(game=game, bots=bots, **options)
        return self.stub.CreateTournament(request, metadata=auth(token or self.admin)).tournament

    def get(self, tournament_id: str) -> apb.Tournament:
        return self.stub.GetTournament(
            apb.GetTournamentRequest(tournament_id=tournament_id), metadata=auth(None)
        ).tournament

    def state(self, match_id: str, token: str | None) -> pb.GetStateResponse:
        return self.matches.GetState(pb.GetStateRequest(match_id=match_id), metadata=auth(token))

    def finish_by_defaults(self, match_id: str, token: str | None = None) -> None:
        """End every phase of a match as its organiser would (the game's defaults apply)."""
        while not self.state(match_id, token or self.admin).status.finished:
            request = pb.ForcePhaseEndRequest(match_id=match_id, reason="test: defaults")
            try:
                self.matches.ForcePhaseEnd(request, metadata=auth(token or self.admin))
            except grpc.RpcError as exc:  # finished meanwhile
                if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise

    def play_out(self, tournament_id: str) -> apb.Tournament:
        """Finish every match the tournament starts, round after round, by defaults."""
        from tests.support.waiting import wait_until

        while True:
            tournament = self.get(tournament_id)
            if tournament.state == "finished":
                return tournament
            playing = [m for m in tournament.matches if m.state == "playing"]
            for match in playing:
                self.finish_by_defaults(match.match_id)
            if not playing:
                wait_until(
                    lambda: (
                        any(m.state == "playing" for m in self.get(tournament_id).matches)
                        or self.get(tournament_id).state == "finished"
                    ),
                    "the tournament starts its next round",
                )
            else:
                ids = {m.match_id for m in playing}
                wait_until(
                    lambda ids=ids: all(
                        m.state != "playing" for m in self.get(tournament_id).matches if m.match_id in ids
                    ),
                    "the tournament records the ends of its matches",
                )


def ranks_of(arena: Arena, match_id: str) -> dict[str, int]:
    """A finished match's ranks by seat, from the match's own results."""
    reply = arena.state(match_id, None)
    return {row["player"]: int(row["rank"]) for row in json.loads(reply.results_json)["results"]}
