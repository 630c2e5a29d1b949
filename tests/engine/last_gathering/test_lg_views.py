"""Hidden information: views and redacted events (LG-8: sealed until the step resolves)."""

from __future__ import annotations

import json

import pytest
from lg_helpers import PLAYERS, in_steps, new_match

from engine.contract import Viewer
from engine.last_gathering import GAME

OTHERS = (Viewer.of("Bob"), Viewer.spectator())


def test_a_players_own_view_shows_what_they_need_to_act() -> None:
    match = in_steps()
    match.submit_text("Ann", "bid 2 junction with sheep on B; end early")
    for player in ("Bob", "Cy", "Di"):
        match.submit_text(player, "bid 0 cross; end early")
    view = GAME.view(match.state, Viewer.of("Ann"))
    assert view["status"] == "step 2: auction 2 and placement 1"
    assert view["tile_to_place"] == {"kind": "junction", "sheep": "B"}
    assert view["supply"] == {"end": 4, "straight": 4, "bend": 4, "junction": 3, "cross": 4}
    assert view["tiebreak_order"] == ["Bob", "Cy", "Di", "Ann"]
    you = view["you"]
    assert you["garnets"] == 15 and you["frame"] == "F1"
    assert you["must_submit"] == ["tile_bid", "placement"] and len(you["empty_spots"]) == 16
    assert you["pending"] == {"frame_bid": None, "tile_bid": None, "placement": None, "end_early": False}
    match.submit_text("Ann", "place C1 rotate 180; end early")
    you = GAME.view(match.state, Viewer.of("Ann"))["you"]
    assert you["pending"]["placement"] == {"spot": "C1", "rotation": 180} and you["end_early"] is True
    assert json.loads(json.dumps(view)) == view


def test_a_pending_placement_is_seen_only_by_its_owner_and_the_host() -> None:
    match = in_steps()
    for player in PLAYERS:
        match.submit_text(player, "bid 0 cross; end early")
    before = {v: GAME.view(match.state, v) for v in OTHERS}
    match.submit_text("Ann", "place C1 rotate 180")
    assert GAME.view(match.state, Viewer.host())["pending"]["Ann"]["placement"] == {"spot": "C1", "rotation": 180}
    for viewer, seen in before.items():
        after = GAME.view(match.state, viewer)
        assert "pending" not in after
        assert after == seen  # Ann still lacks a bid: not even "submitted" changed
    match.submit_text("Ann", "bid 4 bend")
    for viewer, seen in before.items():
        view = GAME.view(match.state, viewer)
        assert view["players"][0]["submitted"] is True  # THAT Ann submitted, nothing of what
        view["players"][0]["submitted"] = False
        assert view == seen


def test_everyones_boards_garnets_and_frames_are_public_once_the_step_resolves() -> None:
    match = in_steps()
    for player in PLAYERS:
        match.submit_text(player, "bid 0 cross; end early")
    for player, spot in zip(PLAYERS, ("A1", "B2", "C3", "D4"), strict=True):
        match.submit_text(player, f"bid 0 end; place {spot} rotate 90; end early")
    view = GAME.view(match.state, Viewer.spectator())
    boards = {p["name"]: p["board"] for p in view["players"]}
    assert boards["Cy"] == [{"spot": "C3", "kind": "cross", "rotation": 90, "sheep": None}]
    assert [p["garnets"] for p in view["players"]] == [20, 20, 20, 20]
    assert [p["frame"] for p in view["players"]] == ["F1", "F2", "F3", "F4"]
    assert view["you"] is None


def test_redacted_submissions_show_others_only_that_a_player_submitted() -> None:
    match = new_match()
    (event,) = match.submit_text("Ann", "bid 3 on frame F2")
    state_before = match.state
    assert GAME.redact(state_before, event, Viewer.of("Ann")) == event
    assert GAME.redact(state_before, event, Viewer.host()) == event
    for viewer in (Viewer.of("Bob"), Viewer.spectator()):
        hidden = GAME.redact(state_before, event, viewer)
        assert hidden == {"type": "orders_submitted", "player": "Ann", "sealed": True}
    in_match = in_steps()
    (event,) = in_match.submit_text("Cy", "bid 6 straight with sheep on A")
    for viewer in (Viewer.of("Ann"), Viewer.spectator()):
        assert "straight" not in json.dumps(GAME.redact(in_match.state, event, viewer))


def test_resolutions_are_public_to_everyone() -> None:
    match = in_steps()
    match.submit_text("Ann", "bid 3 bend")
    events = match.expire()
    for event in events:
        assert GAME.redact(match.state, event, Viewer.spectator()) == event


def test_refusals_never_reveal_another_players_sealed_bid() -> None:
    match = new_match()
    match.submit_text("Ann", "bid 19 on frame F2")
    with pytest.raises(Exception) as refused:  # noqa: PT011 (any refusal: what matters is its words)
        match.submit_text("Bob", "bid 25 on frame F2")
    assert "19" not in str(refused.value)
