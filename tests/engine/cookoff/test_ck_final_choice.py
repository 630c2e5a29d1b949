"""The final dish choice on the clock (revised CK-6, CK-7, CK-P2), and rules version 1 (CK-P4, withdrawn
2026-12-01), which a stored match recorded under it still plays by."""

from __future__ import annotations

from ck_helpers import A, B, both, events_of, match, phase, play_to_final, replayed, say

from engine import registry
from engine.cookoff import GAME, RULES_VERSIONS
from engine.cookoff.state import Phase
from engine.match import LocalMatch

V1 = RULES_VERSIONS["1"]


def to_final(game: object = GAME, **overrides: object) -> LocalMatch:
    """Both players hold two dishes (Cheri on C3 in round 1, on A1 in round 2): both choose."""
    m = match(first=[("Cheri", 4)], game=game, **overrides)  # type: ignore[arg-type]
    both(m, "send 2 workers to Cheri", "send 2 workers to Cheri")
    play_to_final(m, ["C3", "A1"], ["C3", "A1"])
    assert phase(m) is Phase.FINAL_CHOICE and GAME.status(m.state).awaiting == {A, B}
    return m


def test_ck6_rules_version_2_is_current_and_version_1_stays_selectable() -> None:
    """Revised CK-6 bumps Cookoff's rules version; the old rules (CK-P4) stay selectable by version."""
    assert GAME.rules_version == "2" and registry.get_game("cookoff") is GAME
    assert registry.get_game("cookoff", "2") is GAME
    assert registry.get_game("cookoff", "1") is V1 and V1.rules_version == "1"


def test_ck6_ck7_the_final_choice_runs_on_the_clock_base_time_then_the_reserve() -> None:
    """Revised CK-6 / CK-7: 120 s, then the reserve; choosing late spends reserve, recorded in the event."""
    m = to_final()
    opened = m.state.opened_at
    assert GAME.status(m.state).deadline == opened + 120 + 180
    m.now = opened + 150
    (received,) = say(m, A, "I choose dish 2.")
    assert received["reserve_used"] == 30 and received["reserve_left"] == 150
    events = say(m, B, "I choose dish 1.")
    (judged,) = events_of(events, "match_judged")
    assert judged["chosen"] == {A: 2, B: 1}
    assert replayed(m).seat(A).reserve == 150


def test_ck6_a_reserve_running_out_in_the_final_choice_loses_the_dm() -> None:
    """Revised CK-6: "If at any point you run out of reserve time, you lose the DM", the final choice too;
    nobody is judged on a default dish."""
    m = to_final()
    say(m, B, "I choose dish 1.")
    assert GAME.status(m.state).deadline == m.state.opened_at + 300
    events = m.advance(1000)
    assert [e["type"] for e in events] == ["time_expired"]
    (expired,) = events
    assert expired["players"] == [A] and expired["winner"] == B and expired["phase"] == "final_choice"
    assert expired["at"] == m.state.opened_at + 300
    assert "revised CK-6" in expired["trace"][-1]
    result = GAME.results(m.state)
    assert m.finished and result["winner"] == B and result["decision"] == "time"
    assert not events_of(m.events, "dish_defaulted")


def test_ck6_ckp2_both_reserves_running_out_in_the_final_choice_give_the_match_to_the_dmo() -> None:
    """Revised CK-6 with CK-P2: both clocks run out at once in the final choice: the DMO wins."""
    for dmo in (B, A):
        m = to_final(dmo=dmo)
        (expired,) = m.advance(1000)
        assert expired["type"] == "time_expired" and expired["players"] == [A, B] and expired["winner"] == dmo


def test_ck6_ckp3_a_dish_chosen_after_the_reserve_ran_out_finds_the_flag_fallen() -> None:
    """Revised CK-6 with CK-P3: a choice arriving after the chooser's reserve ran out is not taken."""
    m = to_final()
    say(m, B, "I choose dish 1.")
    m.now = m.state.opened_at + 301
    events = say(m, A, "I choose dish 2.")
    assert [e["type"] for e in events] == ["time_expired"] and events[0]["winner"] == B


def test_ckp4_withdrawn_rules_version_1_still_judges_a_lapsed_final_choice_on_the_latest_dish() -> None:
    """CK-P4 (withdrawn 2026-12-01, rules version 1): a match recorded under version 1 still decides its
    final choice the old way: base time only, no reserve spent, the latest dish by `dish_defaulted`."""
    m = to_final(game=V1)
    say(m, B, "I choose dish 1.")
    reserve = m.state.seat(A).reserve
    assert V1.status(m.state).deadline == m.state.opened_at + 120
    events = m.advance(500)
    (defaulted,) = events_of(events, "dish_defaulted")
    assert defaulted["player"] == A and defaulted["dish"] == 2
    (judged,) = events_of(events, "match_judged")
    assert judged["chosen"] == {A: 2, B: 1}
    assert m.state.seat(A).reserve == reserve and m.finished
    # The recorded events replay to the same end, under version 1 and under the current evolve alike.
    assert replayed(m) == m.state
    current = GAME.initial_state(m.cfg, m.seed)  # type: ignore[attr-defined]
    for event in m.events:
        current = GAME.evolve(current, event)
    assert GAME.results(current) == V1.results(m.state)
