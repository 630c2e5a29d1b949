"""The frame auction (rule text: Frame; LG-4, LG-8, LG-9, LG-10), given events / when command / then events."""

from __future__ import annotations

from lg_helpers import PLAYERS, everyone, last, new_match, refused

from engine.errors import RuleViolation
from engine.last_gathering import GAME

HOUR = 3600


def test_the_first_frame_round_lasts_54_hours_from_the_texts_start_and_everyone_bids() -> None:
    """The text's match opened on Thursday 06:00 UTC (1970-01-01 was a Thursday): Saturday noon, LG-13."""
    match = new_match(now=6 * HOUR)
    assert match.events == [{"type": "frame_round_opened", "round": 1, "deadline": 6 * HOUR + 54 * HOUR}]
    status = GAME.status(match.state)
    assert status.awaiting == frozenset(PLAYERS) and status.phase == "frame round 1"
    assert status.deadline == 60 * HOUR and not status.binding


def test_lg8_a_sole_bidder_gets_the_frame_for_free() -> None:
    """LG-8 / rule text: the only bidder for a frame gets it free, whatever they bid."""
    match = new_match()
    everyone(match, {"Ann": "bid 7 on frame F2", "Bob": "bid 2 on frame F3", "Cy": "bid 0 on frame F1"})
    match.submit_text("Di", "bid 5 on frame F4")
    match.expire()
    resolved = last(match.events, "frame_round_resolved")
    assert {"player": "Ann", "frame": "F2", "paid": 0, "how": "sole bidder"} in resolved["awards"]
    assert match.state.player("Ann").garnets == 20 and match.state.player("Ann").frame == "F2"


def test_the_highest_frame_bid_pays_and_the_losers_bid_again_on_what_is_left() -> None:
    match = new_match()
    everyone(
        match,
        {"Ann": "bid 3 on frame F2", "Bob": "bid 5 on frame F2", "Cy": "bid 1 on frame F3", "Di": "bid 0 on frame F4"},
    )
    first = GAME.status(match.state).deadline
    assert first is not None
    match.expire()
    resolved = last(match.events, "frame_round_resolved")
    assert {"player": "Bob", "frame": "F2", "paid": 5, "how": "highest bid"} in resolved["awards"]
    assert match.state.player("Bob").garnets == 15
    assert "Ann gets no frame and bids again on the frames left (rule text: Frame)" in resolved["trace"]
    assert match.events[-1] == {"type": "frame_round_opened", "round": 2, "deadline": first + 24 * HOUR}
    assert GAME.status(match.state).awaiting == {"Ann"}
    exc = refused(match, "Ann", "bid 1 on frame F2")
    assert "already taken" in str(exc) and "F1, F5, F6" in str(exc)
    match.submit_text("Ann", "bid 1 on frame F6; end early")  # Ann alone must end early: LG-10
    assert match.state.step == 1 and match.state.player("Ann").frame == "F6"


def test_lg8_a_frame_tie_goes_to_more_starting_garnets_before_the_tiebreak_order() -> None:
    """LG-8: frame tie -> more garnets at the start of the match, then the tiebreak order."""
    match = new_match(
        starting_garnets={"Ann": 20, "Bob": 25, "Cy": 20, "Di": 20}, tiebreak_order=["Ann", "Bob", "Cy", "Di"]
    )
    everyone(match, {"Ann": "bid 4 on frame F2", "Bob": "bid 4 on frame F2"})
    match.expire()
    resolved = last(match.events, "frame_round_resolved")
    assert {"player": "Bob", "frame": "F2", "paid": 4, "how": "highest bid"} in resolved["awards"]
    assert any("starting garnets Ann 20, Bob 25" in line for line in resolved["trace"])


def test_lg8_a_frame_tie_with_equal_starting_garnets_goes_by_the_tiebreak_order() -> None:
    """LG-8: equal starting garnets: the player earlier in the tiebreak order wins the frame."""
    match = new_match(tiebreak_order=["Di", "Cy", "Bob", "Ann"])
    everyone(match, {"Ann": "bid 4 on frame F2", "Cy": "bid 4 on frame F2"})
    match.expire()
    awards = last(match.events, "frame_round_resolved")["awards"]
    assert {"player": "Cy", "frame": "F2", "paid": 4, "how": "highest bid"} in awards


def test_lg9_non_submitters_get_no_frame_while_a_bidder_is_left_without_one() -> None:
    """LG-9 / rule text: a bidder lost, so the non-submitter Di gets no frame and bids next round."""
    match = new_match()
    everyone(match, {"Ann": "bid 3 on frame F2", "Bob": "bid 1 on frame F2", "Cy": "bid 0 on frame F3"})
    match.expire()
    resolved = last(match.events, "frame_round_resolved")
    assert resolved["missed"] == ["Di"]
    assert all(a["player"] != "Di" for a in resolved["awards"])
    assert match.state.player("Di").frame is None and match.state.player("Bob").frame is None
    assert GAME.status(match.state).awaiting == {"Bob", "Di"}


def test_lg9_non_submitters_get_a_random_remaining_frame_when_every_bidder_has_one() -> None:
    """LG-9 / rule text: every bidder got a frame, so each non-submitter draws a remaining one (recorded)."""
    match = new_match(seed=5)
    everyone(match, {"Ann": "bid 3 on frame F2", "Bob": "bid 1 on frame F3"})
    match.expire()
    resolved = last(match.events, "frame_round_resolved")
    randoms = [a for a in resolved["awards"] if a["how"] == "random"]
    assert [a["player"] for a in randoms] == ["Cy", "Di"]
    assert {a["frame"] for a in randoms} <= {"F1", "F4", "F5", "F6"} and len({a["frame"] for a in randoms}) == 2
    assert all(a["paid"] == 0 for a in randoms)
    assert match.events[-1]["type"] == "step_opened"
    # The draw is recorded: replaying the events never re-rolls it.
    replayed = GAME.initial_state(GAME.default_config(list(PLAYERS)), 5)
    for event in match.events:
        replayed = GAME.evolve(replayed, event)
    assert replayed == match.state


def test_lg8_frame_rounds_do_not_change_the_tiebreak_order() -> None:
    """LG-8: frame rounds come first and leave the tiebreak order as it was."""
    match = new_match(tiebreak_order=["Cy", "Ann", "Di", "Bob"])
    everyone(match, {"Ann": "bid 3 on frame F2", "Bob": "bid 4 on frame F2", "Cy": "bid 2 on frame F1"})
    match.expire()
    match.expire()
    assert match.state.step == 1
    assert match.state.order == ("Cy", "Ann", "Di", "Bob")


def test_a_frame_bid_above_ones_garnets_is_refused_with_no_event() -> None:
    match = new_match()
    exc = refused(match, "Ann", "bid 21 on frame F2")
    assert isinstance(exc, RuleViolation) and "more than your 20 garnets" in str(exc)


def test_an_unknown_frame_is_refused() -> None:
    match = new_match()
    assert "offered: F1, F2, F3, F4, F5, F6" in str(refused(match, "Ann", "bid 1 on frame F9"))


def test_tile_bids_and_placements_are_refused_during_the_frame_rounds() -> None:
    """LG-8: wrong phase, a clear message, no event."""
    match = new_match()
    assert "frame round 1 takes only" in str(refused(match, "Ann", "bid 3 junction"))
    assert "frame round 1 takes only" in str(refused(match, "Ann", "place B3 rotate 90"))


def test_a_player_who_has_a_frame_has_nothing_to_submit_in_later_frame_rounds() -> None:
    match = new_match()
    everyone(match, {"Ann": "bid 3 on frame F2", "Bob": "bid 4 on frame F2", "Cy": "bid 2 on frame F1"})
    match.expire()
    exc = refused(match, "Cy", "bid 0 on frame F5")
    assert "nothing to submit" in str(exc)


def test_frame_names_are_case_insensitive() -> None:
    match = new_match()
    match.submit_text("Ann", "BID 2 ON FRAME f2")
    assert match.state.player("Ann").pending.frame_bid is not None
    assert match.state.player("Ann").pending.frame_bid.frame == "F2"
