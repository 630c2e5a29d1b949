"""Steps: placement r overlapping auction r+1 (LG-8), ending early (LG-10), the end (LG-6, LG-11)."""

from __future__ import annotations

import json
import random

import pytest
from lg_helpers import PLAYERS, everyone, in_steps, last, new_match, refused

from engine.contract import Viewer
from engine.errors import InvalidConfig
from engine.last_gathering import GAME
from engine.last_gathering.board import PlacedTile, spot_index
from engine.match import LocalMatch

DAY = 24 * 3600


def first_auction(match: LocalMatch, winner_text: str = "bid 2 junction with sheep on B") -> None:
    match.submit_text("Ann", winner_text + "; end early")
    for player in ("Bob", "Cy", "Di"):
        match.submit_text(player, "bid 0 cross; end early")


def test_lg8_step_1_is_auction_1_alone_and_a_placement_is_refused() -> None:
    """LG-8: step t resolves auction t and placement t-1; step 1 has no tile to place (wrong phase)."""
    match = in_steps()
    assert GAME.status(match.state).phase == "step 1: auction 1"
    assert "no tile to place yet" in str(refused(match, "Ann", "place B3 rotate 90"))


def test_lg8_placement_r_overlaps_auction_r_plus_1() -> None:
    """LG-8: step 2 resolves placement 1 (Ann's junction) together with auction 2, in one event."""
    match = in_steps()
    first_auction(match)
    assert GAME.status(match.state).phase == "step 2: auction 2 and placement 1"
    assert GAME.view(match.state, Viewer.of("Bob"))["tile_to_place"] == {"kind": "junction", "sheep": "B"}
    everyone(
        match,
        {
            "Ann": "bid 1 bend; place B3 rotate 90; end early",
            "Bob": "bid 3 cross; place A1; end early",
            "Cy": "bid 0 end; place D4 rotate 270; end early",
            "Di": "bid 2 straight; place C2 rotate 180; end early",
        },
    )
    resolved = last(match.events, "step_resolved")
    assert resolved["step"] == 2 and resolved["tile_placed"] == {"kind": "junction", "sheep": "B"}
    assert [p["spot"] for p in resolved["placements"]] == ["B3", "A1", "D4", "C2"]
    assert resolved["winner"] == "Bob" and resolved["tile"] == {"kind": "cross", "sheep": None}
    ann = match.state.player("Ann").board
    assert ann[spot_index("B3")] == PlacedTile("junction", 90, "B")  # the same tile, population included
    assert match.state.player("Cy").board[spot_index("D4")] == PlacedTile("junction", 270, "B")
    assert match.state.tile_to_place is not None and match.state.tile_to_place.kind == "cross"
    # LG-12: everything ended early at 0; the grid is the first frame deadline + whole days (LG-13: noon
    # UTC, 60 h after a start at midnight), so step 3 ends a day before it, at 36 h
    assert match.events[0]["deadline"] == 60 * 3600
    assert match.events[-1] == {"type": "step_opened", "step": 3, "deadline": 60 * 3600 - DAY}


def test_an_occupied_spot_is_refused_with_no_event() -> None:
    match = in_steps()
    first_auction(match)
    for player in PLAYERS:
        match.submit_text(player, "bid 0 cross; place B3; end early")
    exc = refused(match, "Ann", "place B3 rotate 90")
    assert "spot B3 of your board already holds a tile" in str(exc)


def test_lg9_a_missed_placement_goes_to_a_random_empty_spot_with_a_random_rotation() -> None:
    """LG-9: drawn from the match RNG and recorded in the event."""
    match = in_steps(seed=11)
    first_auction(match)
    match.submit_text("Ann", "bid 0 cross; place A1")
    match.expire()
    placements = last(match.events, "step_resolved")["placements"]
    assert placements[0] == {"player": "Ann", "spot": "A1", "rotation": 0, "defaulted": False}
    for item in placements[1:]:
        assert item["defaulted"] and item["rotation"] in (0, 90, 180, 270)
        assert match.state.player(item["player"]).board[spot_index(item["spot"])] is not None


def test_lg10_a_step_ends_early_only_when_everyone_has_submitted_and_asked() -> None:
    """LG-10: three players submit and ask, the fourth submits without asking: nothing resolves."""
    match = in_steps()
    for player in ("Ann", "Bob", "Cy"):
        match.submit_text(player, "bid 1 cross; end early")
    match.submit_text("Di", "bid 1 cross")
    assert match.state.step == 1 and match.events[-1]["type"] == "orders_submitted"
    match.submit_text("Di", "end early")
    assert match.state.step == 2


def test_lg10_asking_to_end_early_without_every_order_does_not_end_the_step() -> None:
    """LG-10: 'submitted' means all the orders the step needs (bid and placement in step 2)."""
    match = in_steps()
    first_auction(match)
    for player in PLAYERS:
        match.submit_text(player, "bid 0 cross; end early")  # no placement yet
    assert match.state.step == 2
    assert GAME.status(match.state).submitted == frozenset()


def test_lg10_a_submission_may_be_replaced_and_the_last_one_counts() -> None:
    """LG-10: status is not binding, everyone stays awaited, and the latest orders are resolved."""
    match = in_steps()
    match.submit_text("Ann", "bid 5 cross")
    status = GAME.status(match.state)
    assert not status.binding and status.awaiting == frozenset(PLAYERS) and status.submitted == {"Ann"}
    match.submit_text("Ann", "bid 1 end")
    match.expire()
    bids = last(match.events, "step_resolved")["bids"]
    assert bids[0] == {"player": "Ann", "bid": 1, "kind": "end", "sheep": None, "defaulted": False}


def test_lg10_lgp2_a_later_message_replaces_only_the_orders_it_carries_and_its_end_early() -> None:
    """LG-10, project ruling LG-P2: orders merge by kind; 'end early' is the latest message's wish."""
    match = in_steps()
    first_auction(match)
    match.submit_text("Ann", "bid 2 bend; place A1; end early")
    match.submit_text("Ann", "place B2 rotate 90")
    pending = match.state.player("Ann").pending
    assert pending.tile_bid is not None and pending.tile_bid.kind == "bend"
    assert pending.placement is not None and pending.placement.spot == "B2"
    assert pending.end_early is False


def test_step_16_has_no_auction_and_a_bid_is_refused() -> None:
    match = in_steps()
    while match.state.step < 16:
        match.expire()
    assert GAME.status(match.state).phase == "step 16: placement 15"
    assert "all 15 auctions are over" in str(refused(match, "Ann", "bid 0 cross"))


def play_to_the_end(match: LocalMatch) -> LocalMatch:
    while not match.finished:
        match.expire()
    return match


def test_lg6_the_last_empty_spot_becomes_the_lake_and_the_match_is_scored() -> None:
    """LG-6: after 15 placements each board has one empty spot: the lake."""
    match = play_to_the_end(in_steps(seed=4))
    finished = match.events[-1]
    assert finished["type"] == "match_finished"
    for player in PLAYERS:
        (lake,) = finished["lakes"][player]
        assert match.state.player(player).board[spot_index(lake)] is None
        assert sum(t is not None for t in match.state.player(player).board) == 15
    results = GAME.results(match.state)["results"]
    assert sorted(r["rank"] for r in results) == [1, 2, 3, 4]
    assert GAME.status(match.state).finished
    assert "match is over" in str(refused(match, "Ann", "end early"))


def test_lg11_final_ranking_ties_go_by_the_tiebreak_order_after_the_last_auction() -> None:
    """LG-11: the same board for everyone (same placements) gives equal scores; the order decides."""
    match = in_steps()
    spots = [f"{c}{r}" for r in range(1, 5) for c in "ABCD"]
    for step in range(1, 17):
        for player in PLAYERS:
            orders = []
            if step <= 15:
                kind = match.state.available_kinds[0]
                orders.append(f"bid {1 if player == 'Bob' else 0} {kind}")
            if step >= 2:
                orders.append(f"place {spots[step - 2]}")
            match.submit_text(player, "; ".join([*orders, "end early"]))
    assert match.finished
    finished = match.events[-1]
    scores = {s["player"]: s["score"] for s in finished["scores"]}
    assert len(set(scores.values())) == 1
    order = list(match.state.order)
    assert finished["ranking"] == order and order[-1] == "Bob"
    assert any("tiebreak order after the last auction" in t for t in finished["trace"])


def test_every_event_of_a_whole_match_is_json_plain() -> None:
    match = play_to_the_end(in_steps(seed=9))
    for event in match.events:
        assert json.loads(json.dumps(event)) == event
        assert isinstance(event["type"], str)


def test_a_match_replays_from_its_events_to_the_same_state() -> None:
    match = play_to_the_end(in_steps(seed=2))
    state = GAME.initial_state(GAME.default_config(list(PLAYERS)), 2)
    for event in match.events:
        state = GAME.evolve(state, event)
    assert state == match.state


def test_every_resolution_explains_itself() -> None:
    match = play_to_the_end(in_steps(seed=6))
    for event in match.events:
        if event["type"].endswith("resolved") or event["type"] == "match_finished":
            assert GAME.explain(event) and all(isinstance(line, str) for line in GAME.explain(event))
        else:
            assert GAME.explain(event) == []


# ---------------------------------------------------------------- configuration


def test_the_default_configuration_holds_every_table_and_duration() -> None:
    config = GAME.default_config(["Ann", "Bob", "Cy", "Di"])
    assert config["starting_garnets"] == dict.fromkeys(PLAYERS, 20)
    assert config["tile_supply"] == {"end": 4, "straight": 4, "bend": 4, "junction": 4, "cross": 4}
    assert config["rounds"] == 15 and len(config["frames"]) == 6  # type: ignore[arg-type]
    assert config["first_frame_round_seconds"] == 48 * 3600 and config["step_seconds"] == DAY  # LG-13
    assert json.loads(json.dumps(config)) == config


def test_lg11_the_default_tiebreak_order_is_by_starting_garnets_then_the_order_given() -> None:
    """LG-11 / rule text: highest garnets first; equal garnets keep the order the players were given."""
    match = new_match(starting_garnets={"Ann": 10, "Bob": 30, "Cy": 10, "Di": 25})
    assert match.state.order == ("Bob", "Di", "Ann", "Cy")


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"players": ["Solo"]}, "2 to 6 players"),
        ({"players": ["A", "B", "C", "D", "E", "F", "G"]}, "2 to 6 players"),
        ({"players": ["A", "A"]}, "distinct"),
        ({"starting_garnets": {"Ann": 5}}, "every player"),
        ({"tiebreak_order": ["Ann", "Bob"]}, "every player exactly once"),
        ({"frames": {"F1": ["N9"]}}, "frame spokes"),
        ({"frames": {"F1": [], "F2": []}}, "at least 4 frames"),
        ({"tile_supply": {"end": 1, "straight": 1, "bend": 1, "junction": 1, "cross": 1}}, "at least 15"),
        ({"rounds": 16}, "between 1 and 15"),
        ({"step_seconds": 0}, "positive number of seconds"),
        ({"colour": "blue"}, "unknown configuration keys: colour"),
    ],
)
def test_an_invalid_configuration_is_refused_with_a_clear_message(override: dict, message: str) -> None:  # type: ignore[type-arg]
    config = GAME.default_config(list(PLAYERS))
    if "players" in override:
        config = GAME.default_config(override["players"])
    config.update(override)
    with pytest.raises(InvalidConfig, match=message):
        GAME.initial_state(config, 1)


def test_two_and_six_player_matches_play_to_the_end() -> None:
    for players in (("Ann", "Bob"), ("A", "B", "C", "D", "E", "F")):
        match = play_to_the_end(new_match(players, seed=random.Random(1).randint(0, 99)))
        assert len(GAME.results(match.state)["results"]) == len(players)
