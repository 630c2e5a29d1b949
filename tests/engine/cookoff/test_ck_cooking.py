"""Cooking: placement, sabotage, moves, flame, burning and dish removal (CK-2, CK-3, CK-4, CK-5b)."""

from __future__ import annotations

import pytest
from ck_helpers import A, B, both, events_of, finish_round, gather, match, phase, pot, say

from engine.cookoff import GAME
from engine.cookoff.commands import Move, MoveBerries, PlaceBerries, Placement
from engine.cookoff.scoring import band
from engine.cookoff.state import Phase, square_index
from engine.errors import AlreadySubmitted, MalformedCommand, RuleViolation


def stocked(**kw: object) -> object:
    """A match in round 1's placement phase: ann holds 4 Cheri, 3 Oran; bob 3 Razz, 3 Pecha."""
    m = match(first=[("Cheri", 4), ("Oran", 3), ("Razz", 3), ("Pecha", 3)], **kw)
    gather(m, "send 1 worker to Cheri. send 1 worker to Oran.", "send 1 worker to Razz. send 1 worker to Pecha.")
    assert phase(m) is Phase.PLACEMENT
    return m


def refused(m: object, player: str, text: str, match_text: str, error: type = RuleViolation) -> None:
    before, count = m.state, len(m.events)  # type: ignore[attr-defined]
    with pytest.raises(error, match=match_text):
        say(m, player, text)  # type: ignore[arg-type]
    assert m.state == before and len(m.events) == count  # type: ignore[attr-defined]


def test_ck3_coordinates_run_columns_a_to_e_and_rows_1_to_5_from_the_top() -> None:
    """CK-3: A1 is the top-left square, E1 top-right, A5 bottom-left, C3 the centre."""
    assert square_index("A1") == 0 and square_index("E1") == 4 and square_index("A5") == 20
    assert square_index("c3") == 12


def test_ck2_flame_rings_give_centre_3_inner_2_outer_1() -> None:
    """CK-2: intensity by Chebyshev ring from C3."""
    m = match()
    flame = m.state.config.flame
    assert flame[square_index("C3")] == 3 and flame[square_index("B2")] == 2 and flame[square_index("D4")] == 2
    assert flame[square_index("A1")] == 1 and flame[square_index("E3")] == 1


def test_ck2_cook_bands_of_cook_times() -> None:
    """CK-2: 1-2 raw, 3 slightly raw, 4-5 medium, 6-7 well done, 8 or more burned."""
    assert [band(t) for t in range(1, 10)] == [
        "raw",
        "raw",
        "slightly raw",
        "medium",
        "medium",
        "well done",
        "well done",
        None,
        None,
    ]


def test_ck2_berries_reach_every_band_and_burn_on_each_ring() -> None:
    """CK-2: every berry in a pot gains its square's intensity each turn; 8 or more burns.
    Outer ring (A1): 1 raw, 3 slightly raw, 4 medium, 6 well done, 8 burned; inner (B2) burns at 8
    after 4 turns; centre (C3): 3 slightly raw, 6 well done, 9 burned."""
    m = stocked()
    both(m, "place Cheri on A1. place Cheri on B2. place Cheri on C3.")
    history: dict[str, list[tuple[int, str]]] = {"A1": [], "B2": [], "C3": []}
    for _round in range(8):
        while phase(m) is not Phase.REMOVAL:
            both(m, "pass")
        for square, (_berry, cook) in pot(m, A).items():
            history[square].append((cook, band(cook) or "burned"))
        finish_round(m)
    assert [c for c, _ in history["A1"]] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert {b for _, b in history["A1"]} == {"raw", "slightly raw", "medium", "well done", "burned"}
    assert history["B2"][:4] == [(2, "raw"), (4, "medium"), (6, "well done"), (8, "burned")]
    assert history["C3"][:3] == [(3, "slightly raw"), (6, "well done"), (9, "burned")]


def test_ck2_cooking_event_traces_each_berry() -> None:
    """CK-2: the cooking event names each berry's intensity and new cook time."""
    m = stocked()
    both(m, "place Cheri on C3")
    both(m, "pass")
    events = both(m, "pass")
    (cooked,) = events_of(events, "pots_cooked")
    assert cooked["pots"][A] == [{"square": "C3", "berry": "Cheri", "intensity": 3, "cook": 3, "band": "slightly raw"}]
    assert any("C3 Cheri +3 -> 3 (slightly raw)" in line for line in GAME.explain(cooked))


def test_ck4_placement_is_sealed_then_revealed_together() -> None:
    """CK-4: placements in one's own pot are sealed until both players placed."""
    from engine.contract import Viewer

    m = stocked()
    (event,) = say(m, A, "I will place a Cheri berry on C3.")
    assert "command" not in GAME.redact(m.state, event, Viewer.of(B))  # type: ignore[operator]
    assert GAME.view(m.state, Viewer.of(B))["players"][A]["pot"] == {}
    assert GAME.view(m.state, Viewer.spectator())["players"][A]["pot"] == {}
    events = say(m, B, "I will place a Razz berry on C3.")
    (revealed,) = events_of(events, "placements_revealed")
    assert revealed["placements"] == {A: [{"berry": "Cheri", "square": "C3"}], B: [{"berry": "Razz", "square": "C3"}]}
    assert phase(m) is Phase.SABOTAGE


def test_ck4_more_than_four_placements_are_refused() -> None:
    """CK-4: up to 4 berries a turn into one's own pot."""
    m = stocked()
    refused(
        m,
        A,
        "place Cheri on A1. place Cheri on A2. place Cheri on A3. place Cheri on A4. place Oran on A5",
        "at most 4",
    )


def test_ck5b_placing_a_berry_not_in_the_inventory_is_refused() -> None:
    """CK-5b: a berry not in the inventory is refused when submitted (multiplicity counts)."""
    m = stocked()
    refused(m, A, "place Razz on A1", "no Razz berry")
    refused(m, B, "place Razz on A1. place Razz on A2. place Razz on A3. place Razz on A4", "no Razz berry left")


def test_ck5b_placing_two_berries_on_one_square_is_refused() -> None:
    """CK-5b: an occupied square (here, by the same submission) is refused."""
    m = stocked()
    refused(m, A, "place Cheri on A1. place Oran on A1", "one square")


def test_ck5b_placing_on_an_occupied_square_of_ones_own_pot_is_refused() -> None:
    """CK-5b: an occupied square is refused."""
    m = stocked()
    both(m, "place Cheri on A1")
    finish_round(m)
    gather(m, "pass")
    refused(m, A, "place Cheri on A1", "A1 in your pot is occupied")


def test_ck4_sabotage_goes_on_squares_empty_after_both_placements_and_is_announced_together() -> None:
    """CK-4: up to 2 sabotage berries into the opponent's pot, sealed, then announced together;
    CK-5b: they belong to the pot they land in."""
    m = stocked()
    both(m, "place Cheri on C3", "place Razz on C3")
    refused(m, A, "I will sabotage and place a Oran berry on C3.", "C3 in bob's pot is occupied")
    (event,) = say(m, A, "I will sabotage and place an Oran berry on B3.")
    from engine.contract import Viewer

    assert "command" not in GAME.redact(m.state, event, Viewer.of(B))  # type: ignore[operator]
    events = say(m, B, "I will not sabotage.")
    (announced,) = events_of(events, "sabotage_announced")
    assert announced["sabotage"] == {A: [{"berry": "Oran", "square": "B3"}], B: []}
    assert pot(m, B) == {"C3": ("Razz", 0), "B3": ("Oran", 0)}
    assert m.state.seat(B).pot[square_index("B3")].sabotage  # type: ignore[union-attr]
    assert phase(m) is Phase.MOVES


def test_ck4_sabotage_onto_a_square_a_later_move_would_empty_is_impossible() -> None:
    """CK-4: sabotage precedes moves, so a square the owner will vacate by moving is still occupied
    when sabotage is submitted, and is refused (CK-5b)."""
    m = stocked()
    both(m, "place Cheri on C3", "place Razz on C3")
    refused(m, A, "sabotage and place Oran on C3", "occupied")
    both(m, "I will not sabotage.", "I will not sabotage.")
    both(m, "pass", "I will move the berry on C3 to C4.")
    assert pot(m, B) == {"C4": ("Razz", 2)}


def test_ck4_more_than_two_sabotage_berries_are_refused() -> None:
    """CK-4: up to 2 sabotage berries a turn."""
    m = stocked()
    both(m, "pass")
    refused(m, A, "sabotage with Cheri on A1. sabotage with Cheri on A2. sabotage with Cheri on A3", "at most 2")


def test_ck5b_sabotage_berries_cook_the_same_turn_and_may_be_moved_by_the_pots_owner() -> None:
    """CK-5b / CK-4: sabotage berries belong to the pot they land in, cook that turn, and its owner
    may move them; a berry may move more than once, steps applied in order."""
    m = stocked()
    both(m, "pass")
    both(m, "sabotage and place Cheri on A1", "pass")
    both(m, "pass", "move A1 to B1. move B1 to C1. move C1 to C2")
    assert pot(m, B) == {"C2": ("Cheri", 2)}


def test_ck4_moves_are_one_orthogonal_step_into_an_empty_square_on_the_pot() -> None:
    """CK-4 / CK-5b: steps off the pot, diagonal, long or into a berry are refused; at most 4."""
    m = stocked()
    both(m, "place Cheri on A1. place Cheri on B1", "pass")
    both(m, "pass")
    refused(m, A, "move A1 to A0", r"'A0' is not a square of the pot.*\(in 'move A1 to A0'\)", MalformedCommand)
    with pytest.raises(MalformedCommand, match="'A0' is not a square of the pot"):
        m.submit(A, MoveBerries((Move("A1", "A0"),)))
    refused(m, A, "move A1 to B2", "not one orthogonal step")
    refused(m, A, "move A1 to A3", "not one orthogonal step")
    refused(m, A, "move A1 to B1", "B1 is occupied")
    refused(m, A, "move C3 to C4", "no berry on C3")
    refused(m, A, "move A1 to A2. move A2 to A3. move A3 to A4. move A4 to A5. move A5 to B5", "at most 4")
    both(m, "move A1 to A2. move A2 to A3. move B1 to A1. move A1 to B1")
    assert pot(m, A) == {"A3": ("Cheri", 1), "B1": ("Cheri", 1)}


def test_ck4_a_dish_that_is_not_connected_is_refused() -> None:
    """CK-4: a dish is one orthogonally connected group (the rule text's red example: B2 and D2 loose)."""
    m = stocked()
    both(m, "place Cheri on B2. place Cheri on C3. place Cheri on D2. place Oran on C2", "pass")
    both(m, "pass")
    both(m, "pass")
    refused(m, A, "I remove the dish on B2, C3, D2.", "not one orthogonally connected")
    refused(m, A, "I remove the dish on B2, B3.", "B3 in your pot holds no berry")
    refused(m, A, "I remove the dish on B2, B2.", "named twice")
    events = both(m, "I remove the dish on B2, C2, D2.")
    (removed,) = events_of(events, "dishes_removed")
    assert removed["dishes"][A]["number"] == 1 and removed["dishes"][B] is None
    assert [b["square"] for b in removed["dishes"][A]["berries"]] == ["B2", "C2", "D2"]
    assert pot(m, A) == {"C3": ("Cheri", 3)}


def test_ck4_dishes_are_out_of_play_and_numbered_in_the_order_removed() -> None:
    """CK-4 / CK-2: a removed dish no longer cooks; dishes are numbered 1.. in removal order."""
    m = stocked()
    both(m, "place Cheri on A1. place Cheri on E5", "pass")
    for _ in range(2):
        both(m, "pass")
    say(m, A, "I remove the dish on A1.")
    say(m, B, "pass")
    for _ in range(4):
        both(m, "pass")
    both(m, "remove the dish on E5")
    dishes = m.state.seat(A).dishes
    assert [(d.number, d.round, d.berries[0].square, d.berries[0].cook) for d in dishes] == [
        (1, 1, "A1", 1),
        (2, 2, "E5", 2),
    ]


def test_lg10_first_valid_submission_is_binding_and_a_second_is_refused() -> None:
    """LG-10 note / rule text: in Cookoff the first valid submission is binding."""
    m = stocked()
    say(m, A, "place Cheri on A1")
    status = GAME.status(m.state)
    assert status.binding and A not in status.awaiting and A in status.submitted
    with pytest.raises(AlreadySubmitted):
        say(m, A, "place Cheri on A2")


def test_ckp9_every_phase_waits_for_both_and_submissions_that_do_nothing_are_valid() -> None:
    """CK-P9 / rule text: 'I will not sabotage.' and 'I will not remove a dish.' are submissions; every
    phase before the final choice waits for both players, even one with nothing to do."""
    m0 = match()
    assert GAME.status(m0.state).awaiting == {A, B}
    m = stocked()
    for text in ("I will place no berries.", "I will not sabotage.", "I will not move any berries."):
        both(m, text, text)
    events = both(m, "I will not remove a dish.", "nothing")
    assert events_of(events, "dishes_removed")[0]["dishes"] == {A: None, B: None}
    assert m.state.round == 2 and phase(m) is Phase.GATHERING


def test_ckp10_a_typed_command_of_another_phase_is_refused() -> None:
    """CK-P10: a typed command that does not belong to the current phase is refused (CK-4)."""
    m = stocked()
    with pytest.raises(RuleViolation, match="expected PlaceBerries, got MoveBerries") as info:
        m.submit(A, MoveBerries())  # type: ignore[attr-defined]
    assert info.value.rule == "CK-4"


def test_typed_commands_with_lower_case_squares_are_recorded_in_canonical_form() -> None:
    """CK-3: squares in events are canonical ("c3" -> "C3")."""
    m = stocked()
    say(m, B, "pass")
    events = m.submit(A, PlaceBerries((Placement("Cheri", "c3"),)))  # type: ignore[attr-defined]
    assert events_of(events, "placements_revealed")[0]["placements"][A] == [{"berry": "Cheri", "square": "C3"}]
