"""Views, redaction and traces: nobody sees what the rules hide from them."""

from __future__ import annotations

import json
import random

from ck_helpers import A, B, both, events_of, match, plain, say

from clients.bots.cookoff import judge_bot, random_bot
from engine.contract import Viewer
from engine.cookoff import GAME
from engine.match import LocalMatch

VIEWERS = (Viewer.of(A), Viewer.of(B), Viewer.spectator())


def bot_match(seed: int) -> LocalMatch:
    m = LocalMatch(GAME, GAME.default_config([A, B]), seed)
    rng = random.Random(seed)
    bots = {A: judge_bot, B: random_bot}
    while not m.finished:
        for player in sorted(GAME.status(m.state).awaiting):
            text = bots[player](GAME.view(m.state, Viewer.of(player)), player, rng)
            assert text is not None
            m.submit_text(player, text)
    return m


def test_every_event_of_a_whole_match_is_json_plain() -> None:
    m = bot_match(3)
    assert all(plain(event) for event in m.events)
    assert all(json.loads(json.dumps(GAME.view(m.state, v))) == GAME.view(m.state, v) for v in VIEWERS)


def test_the_tree_schedule_reaches_only_the_host() -> None:
    """CK-5: the schedule event is redacted whole; views show only the current round's trees."""
    m = match()
    prepared = m.events[0]
    assert prepared["type"] == "match_prepared"
    for viewer in VIEWERS:
        assert GAME.redact(m.state, prepared, viewer) is None
        view = GAME.view(m.state, viewer)
        assert "schedule" not in view and len(view["trees"]) == 6
    assert GAME.redact(m.state, prepared, Viewer.host()) == prepared
    assert len(GAME.view(m.state, Viewer.host())["schedule"]) == 15


def test_ckp6_sealed_submissions_reach_only_their_owner_and_the_host_in_every_phase() -> None:
    """CK-4 / CK-P6: assignments, placements, sabotage, moves, removals and dish choices stay sealed
    until their phase resolves."""
    m = bot_match(5)
    state = GAME.initial_state(GAME.default_config([A, B]), 5)
    for event in m.events:
        if event["type"] == "submission_received":
            owner = event["player"]
            other = B if owner == A else A
            assert GAME.redact(state, event, Viewer.of(owner)) == event
            assert GAME.redact(state, event, Viewer.host()) == event
            for viewer in (Viewer.of(other), Viewer.spectator()):
                shown = GAME.redact(state, event, viewer)
                assert shown is not None and "command" not in shown and shown["sealed"]
                view = GAME.view(GAME.evolve(state, event), viewer)
                assert view["players"][owner]["pending"] is None and view["players"][owner]["submitted"]
        state = GAME.evolve(state, event)


def test_a_pending_placement_is_invisible_in_the_opponents_view_of_the_pot() -> None:
    m = match(first=[("Cheri", 4)])
    both(m, "send 1 worker to Cheri")
    say(m, A, "place Cheri on C3")
    for viewer in (Viewer.of(B), Viewer.spectator()):
        view = GAME.view(m.state, viewer)
        assert view["players"][A]["pot"] == {} and view["players"][A]["inventory"] == {"Cheri": 4}
    assert GAME.view(m.state, Viewer.of(A))["players"][A]["pending"]["placements"][0]["square"] == "C3"


def test_resolution_events_explain_themselves() -> None:
    """Ruling trace: harvest arithmetic, cooking, and each judge's computation and the decision path."""
    m = bot_match(7)
    judged = events_of(m.events, "match_judged")[0]
    lines = GAME.explain(judged)
    assert sum(1 for line in lines if line.startswith("Judge ")) == 3
    assert any("Judges won" in line for line in lines)
    assert GAME.explain(events_of(m.events, "harvest_resolved")[0])[0].startswith("Round 1 harvest")
    assert GAME.explain({"type": "phase_opened"}) == []


def test_status_names_the_phase_in_plain_words() -> None:
    m = match()
    assert GAME.status(m.state).phase == "round 1: berry gathering"
    both(m, "pass")
    assert GAME.status(m.state).phase == "round 1: placement"
