"""The arena over a real gRPC server: bot keys and seats, BotEvents, challenges, tournaments, corrections,
verification and the leaderboard (issue 16). Matches are driven to their end by the organiser's
ForcePhaseEnd (the game's defaults), so these tests need no bot processes; the tournament with real bot
processes is tests/e2e/arena/test_tournament_of_bot_processes.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from openskill.models import PlackettLuce

from matchserver.v1 import arena_pb2 as apb
from matchserver.v1 import matchserver_pb2 as pb
from server.app import Settings
from server.arena.settings import ArenaSettings
from server.bus import Appended
from server.clock import ManualClock
from tests.e2e.arena.support import Arena, auth, ranks_of, secret_terms_challenge
from tests.support import storefile
from tests.support.server import ServerThread
from tests.support.streams import read_to_end
from tests.support.waiting import wait_until


@pytest.fixture
def arena(server: ServerThread) -> Iterator[Arena]:
    arena = Arena(server)
    yield arena
    arena.close()


def _challenge(arena: Arena, bots: list[str], token: str | None = None, game: str = "duel") -> apb.Challenge:
    request = apb.CreateChallengeRequest(game=game, bots=bots)
    return arena.stub.CreateChallenge(request, metadata=auth(token or arena.admin)).challenge


def _events(arena: Arena, key: str, after: int, count: int) -> list[apb.BotEventsResponse]:
    stream = arena.stub.BotEvents(apb.BotEventsRequest(after=after), metadata=auth(key), timeout=30)
    got = []
    for event in stream:
        got.append(event)
        if len(got) == count:
            stream.cancel()
            break
    return got


def test_a_bot_key_plays_only_its_own_seat(arena: Arena) -> None:
    ann, bob, cid = arena.bot("ann"), arena.bot("bob"), arena.bot("cid")
    challenge = _challenge(arena, ["ann", "bob"])
    assert challenge.state == "started" and challenge.match_id
    match = challenge.match_id
    assert arena.state(match, ann).viewer == "player:ann"
    reply = arena.matches.Submit(pb.SubmitRequest(match_id=match, text="pick 3"), metadata=auth(ann))
    assert reply.version > 0
    with pytest.raises(grpc.RpcError) as other_seat:
        arena.matches.Submit(pb.SubmitRequest(match_id=match, player="bob", text="pick 1"), metadata=auth(ann))
    assert other_seat.value.code() == grpc.StatusCode.PERMISSION_DENIED and "themself" in other_seat.value.details()
    for call in (
        lambda: arena.matches.Submit(pb.SubmitRequest(match_id=match, player="bob", text="pick 1"), metadata=auth(cid)),
        lambda: arena.state(match, cid),
    ):
        with pytest.raises(grpc.RpcError) as no_seat:
            call()
        assert no_seat.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "bot cid holds no seat" in no_seat.value.details()
    with pytest.raises(grpc.RpcError) as join:  # nobody can take a bot's seat with a seat token
        arena.matches.JoinMatch(pb.JoinMatchRequest(match_id=match, player="bob"), metadata=auth(arena.admin))
    assert join.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert arena.state(match, bob).status.submitted == ["ann"]  # only ann's own submission landed
    # The organiser (here the admin) sees the match as a spectator while it is played: ann's pick is sealed.
    organiser = arena.state(match, arena.admin)
    assert organiser.viewer == "spectator" and json.loads(organiser.view_json)["my_picks"] == {}
    history = arena.matches.History(pb.HistoryRequest(match_id=match), metadata=auth(arena.admin)).events
    assert all('"number"' not in event.json for event in history)


def test_bot_events_say_where_a_bot_sits_resume_by_position_and_hold_no_secrets(arena: Arena) -> None:
    ann = arena.bot("ann")
    arena.bot("bob")
    match = _challenge(arena, ["ann", "bob"]).match_id
    first = _events(arena, ann, 0, 2)
    assert [e.kind for e in first] == ["challenged", "seated"]
    assert first[1].match_id == match and first[1].seat == "ann" and first[1].game == "duel"
    assert first[0].position < first[1].position
    arena.finish_by_defaults(match)
    later = _events(arena, ann, first[1].position, 1)  # resumed: nothing before the position again
    assert later[0].kind == "finished" and later[0].match_id == match
    assert json.loads(later[0].result_json)["ranks"] == ranks_of(arena, match)
    seed = str(
        json.loads(arena.matches.History(pb.HistoryRequest(match_id=match), metadata=auth(arena.admin)).events[0].json)[
            "seed"
        ]
    )
    for event in [*first, *later]:
        assert seed not in str(event) and "msbk_" not in str(event)


def test_rotating_a_bot_key_ends_its_streams_with_the_resume_trailer_and_the_old_key_stops(arena: Arena) -> None:
    old = arena.bot("ann")
    arena.bot("bob")
    match = _challenge(arena, ["ann", "bob"]).match_id
    stream = arena.stub.BotEvents(apb.BotEventsRequest(after=0), metadata=auth(old), timeout=60)
    first = next(stream)
    second = next(stream)
    updates = arena.matches.Subscribe(pb.SubscribeRequest(match_id=match), metadata=auth(old), timeout=60)
    last = next(updates).event.version
    rotated = arena.stub.RotateBotKey(apb.RotateBotKeyRequest(name="ann", reason="leaked"), metadata=auth(arena.admin))
    for call, resume in ((stream, second.position), (updates, None)):
        received, error = read_to_end(call)
        last = received[-1].event.version if received else last
        assert error.code() == grpc.StatusCode.UNAUTHENTICATED
        trailer = dict(error.trailing_metadata())["matchserver-resume-from"]
        assert trailer == str(resume if resume is not None else last)
    assert first.position < second.position
    with pytest.raises(grpc.RpcError) as refused:
        _events(arena, old, 0, 1)
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert rotated.bot.key_generation == 2
    assert [e.kind for e in _events(arena, rotated.bot_key, 0, 2)] == ["challenged", "seated"]
    arena.stub.RevokeBot(apb.RevokeBotRequest(name="ann", reason="retired"), metadata=auth(arena.admin))
    with pytest.raises(grpc.RpcError) as revoked:
        _events(arena, rotated.bot_key, 0, 1)
    assert revoked.value.code() == grpc.StatusCode.UNAUTHENTICATED and "revoked" in revoked.value.details()


def test_a_challenge_notice_never_shows_a_bot_what_the_game_keeps_secret(arena: Arena) -> None:
    ann = arena.bot("ann", auto_accept=False)
    arena.bot("bob", auto_accept=False)
    request = secret_terms_challenge()
    arena.stub.CreateChallenge(request, metadata=auth(arena.admin))
    notice = _events(arena, ann, 0, 1)[0]
    terms = json.loads(notice.result_json)
    assert notice.kind == "challenged" and terms["bots"] == ["ann", "bob"]
    assert "judges" not in terms["config"] and "bitter" not in str(notice)


def test_a_challenge_starts_when_every_bot_accepts_and_a_decline_ends_it(arena: Arena) -> None:
    ann, bob = arena.bot("ann", auto_accept=False), arena.bot("bob", auto_accept=False)
    open_ = _challenge(arena, ["ann", "bob"], token=ann)  # a bot challenges: it accepts its own
    assert open_.state == "open" and list(open_.accepted) == ["ann"]
    seen = _events(arena, bob, 0, 1)[0]
    assert seen.kind == "challenged" and seen.challenge_id == open_.challenge_id
    answer = apb.AnswerChallengeRequest(challenge_id=open_.challenge_id, accept=True)
    started = arena.stub.AnswerChallenge(answer, metadata=auth(bob)).challenge
    assert started.state == "started" and arena.state(started.match_id, bob).viewer == "player:bob"
    declined = _challenge(arena, ["ann", "bob"])
    answer = apb.AnswerChallengeRequest(challenge_id=declined.challenge_id, accept=False)
    assert arena.stub.AnswerChallenge(answer, metadata=auth(ann)).challenge.state == "declined"
    with pytest.raises(grpc.RpcError) as late:
        arena.stub.AnswerChallenge(
            apb.AnswerChallengeRequest(challenge_id=declined.challenge_id, accept=True), metadata=auth(bob)
        )
    assert late.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "declined" in late.value.details()


def test_unanswered_challenges_expire_and_open_ones_are_limited_per_bot(tmp_path: Path) -> None:
    clock = ManualClock()
    settings = Settings(
        address="127.0.0.1:0",
        var_dir=str(tmp_path / "var"),
        clock=clock,
        tick_interval=0.05,
        arena=ArenaSettings(challenge_ttl=600, max_open_challenges_per_bot=2),
    )
    server = ServerThread(settings).start()
    arena = Arena(server)
    try:
        arena.bot("ann", auto_accept=False)
        bob = arena.bot("bob", auto_accept=False)
        first, _ = _challenge(arena, ["ann", "bob"]), _challenge(arena, ["ann", "bob"])
        with pytest.raises(grpc.RpcError) as limited:
            _challenge(arena, ["ann", "bob"])
        assert limited.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "max_open_challenges_per_bot" in limited.value.details()
        clock.advance(601)
        wait_until(lambda: [e.kind for e in _events(arena, bob, 0, 4)][2:] == ["challenge_expired"] * 2, "both expire")
        answer = apb.AnswerChallengeRequest(challenge_id=first.challenge_id, accept=True)
        with pytest.raises(grpc.RpcError) as expired:
            arena.stub.AnswerChallenge(answer, metadata=auth(bob))
        assert "expired" in expired.value.details()
        assert _challenge(arena, ["ann", "bob"]).state == "open"  # the limit counts open challenges only
    finally:
        arena.close()
        server.stop()


def _standings(tournament: apb.Tournament) -> dict[str, float]:
    return {row.bot: row.points for row in tournament.standings}


def _points_from_matches(arena: Arena, tournament: apb.Tournament) -> dict[str, float]:
    points = dict.fromkeys(tournament.bots, 0.0)
    for match in tournament.matches:
        if match.state != "finished":
            continue
        ranks = ranks_of(arena, match.match_id)
        for bot, rank in ranks.items():
            points[bot] += sum(
                1.0 if rank < other else 0.5 if rank == other else 0.0 for b, other in ranks.items() if b != bot
            )
    return points


def test_a_round_robin_runs_to_the_end_with_standings_from_the_matches_and_ratings_from_openskill(arena: Arena) -> None:
    for name in ("ann", "bob", "cid"):
        arena.bot(name)
    made = arena.tournament("duel", ["ann", "bob", "cid"], format="round-robin", games_per_pair=2, seed=7)
    assert made.matches_total == 6 and made.state == "running"
    playing = [m for m in made.matches if m.state == "playing"]
    assert len(playing) == 1  # three bots: one match a round, the third has a bye
    watch = arena.state(playing[0].match_id, arena.admin)
    assert watch.viewer == "spectator"  # the organiser never sees a sealed submission while it is played
    done = arena.play_out(made.tournament_id)
    assert done.matches_finished == 6
    assert _standings(done) == _points_from_matches(arena, done)
    pairs = {}
    for match in done.matches:
        pairs.setdefault(frozenset(match.seats), []).append(match.seats[0])
    assert all(len(firsts) == 2 and firsts[0] != firsts[1] for firsts in pairs.values())  # seats alternate
    model = PlackettLuce()
    rated = {}
    for match in sorted(done.matches, key=lambda m: m.finished_version):  # the order results were recorded
        ranks = ranks_of(arena, match.match_id)
        bots = sorted(ranks)
        teams = model.rate([[rated.get(b) or model.rating(name=b)] for b in bots], ranks=[ranks[b] for b in bots])
        rated.update({b: team[0] for b, team in zip(bots, teams, strict=True)})
    board = arena.stub.Leaderboard(apb.LeaderboardRequest(game="duel"), metadata=auth(None)).ratings
    assert {r.bot: (r.mu, r.sigma) for r in board} == {b: pytest.approx((r.mu, r.sigma)) for b, r in rated.items()}
    assert [r.rank for r in board] == [1, 2, 3] and board[0].ordinal >= board[-1].ordinal
    verified = arena.stub.VerifyTournament(
        apb.VerifyTournamentRequest(tournament_id=made.tournament_id), metadata=auth(None)
    )
    assert verified.ok and verified.checked_matches == 6, verified.problem


def test_a_void_and_a_rollback_change_the_standings_and_the_audit_names_them(arena: Arena) -> None:
    keys = {name: arena.bot(name) for name in ("ann", "bob")}
    made = arena.tournament("duel", ["ann", "bob"], format="round-robin", games_per_pair=2, seed=3)
    first = next(m for m in made.matches if m.state == "playing").match_id

    def pick(bot: str, number: int) -> int:
        request = pb.SubmitRequest(match_id=first, text=f"pick {number}")
        return arena.matches.Submit(request, metadata=auth(keys[bot])).version

    start = arena.state(first, None).version
    pick("ann", 3)
    pick("bob", 1)  # round 1 to ann: she leads the unfinished match
    assert json.loads(arena.state(first, keys["ann"]).view_json)["scores"]["ann"] == 1
    # The organiser rolls the unfinished match back (bob's pick was entered wrongly) and resumes it.
    rollback = pb.RollbackRequest(match_id=first, to_version=start, reason="bob's pick was misread")
    arena.matches.Rollback(rollback, metadata=auth(arena.admin))
    arena.matches.HostAction(pb.HostActionRequest(match_id=first, action="resume"), metadata=auth(arena.admin))
    for _ in range(3):  # played again: bob wins every round
        pick("ann", 1)
        pick("bob", 3)
    wait_until(lambda: arena.get(made.tournament_id).matches_finished == 1, "the tournament records the end")
    after_first = arena.get(made.tournament_id)
    assert _standings(after_first) == {"bob": 1.0, "ann": 0.0}  # the rollback's outcome, not the retracted lead
    assert any("rolled back to version" in line and "bob's pick was misread" in line for line in after_first.audit)
    assert "bob's pick was misread" in next(m for m in after_first.matches if m.match_id == first).note
    done = arena.play_out(made.tournament_id)
    before = _standings(done)
    winner_match = next(m for m in done.matches if m.state == "finished")
    void = apb.VoidTournamentMatchRequest(
        tournament_id=made.tournament_id, match_id=winner_match.match_id, reason="a bot was misconfigured", rematch=True
    )
    voided = arena.stub.VoidTournamentMatch(void, metadata=auth(arena.admin)).tournament
    struck = ranks_of(arena, winner_match.match_id)
    assert _standings(voided) != before and _standings(voided) == _points_from_matches(arena, voided)
    assert sum(_standings(voided).values()) == sum(before.values()) - (len(struck) - 1) * len(struck) / 2
    assert any("voided by admin: a bot was misconfigured" in line and "rematch" in line for line in voided.audit)
    again = arena.play_out(made.tournament_id)
    assert again.matches_finished == 2 and len(again.matches) == 3
    assert [m.state for m in again.matches].count("voided") == 1
    with pytest.raises(grpc.RpcError) as finished_rollback:  # a finished match is voided, not rolled back
        arena.matches.Rollback(
            pb.RollbackRequest(match_id=winner_match.match_id, to_version=2, reason="x", reopen=True),
            metadata=auth(arena.admin),
        )
    assert finished_rollback.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    verified = arena.stub.VerifyTournament(
        apb.VerifyTournamentRequest(tournament_id=made.tournament_id), metadata=auth(None)
    )
    assert verified.ok, verified.problem


def test_verify_tournament_fails_on_an_edited_tournament_record(tmp_path: Path, clock: ManualClock) -> None:
    settings = Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"), clock=clock, tick_interval=0.05)
    server = ServerThread(settings).start()
    arena = Arena(server)
    try:
        arena.bot("ann")
        arena.bot("bob")
        made = arena.tournament("duel", ["ann", "bob"], format="round-robin", games_per_pair=1, seed=5)
        arena.play_out(made.tournament_id)
        verify = apb.VerifyTournamentRequest(tournament_id=made.tournament_id)
        assert arena.stub.VerifyTournament(verify, metadata=auth(None)).ok
    finally:
        arena.close()
        server.stop()
    store = tmp_path / "var" / "matches.db"
    finished = next(v for v, r in enumerate(storefile.records(store, made.tournament_id), 1) if r["kind"] == "finished")

    def swap_ranks(record: dict[str, object]) -> dict[str, object]:
        ranks = dict(record["ranks"])  # type: ignore[call-overload]
        first, second = sorted(ranks)
        ranks[first], ranks[second] = ranks[second], ranks[first]
        return {**record, "ranks": ranks}

    storefile.rewrite(store, made.tournament_id, finished, swap_ranks)
    server = ServerThread(settings).start()
    arena = Arena(server)
    try:
        verified = arena.stub.VerifyTournament(
            apb.VerifyTournamentRequest(tournament_id=made.tournament_id), metadata=auth(None)
        )
        assert not verified.ok and f"record {finished}" in verified.problem
    finally:
        arena.close()
        server.stop()


def test_an_end_the_write_did_not_record_is_recorded_by_the_ticker(tmp_path: Path) -> None:
    """As after a crash between a match's last write and its arena record: the ticker's sweep finds the
    finished match in the catalog and records it, and the tournament goes on."""
    # The sweep is a setting (ArenaSettings.sweep_every, 2 s): a tenth of a second here.
    settings = Settings(
        address="127.0.0.1:0",
        var_dir=str(tmp_path / "var"),
        clock=ManualClock(),
        tick_interval=0.05,
        arena=ArenaSettings(sweep_every=0.1),
    )
    server = ServerThread(settings).start()
    arena = Arena(server)
    try:
        _end_recorded_by_the_sweep(arena, server)
    finally:
        arena.close()
        server.stop()


def _end_recorded_by_the_sweep(arena: Arena, server: ServerThread) -> None:
    for name in ("ann", "bob"):
        arena.bot(name)
    made = arena.tournament("duel", ["ann", "bob"], format="round-robin", games_per_pair=2, seed=8)
    first = next(m for m in made.matches if m.state == "playing").match_id
    assert server.running is not None
    matches = server.running.matches
    assert server.running.arena is not None
    hook = server.running.arena._on_appended
    matches.bus.unsubscribe(Appended, hook)  # the write's own recording is lost
    try:
        arena.finish_by_defaults(first)
    finally:
        matches.bus.subscribe(Appended, hook)

    def recorded_and_next_started() -> bool:  # two steps: the end is recorded, then the next round starts
        tournament = arena.get(made.tournament_id)
        return tournament.matches_finished == 1 and any(m.state == "playing" for m in tournament.matches)

    wait_until(recorded_and_next_started, "the ticker records the end and the tournament goes on")
