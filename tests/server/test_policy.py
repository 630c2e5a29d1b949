"""The rules a room registers for its own matches (server/policy.py), and the arena's (server/arena/policy.py):
given a match's records, how its host credentials see, correct and fork it. No event loop, no store."""

from __future__ import annotations

import uuid

import pytest

from engine import match as rules
from engine.contract import Context, Viewer
from server import decisions
from server.arena.policy import ArenaPolicy
from server.envelope import cause, created_record, game_records
from server.errors import FailedPrecondition, PermissionDenied
from server.identities import MATCH_TERMS, SEAT_HOLDERS
from server.live import LiveMatch
from server.policy import Policies
from server.records import token_hash
from tests.support import duel


def match(held: bool) -> LiveMatch:
    extra = {SEAT_HOLDERS: {"ann": "ann", "bob": "bob"}, MATCH_TERMS: {"challenge": "c1"}} if held else {"waits": True}
    created = created_record(
        duel.GAME,
        ["ann", "bob"],
        duel.GAME.default_config(["ann", "bob"]),
        3,
        host_token=token_hash("h"),
        invitations={},
        host_key="k1",
        private=False,
        at=0.0,
        **extra,  # type: ignore[arg-type]
    )
    live = LiveMatch.from_records(uuid.uuid4(), [created])
    for record in decisions.start_records(live, 0.0):
        live.apply(record)
    return live


def finish(live: LiveMatch) -> None:
    while not live.status().finished:
        for seat in sorted(live.status().awaiting):
            events = duel.GAME.decide(live.state, seat, duel.Pick(1), _ctx(live))
            for record in game_records(events, cause(seat), 0.0):
                live.apply(record)


def _ctx(live: LiveMatch) -> Context:
    return rules.context(live.seed, live.game_version, 0.0)


def test_with_no_policy_a_matchs_host_credentials_see_and_correct_it_as_its_host() -> None:
    policies = Policies()
    live = match(held=True)
    assert policies.watches(live) == Viewer.host()
    assert policies.corrects(live) is None and policies.forks(live) is None


def test_the_arena_organiser_watches_and_corrects_a_running_bot_match_as_a_spectator() -> None:
    policies = Policies([ArenaPolicy()])
    live = match(held=True)
    assert policies.watches(live) == Viewer.spectator()
    assert policies.corrects(live) == Viewer.spectator()
    with pytest.raises(PermissionDenied, match="forked only once it is over"):
        policies.forks(live)


def test_a_finished_bot_match_is_voided_not_rolled_back_and_may_then_be_forked() -> None:
    policies = Policies([ArenaPolicy()])
    live = match(held=True)
    finish(live)
    assert policies.watches(live) == Viewer.host()  # over: what was sealed is public
    with pytest.raises(FailedPrecondition, match="corrected by voiding it"):
        policies.corrects(live)
    assert policies.forks(live) == Viewer.spectator()


def test_the_arena_policy_has_no_say_on_a_hosted_match() -> None:
    policies = Policies([ArenaPolicy()])
    live = match(held=False)
    assert policies.watches(live) == Viewer.host()
    assert policies.corrects(live) is None and policies.forks(live) is None
