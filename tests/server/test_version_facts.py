"""A live match keeps the statuses of its latest versions (server/version_facts.py): each equal to what the
game says at that version, their phase texts and seat sets shared (a frozenset costs 216 bytes however few
seats it holds), and the parts kept for sharing bounded."""

from __future__ import annotations

import uuid

import pytest

from bench.bot_records import bot_match_records
from engine.contract import Status
from engine.registry import shipped
from server.live import LiveMatch
from server.version_facts import KEPT, MAX_KEPT_PARTS


@pytest.mark.parametrize("game", shipped())
def test_the_statuses_kept_are_the_games_and_share_their_parts(game: str) -> None:
    records = bot_match_records(game, seed=4)
    live = LiveMatch.from_records(uuid.uuid4(), records)
    kept = live.facts.statuses
    assert 0 < len(kept) <= KEPT
    for version, status in kept.items():
        assert status == live.game.status(live.state_at(version)), version
    sets = [s.awaiting for s in kept.values()] + [s.submitted for s in kept.values()]
    assert len({id(seats) for seats in sets}) == len(set(sets))  # one object for each distinct set
    phases = [s.phase for s in kept.values()]
    assert len({id(phase) for phase in phases}) == len(set(phases))


def test_the_parts_kept_for_sharing_stay_bounded_when_every_status_names_new_seats() -> None:
    live = LiveMatch.from_records(uuid.uuid4(), bot_match_records("mining", seed=4))
    facts = live.facts
    for n in range(5 * MAX_KEPT_PARTS):
        status = Status(phase=f"phase {n}", awaiting=frozenset({f"seat {n}"}), submitted=frozenset({f"x {n}"}))
        shared = facts._sharing(status)
        assert shared == status
    assert len(facts._kept_parts) <= MAX_KEPT_PARTS + 3
