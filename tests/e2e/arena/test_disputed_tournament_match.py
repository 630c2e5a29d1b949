"""A tournament match corrected by a dispute: a bot contests a round, the organiser corrects it while the
match is live, and the standings and VerifyTournament follow the corrected result."""

from __future__ import annotations

import json
from collections.abc import Iterator

import grpc
import pytest

from matchserver.v1 import arena_pb2 as apb
from matchserver.v1 import matchserver_pb2 as pb
from tests.e2e.arena.support import Arena, auth, ranks_of
from tests.support.server import ServerThread
from tests.support.waiting import wait_until


@pytest.fixture
def arena(server: ServerThread) -> Iterator[Arena]:
    arena = Arena(server)
    yield arena
    arena.close()


def test_a_tournament_match_corrected_by_dispute_changes_the_standings_and_verify_agrees(arena: Arena) -> None:
    keys = {name: arena.bot(name) for name in ("ann", "bob")}
    made = arena.tournament("duel", ["ann", "bob"], format="round-robin", games_per_pair=1, seed=3)
    (match,) = [m for m in made.matches if m.state == "playing"]

    def pick(bot: str, number: int) -> int:
        return arena.matches.Submit(
            pb.SubmitRequest(match_id=match.match_id, text=f"pick {number}"), metadata=auth(keys[bot])
        ).version

    pick("ann", 3)
    resolved = pick("bob", 1)  # round 1 to ann
    bob_seat = arena.state(match.match_id, keys["bob"]).viewer.removeprefix("player:")
    filed = arena.matches.FileDispute(
        pb.FileDisputeRequest(match_id=match.match_id, at_version=resolved, text="my pick was 3, the relay lost it"),
        metadata=auth(keys["bob"]),
    )
    # The organiser reviews it as a spectator of the live match: who acted, never what a seat's pick was.
    review = json.loads(
        arena.matches.ReviewDispute(
            pb.ReviewDisputeRequest(dispute_id=filed.dispute_id), metadata=auth(arena.admin)
        ).review_json
    )
    assert set(review["views"]) == {"spectator"}, review["views"].keys()
    assert all("hidden" in i["text"] for i in review["inputs"]), review["inputs"]
    correct = pb.DecideDisputeRequest(
        dispute_id=filed.dispute_id,
        decision="correct",
        reason="the relay's log shows bob sent 3",
        replacements=[pb.Replacement(seat=bob_seat, text="pick 3")],
    )
    arena.matches.DecideDispute(correct, metadata=auth(arena.admin))
    pick("ann", 2)
    round_two = pick("bob", 3)
    pick("ann", 3)
    pick("bob", 2)  # without the correction ann wins 2-1; with it round 1 is shared and the match ends 2-2
    wait_until(lambda: arena.get(made.tournament_id).state == "finished", "the tournament records the end")
    done = arena.get(made.tournament_id)
    ranks = ranks_of(arena, match.match_id)
    scores = json.loads(arena.state(match.match_id, arena.admin).view_json)["scores"]
    assert scores == {"ann": 2, "bob": 2}  # the corrected round counts for both
    points = {
        bot: 1.0 if ranks[bot] < ranks[other] else 0.5 if ranks[bot] == ranks[other] else 0.0
        for bot, other in (("ann", "bob"), ("bob", "ann"))
    }
    assert {row.bot: row.points for row in done.standings} == points != {"ann": 1.0, "bob": 0.0}
    verified = arena.stub.VerifyTournament(
        apb.VerifyTournamentRequest(tournament_id=made.tournament_id), metadata=auth(None)
    )
    assert verified.ok, verified.problem
    again = arena.matches.FileDispute(  # filing is open to its seats still; correcting it is not
        pb.FileDisputeRequest(match_id=match.match_id, at_version=round_two, text="and again"),
        metadata=auth(keys["ann"]),
    )
    late = pb.DecideDisputeRequest(dispute_id=again.dispute_id, decision="correct", reason="x")
    with pytest.raises(grpc.RpcError) as over:  # once it is over, a tournament match is voided, not corrected
        arena.matches.DecideDispute(late, metadata=auth(arena.admin))
    assert over.value.code() == grpc.StatusCode.FAILED_PRECONDITION
