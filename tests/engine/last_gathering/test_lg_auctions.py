"""Tile auctions (rule text: Auction phase, Tiebreaking order; LG-8, LG-9, LG-11)."""

from __future__ import annotations

from lg_helpers import everyone, in_steps, last, refused

from engine.contract import Viewer
from engine.errors import RuleViolation
from engine.last_gathering import GAME


def test_the_highest_bid_wins_pays_and_moves_to_the_end_of_the_order() -> None:
    match = in_steps()  # default order: all 20 garnets, so the order given: Ann, Bob, Cy, Di
    everyone(match, {"Ann": "bid 1 cross", "Bob": "bid 4 bend", "Cy": "bid 2 end", "Di": "bid 0 straight"})
    match.expire()
    resolved = last(match.events, "step_resolved")
    assert resolved["winner"] == "Bob" and resolved["paid"] == 4
    assert resolved["tile"] == {"kind": "bend", "sheep": None}
    assert resolved["order_before"] == ["Ann", "Bob", "Cy", "Di"]
    assert resolved["order_after"] == ["Ann", "Cy", "Di", "Bob"]
    assert match.state.player("Bob").garnets == 16
    assert [match.state.player(p).garnets for p in ("Ann", "Cy", "Di")] == [20, 20, 20]  # losers pay nothing
    assert match.state.left("bend") == 3
    assert "highest bid 4: Bob wins (rule text: Auction phase)" in resolved["trace"]
    assert "tiebreak order before the auction: Ann, Bob, Cy, Di (rule text: Tiebreaking order)" in resolved["trace"]
    assert "auction 1: bids Ann 1 on cross, Bob 4 on bend, Cy 2 on end, Di 0 on straight" in resolved["trace"]


def test_a_populated_winner_pays_the_bid_plus_3() -> None:
    match = in_steps()
    everyone(match, {"Ann": "bid 5 junction with sheep on B; end early", "Bob": "bid 2 cross; end early"})
    match.expire()
    resolved = last(match.events, "step_resolved")
    assert resolved["winner"] == "Ann" and resolved["paid"] == 8
    assert resolved["tile"] == {"kind": "junction", "sheep": "B"}
    assert match.state.player("Ann").garnets == 12
    assert any("5 + 3 for the extra sheep = 8; 20 - 8 = 12" in line for line in resolved["trace"])


def test_lg11_all_zero_bids_go_to_the_earliest_in_the_order_and_the_order_updates() -> None:
    """LG-11: all-zero bids are a tie too; the order is consulted and the winner goes to the end."""
    match = in_steps(tiebreak_order=["Cy", "Ann", "Di", "Bob"])
    for player in ("Ann", "Bob", "Cy", "Di"):
        match.submit_text(player, "bid 0 cross; end early")
    resolved = last(match.events, "step_resolved")
    assert resolved["winner"] == "Cy"
    assert resolved["order_after"] == ["Ann", "Di", "Bob", "Cy"]
    assert any("tied between Ann, Bob, Cy, Di; tiebreak order Cy, Ann, Di, Bob" in t for t in resolved["trace"])
    assert match.state.order == ("Ann", "Di", "Bob", "Cy")


def test_lg11_every_auction_tie_is_resolved_by_the_order_as_it_stands_after_earlier_auctions() -> None:
    """LG-11: Ann wins auction 1 and drops to the end, so she loses the tie at 2 with Di in auction 2."""
    match = in_steps()
    for player in ("Ann", "Bob", "Cy", "Di"):
        match.submit_text(player, ("bid 1 cross" if player == "Ann" else "bid 0 cross") + "; end early")
    assert match.state.order == ("Bob", "Cy", "Di", "Ann")
    everyone(
        match,
        {
            "Ann": "bid 2 end; place A1; end early",
            "Bob": "bid 1 end; place A1; end early",
            "Cy": "bid 0 end; place A1; end early",
            "Di": "bid 2 bend; place A1; end early",
        },
    )
    resolved = last(match.events, "step_resolved")
    assert resolved["winner"] == "Di" and resolved["order_after"] == ["Bob", "Cy", "Ann", "Di"]


def test_lg9_a_missed_auction_bids_0_on_a_random_available_kind_with_no_sheep() -> None:
    """LG-9: the draw is recorded in the event, from kinds still available."""
    match = in_steps(seed=3, tile_supply={"end": 0, "straight": 5, "bend": 5, "junction": 0, "cross": 5})
    match.submit_text("Ann", "bid 1 cross")
    match.expire()
    bids = last(match.events, "step_resolved")["bids"]
    missed = [b for b in bids if b["defaulted"]]
    assert [b["player"] for b in missed] == ["Bob", "Cy", "Di"]
    assert all(b["bid"] == 0 and b["sheep"] is None and b["kind"] in {"straight", "bend", "cross"} for b in missed)


def test_an_exhausted_tile_kind_is_refused_with_no_event() -> None:
    """Rule text: each kind may be won 4 times; then nobody may choose it."""
    match = in_steps()
    for _ in range(4):
        for player in ("Ann", "Bob", "Cy", "Di"):
            order = "bid 0 junction" + ("; place A1" if match.state.placement_open else "")
            empty = match.state.player(player).board.index(None)
            order = order.replace("A1", "ABCD"[empty % 4] + str(empty // 4 + 1))
            match.submit_text(player, order + "; end early")
    assert match.state.left("junction") == 0 and match.state.step == 5
    exc = refused(match, "Ann", "bid 0 T")
    assert isinstance(exc, RuleViolation) and "junction tiles have all been won" in str(exc)
    assert "end, straight, bend, cross" in str(exc)
    assert "junction" not in GAME.view(match.state, Viewer.of("Ann"))["available_kinds"]


def test_a_bid_above_ones_garnets_is_refused_with_no_event() -> None:
    match = in_steps()
    assert "a bid of 21 is more than your 20 garnets" in str(refused(match, "Ann", "bid 21 cross"))


def test_populating_needs_3_garnets_beyond_the_bid() -> None:
    match = in_steps()
    exc = refused(match, "Ann", "bid 18 cross with sheep on A")
    assert "a bid of 18 plus 3 for the sheep is more than your 20 garnets" in str(exc)
    match.submit_text("Ann", "bid 17 cross with sheep on A")  # 17 + 3 = 20: allowed


def test_lg7_the_sheep_section_must_be_a_section_of_the_kind() -> None:
    """LG-7: an end has only section A; a junction has A, B, C."""
    match = in_steps()
    assert "a end has sections A, not B" in str(refused(match, "Ann", "bid 1 end with sheep on B"))
    assert "not D" in str(refused(match, "Ann", "bid 1 junction with sheep on D"))


def test_frame_bids_are_refused_once_the_tile_auctions_start() -> None:
    """LG-8: wrong phase, no event."""
    match = in_steps()
    assert "frame auction is over" in str(refused(match, "Ann", "bid 1 on frame F6"))


def test_lg8_bids_are_sealed_until_the_step_resolves_then_public() -> None:
    """LG-8: a pending bid shows only in its owner's view; after the step every bid is public."""
    match = in_steps()
    before = {v: GAME.view(match.state, v) for v in (Viewer.of("Bob"), Viewer.spectator())}
    match.submit_text("Ann", "bid 7 bend with sheep on A")
    assert GAME.view(match.state, Viewer.of("Ann"))["you"]["pending"]["tile_bid"] == {
        "bid": 7,
        "kind": "bend",
        "sheep": "A",
    }
    for viewer, seen in before.items():
        after = GAME.view(match.state, viewer)
        assert after["players"][0]["submitted"] is True  # THAT Ann submitted is public, not what
        after["players"][0]["submitted"] = False
        assert after == seen
    match.expire()
    assert GAME.view(match.state, Viewer.of("Bob"))["auctions"] == [
        {"step": 1, "winner": "Ann", "kind": "bend", "sheep": "A", "paid": 10}
    ]
    public = GAME.view(match.state, Viewer.spectator())["last_resolution"]
    assert {"player": "Ann", "bid": 7, "kind": "bend", "sheep": "A", "defaulted": False} in public["bids"]
