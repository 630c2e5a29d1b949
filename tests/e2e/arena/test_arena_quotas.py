"""Every way of creating a match counts against its creator's quota: challenges, tournaments and forks as
well as CreateMatch; a bot key has quotas of its own; one challenger cannot lock a bot out of everyone
else's challenges; bots per host key are limited and ListBots is paged (issue 23, items 4, 7, 9, 11).
The adversary is a flood from one key (a host key or a bot key)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from engine.registry import available, get_game
from matchserver.v1 import arena_pb2 as apb
from matchserver.v1 import matchserver_pb2 as pb
from server.access import HostQuotas
from server.app import Settings
from server.arena.service import ArenaSettings
from server.clock import ManualClock
from tests.e2e.arena.support import Arena, auth, secret_terms_challenge
from tests.support.server import ServerThread
from tests.support.waiting import wait_until


@pytest.fixture
def arena_with(tmp_path: Path) -> Iterator[Callable[..., Arena]]:
    made: list[tuple[ServerThread, Arena]] = []

    def start(**settings: Any) -> Arena:
        base = Settings(
            address="127.0.0.1:0", var_dir=str(tmp_path / "var"), clock=ManualClock(), tick_interval=0.05, **settings
        )
        server = ServerThread(base).start()
        made.append((server, Arena(server)))
        return made[-1][1]

    yield start
    for server, arena in made:
        arena.close()
        server.stop()


def _host_key(arena: Arena) -> str:
    return arena.matches.CreateHostKey(pb.CreateHostKeyRequest(name="flood"), metadata=auth(arena.admin)).host_key


def _challenge(arena: Arena, token: str, bots: list[str], config: dict[str, Any] | None = None) -> apb.Challenge:
    request = apb.CreateChallengeRequest(game="duel", bots=bots, config_json=json.dumps(config or {}))
    return arena.stub.CreateChallenge(request, metadata=auth(token)).challenge


def _refused(call: Callable[[], object]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as refused:
        call()
    return refused.value


def test_challenges_by_a_host_key_count_against_its_live_match_quota(arena_with: Callable[..., Arena]) -> None:
    arena = arena_with(quotas=HostQuotas(max_live_matches_per_host_key=2))
    key = _host_key(arena)
    arena.bot("ann")
    arena.bot("bob")
    started = [_challenge(arena, key, ["ann", "bob"]) for _ in range(2)]
    assert [c.state for c in started] == ["started", "started"]
    refused = _refused(lambda: _challenge(arena, key, ["ann", "bob"]))
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "max_live_matches_per_host_key" in (refused.details() or "")
    create = pb.CreateMatchRequest(game="duel", players=["x", "y"])  # the same quota as CreateMatch's
    assert _refused(lambda: arena.matches.CreateMatch(create, metadata=auth(key))).code() == (
        grpc.StatusCode.RESOURCE_EXHAUSTED
    )
    arena.finish_by_defaults(started[0].match_id, key)
    wait_until(lambda: _accepts(lambda: _challenge(arena, key, ["ann", "bob"])), "a place is free once one ends")


def _accepts(call: Callable[[], object]) -> bool:
    try:
        call()
    except grpc.RpcError as exc:
        if exc.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
            raise
        return False
    return True


def test_challenges_count_as_creations_per_minute(arena_with: Callable[..., Arena]) -> None:
    arena = arena_with(quotas=HostQuotas(max_creations_per_minute_per_host_key=2))
    key = _host_key(arena)
    arena.bot("ann", auto_accept=False)
    arena.bot("bob", auto_accept=False)
    _challenge(arena, key, ["ann", "bob"])
    _challenge(arena, key, ["ann", "bob"])
    refused = _refused(lambda: _challenge(arena, key, ["ann", "bob"]))
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "max_creations_per_minute_per_host_key" in (refused.details() or "")


def test_a_bot_key_has_a_live_match_quota_of_its_own(arena_with: Callable[..., Arena]) -> None:
    arena = arena_with(arena=ArenaSettings(max_live_matches_per_bot=2))
    ann = arena.bot("ann")
    arena.bot("bob")
    started = [_challenge(arena, ann, ["ann", "bob"]) for _ in range(2)]
    assert [c.state for c in started] == ["started", "started"]
    refused = _refused(lambda: _challenge(arena, ann, ["ann", "bob"]))
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "max_live_matches_per_bot" in (refused.details() or "")
    arena.finish_by_defaults(started[0].match_id)
    wait_until(lambda: _accepts(lambda: _challenge(arena, ann, ["ann", "bob"])), "a place is free once one ends")


def test_a_bot_cannot_challenge_on_terms_its_rivals_cannot_see(arena_with: Callable[..., Arena]) -> None:
    arena = arena_with()
    ann = arena.bot("ann")
    arena.bot("bob")
    request = secret_terms_challenge()
    refused = _refused(lambda: arena.stub.CreateChallenge(request, metadata=auth(ann)))
    assert refused.code() == grpc.StatusCode.PERMISSION_DENIED and "judges" in (refused.details() or "")
    plain = apb.CreateChallengeRequest(game="cookoff", bots=["ann", "bob"])
    assert arena.stub.CreateChallenge(plain, metadata=auth(ann)).challenge.state == "started"


def test_one_challenger_cannot_lock_a_bot_out_of_everyone_elses_challenges(arena_with: Callable[..., Arena]) -> None:
    arena = arena_with(arena=ArenaSettings(max_open_challenges_per_bot=2))
    key = _host_key(arena)
    arena.bot("ann", auto_accept=False)
    arena.bot("bob", auto_accept=False)
    for _ in range(2):
        _challenge(arena, arena.admin, ["ann", "bob"])
    refused = _refused(lambda: _challenge(arena, arena.admin, ["ann", "bob"]))
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert _challenge(arena, key, ["ann", "bob"]).state == "open"  # another challenger still reaches them


def test_tournaments_start_their_matches_within_the_host_keys_quota_and_are_limited_per_key(
    arena_with: Callable[..., Arena],
) -> None:
    arena = arena_with(
        quotas=HostQuotas(max_live_matches_per_host_key=2), arena=ArenaSettings(max_live_tournaments_per_host_key=1)
    )
    key = _host_key(arena)
    bots = [f"b{n}" for n in range(6)]  # a round-robin round of three matches
    for bot in bots:
        arena.bot(bot)
    tournament = arena.tournament("duel", bots, token=key, format="round-robin")
    playing = [m for m in arena.get(tournament.tournament_id).matches if m.state == "playing"]
    assert len(playing) == 2  # the third waits for a place
    again = _refused(lambda: arena.tournament("duel", bots, token=key, format="round-robin"))
    assert again.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "max_live_tournaments_per_host_key" in (again.details() or "")
    arena.finish_by_defaults(playing[0].match_id, key)
    wait_until(
        lambda: len([m for m in arena.get(tournament.tournament_id).matches if m.state == "playing"]) == 2,
        "the waiting match starts once a place is free",
    )


def test_forks_count_against_the_origins_host_key_and_one_match_has_so_many(arena_with: Callable[..., Arena]) -> None:
    arena = arena_with(quotas=HostQuotas(max_forks_per_match=2, max_live_matches_per_host_key=10))
    key = _host_key(arena)
    created = arena.matches.CreateMatch(pb.CreateMatchRequest(game="duel", players=["x", "y"]), metadata=auth(key))
    for seat in ("x", "y"):  # the match starts once its seats are claimed
        arena.matches.JoinMatch(pb.JoinMatchRequest(match_id=created.match_id, player=seat), metadata=auth(key))
    started = arena.state(created.match_id, created.host_token).version
    fork = pb.ForkRequest(match_id=created.match_id, at_version=started)
    for _ in range(2):
        arena.matches.Fork(fork, metadata=auth(created.host_token))
    refused = _refused(lambda: arena.matches.Fork(fork, metadata=auth(created.host_token)))
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "max_forks_per_match" in (refused.details() or "")
    listed = arena.matches.ListMatches(pb.ListMatchesRequest(), metadata=auth(key)).matches
    assert len(listed) == 3  # the forks are the host key's matches, in its quota


def test_bots_per_host_key_are_limited_and_list_bots_is_paged(arena_with: Callable[..., Arena]) -> None:
    arena = arena_with(arena=ArenaSettings(max_bots_per_host_key=3))
    key = _host_key(arena)
    for n in range(3):
        arena.stub.CreateBot(apb.CreateBotRequest(name=f"k{n}"), metadata=auth(key))
    refused = _refused(lambda: arena.stub.CreateBot(apb.CreateBotRequest(name="k3"), metadata=auth(key)))
    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "max_bots_per_host_key" in (refused.details() or "")
    for n in range(4):
        arena.bot(f"a{n}")  # the admin has no quota
    first = arena.stub.ListBots(apb.ListBotsRequest(page_size=3), metadata=auth(arena.admin))
    assert len(first.bots) == 3 and first.next_page_token
    names = [bot.name for bot in first.bots]
    request = apb.ListBotsRequest(page_size=3, page_token=first.next_page_token)
    while request.page_token:
        page = arena.stub.ListBots(request, metadata=auth(arena.admin))
        names += [bot.name for bot in page.bots]
        request.page_token = page.next_page_token
    assert sorted(names) == sorted([f"k{n}" for n in range(3)] + [f"a{n}" for n in range(4)])


@pytest.mark.parametrize("game", [name for name in available() if name != "duel"])
def test_a_tournament_seats_the_games_own_number_at_a_table_by_default(
    arena_with: Callable[..., Arena], game: str
) -> None:
    """Issue 24, defect 7: mining seated 4 a table (a constant), not the five its rule text plays."""
    arena = arena_with()
    bots = [f"b{n}" for n in range(10)]
    for bot in bots:
        arena.bot(bot)
    tournament = arena.tournament(game, bots, rounds=1)
    sizes = {len(match.seats) for match in tournament.matches}
    assert sizes == {get_game(game).default_seats}  # type: ignore[attr-defined]
