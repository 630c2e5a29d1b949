"""Project rulings LG-P1..LG-P8, where the rule text and LG-1..LG-12 are silent (LG-P4: rules version 1)."""

from __future__ import annotations

import json

from lg_helpers import ALL_SPOKES, PLAYERS, crosses_except, everyone, in_steps, last, new_match

from engine.contract import Viewer
from engine.last_gathering import GAME
from engine.last_gathering.game import RULES_V1
from engine.last_gathering.scoring import regions
from engine.match import LocalMatch


def test_lgp1_starting_garnets_default_to_20_each() -> None:
    """LG-P1: the text names no garnet counts; every player starts with 20 unless the host says otherwise."""
    match = new_match()
    assert [p.garnets for p in match.state.players] == [20, 20, 20, 20]
    assert new_match(starting_garnets=12).state.player("Di").garnets == 12


def test_lgp3_random_defaults_are_drawn_in_a_fixed_order_and_recorded() -> None:
    """LG-P3: frame non-submitters draw in tiebreak order from the frames left in offered order;
    in a step, missed placements draw first, then missed bids, players in the order given."""
    match = new_match(seed=3, tiebreak_order=["Di", "Cy", "Bob", "Ann"])
    match.submit_text("Bob", "bid 0 on frame F1")
    match.expire()
    randoms = [a["player"] for a in last(match.events, "frame_round_resolved")["awards"] if a["how"] == "random"]
    assert randoms == ["Di", "Cy", "Ann"]
    twin = new_match(seed=3, tiebreak_order=["Di", "Cy", "Bob", "Ann"])
    twin.submit_text("Bob", "bid 0 on frame F1")
    twin.expire()
    assert twin.events == match.events  # same seed, same version: the same draws
    match.expire()
    match.expire()
    resolved = last(match.events, "step_resolved")
    assert [p["player"] for p in resolved["placements"]] == list(PLAYERS)
    assert all(p["defaulted"] for p in resolved["placements"]) and all(b["defaulted"] for b in resolved["bids"])


def test_lgp4_each_phase_deadline_is_its_opening_time_plus_its_duration() -> None:
    """LG-P4 (withdrawn 2026-12-01 for LG-12, kept as rules version 1 for the matches stored under it):
    ending early opens the next phase at once, with a full duration from then."""
    config = RULES_V1.default_config(list(PLAYERS))
    config.update(first_frame_round_seconds=100, frame_round_seconds=50, step_seconds=10)
    match = LocalMatch(RULES_V1, config, 1)
    assert RULES_V1.rules_version == "1" and GAME.status(match.state).deadline == 100
    match.advance(30)
    for player, frame in zip(PLAYERS, ("F1", "F2", "F3", "F4"), strict=True):
        match.submit_text(player, f"bid 0 on frame {frame}; end early")
    assert match.events[-1] == {"type": "step_opened", "step": 1, "deadline": 40.0}
    match.advance(25)  # passes 40 and then 50: two steps resolve at their own deadlines
    assert match.state.step == 3 and GAME.status(match.state).deadline == 60.0


def test_lgp5_lake_corner_sheep_are_incomplete_and_lake_edge_loose_ends_count_on_both_sides() -> None:
    """LG-P5: the four cells at the lake's corners hold no whole sheep; a loose end on the lake's edge
    is counted for the regions of the cells on both sides (all of them unscored)."""
    found = regions(crosses_except({}, lake="D4"), ALL_SPOKES, lakes=[15])
    at_lake = [r for r in found if r.lake_adjacent]
    assert [r.sheep for r in at_lake] == [0, 0, 0, 0]
    assert sum(r.loose_ends for r in at_lake) == 8  # 4 lake-edge loose ends, each counted on 2 sides


def test_lgp6_with_fewer_rounds_every_spot_left_empty_becomes_a_lake() -> None:
    """LG-P6: rounds may be set from 1 to 15; at the end every empty spot is a lake (one with 15)."""
    match = in_steps(rounds=3)
    while not match.finished:
        match.expire()
    finished = match.events[-1]
    assert all(len(lakes) == 13 for lakes in finished["lakes"].values())
    assert last(match.events, "step_resolved")["step"] == 4


def test_lgp7_only_players_without_a_frame_take_part_in_later_frame_rounds() -> None:
    """LG-P7: a frame round ends early when every player still without a frame bid and asked."""
    match = new_match()
    everyone(match, {"Ann": "bid 3 on frame F2", "Bob": "bid 4 on frame F2", "Cy": "bid 2 on frame F1"})
    match.expire()
    assert GAME.status(match.state).awaiting == {"Ann", "Di"}
    match.submit_text("Ann", "bid 0 on frame F3; end early")
    match.submit_text("Di", "bid 0 on frame F4; end early")
    assert match.state.step == 1


def test_lgp8_others_see_that_a_player_submitted_but_not_whether_they_asked_to_end_early() -> None:
    """LG-P8: 'submitted' (all needed orders in) is public; the wish to end early is private."""
    match = in_steps()
    match.submit_text("Ann", "bid 0 cross")
    quiet = GAME.view(match.state, Viewer.of("Bob"))
    match.submit_text("Ann", "end early")
    assert GAME.view(match.state, Viewer.of("Bob")) == quiet
    assert quiet["players"][0]["submitted"] is True
    assert GAME.view(match.state, Viewer.of("Ann"))["you"]["end_early"] is True
    assert json.dumps(quiet)
