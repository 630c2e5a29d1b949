"""Hidden information: only sealed submissions are hidden, from everyone but their owner and the host."""

from __future__ import annotations

import json

import pytest
from mn_helpers import ALL_ONE, SETUP_A, json_plain, new_match

from engine.contract import Viewer
from engine.errors import RuleViolation
from engine.mining import GAME

SECRET = "move b 3; move c 2; move p 1; move s 5; move t 2; upgrade c r; bully 1"


def _round_with_secret():
    match = new_match(("A", "B", "C"))
    match.expire()
    before = match.state
    event = match.submit_text("A", SECRET)[0]
    return match, before, event


def test_sealed_orders_are_hidden_from_other_players_and_spectators_in_views():
    """Views: others see only that a player has submitted."""
    match, _, _ = _round_with_secret()
    for viewer in (Viewer.of("B"), Viewer.spectator()):
        view = GAME.view(match.state, viewer)
        text = json.dumps(view)
        assert "move s 5" not in text and "bully 1" not in text
        assert next(p for p in view["players"] if p["name"] == "A")["submitted"] is True
        assert "pending" not in view


def test_the_owner_and_the_host_see_the_sealed_orders():
    match, _, _ = _round_with_secret()
    assert GAME.view(match.state, Viewer.of("A"))["your_submission"] == SECRET
    assert GAME.view(match.state, Viewer.host())["pending"] == {"A": SECRET}
    assert GAME.view(match.state, Viewer.of("B"))["your_submission"] is None


def test_sealed_orders_are_hidden_from_other_players_and_spectators_in_redacted_events():
    _match, before, event = _round_with_secret()
    for viewer in (Viewer.of("B"), Viewer.spectator()):
        assert GAME.redact(before, event, viewer) == {"type": "orders_submitted", "player": "A"}
    assert GAME.redact(before, event, Viewer.of("A")) == event
    assert GAME.redact(before, event, Viewer.host()) == event


def test_sealed_setup_is_hidden_until_the_setup_resolves():
    match = new_match(("A", "B"))
    before = match.state
    event = match.submit_text("A", SETUP_A)[0]
    assert GAME.redact(before, event, Viewer.of("B")) == {"type": "setup_submitted", "player": "A"}
    assert "start b 1" not in json.dumps(GAME.view(match.state, Viewer.spectator()))


def test_orders_become_public_when_the_round_resolves():
    match, _, _ = _round_with_secret()
    before = match.state
    events = match.expire()
    resolved = events[0]
    assert resolved["orders"]["A"]["moves"]["s"] == 5
    assert GAME.redact(before, resolved, Viewer.spectator()) == resolved
    view = GAME.view(match.state, Viewer.spectator())
    assert view["last_round"]["moves"]["A-S"]["steps"] == 5


def test_everything_else_is_public_crystals_garnets_miners_and_levels():
    """Clarification: everything is public, including miners, roles, crystals and upgrades."""
    match = new_match(("A", "B"))
    match.expire()
    match.expire()
    view = GAME.view(match.state, Viewer.of("B"))
    a = next(p for p in view["players"] if p["name"] == "A")
    assert set(a) >= {"gold", "crystals", "garnets", "miners", "next_garnet_price"}
    assert set(a["miners"]["t"]) == {"space", "levels"}
    assert view["spaces"][0]["miners"] is not None and json_plain(view)


def test_a_refusal_never_quotes_another_players_orders():
    match, _, _ = _round_with_secret()
    with pytest.raises(RuleViolation) as refused:
        match.submit_text("B", "move b 1")
    assert "move s 5" not in str(refused.value) and "bully" not in str(refused.value)


def test_views_are_json_plain_for_every_viewer_through_a_whole_match():
    match = new_match(("A", "B"), seed=2)
    match.submit_text("A", SETUP_A)
    while not match.finished:
        for viewer in (Viewer.of("A"), Viewer.of("B"), Viewer.spectator(), Viewer.host()):
            assert json_plain(GAME.view(match.state, viewer))
        if match.state.phase == "round":
            match.submit_text("A", ALL_ONE)
        match.expire()
    assert GAME.view(match.state, Viewer.spectator())["final"]["results"][0]["rank"] == 1
