"""Clocks (CK-7): base time per phase, then the reserve; a player whose reserve runs out loses at once."""

from __future__ import annotations

from ck_helpers import A, B, both, events_of, match, phase, replayed, say

from engine.contract import Viewer
from engine.cookoff import GAME
from engine.cookoff.state import Phase


def test_ck7_default_phase_times_and_reserve() -> None:
    """CK-7: 60/90/45/45/30 s per phase, 120 s final choice, 180 s reserve."""
    cfg = GAME.default_config([A, B])
    assert cfg["times"] == {
        "gathering": 60,
        "placement": 90,
        "sabotage": 45,
        "moves": 45,
        "removal": 30,
        "final_choice": 120,
    }
    assert cfg["reserve"] == 180


def test_ck7_the_deadline_is_the_phase_base_plus_the_reserve_of_whoever_is_still_to_submit() -> None:
    """CK-7: status().deadline is the earliest clock to run out among the players still to submit."""
    m = match()
    assert GAME.status(m.state).deadline == 0 + 60 + 180
    clock = GAME.view(m.state, Viewer.of(A))["clock"]
    assert clock["base_deadline"] == 60 and clock["reserve"] == {A: 180, B: 180}
    assert clock["deadlines"] == {A: 240, B: 240}


def test_ck7_time_beyond_the_base_is_taken_from_the_reserve_and_recorded() -> None:
    """CK-7: a submission after the base time spends reserve; the event records time and reserve used."""
    m = match()
    m.advance(70)
    (event,) = say(m, A, "pass")
    assert (event["at"], event["reserve_used"], event["reserve_left"]) == (70, 10, 170)
    m.advance(30)
    events = say(m, B, "pass")
    assert events[0]["reserve_used"] == 40
    opened = events_of(events, "phase_opened")[0]
    assert (opened["phase"], opened["at"], opened["base_deadline"]) == ("placement", 100, 190)
    assert GAME.status(m.state).deadline == min(100 + 90 + 170, 100 + 90 + 140)
    assert GAME.view(m.state, Viewer.spectator())["clock"]["reserve"] == {A: 170, B: 140}


def test_ck7_submitting_within_the_base_time_spends_no_reserve() -> None:
    """CK-7: the base time comes first."""
    m = match()
    m.advance(60)
    (event,) = say(m, A, "pass")
    assert event["reserve_used"] == 0 and m.state.seat(A).reserve == 180


def test_ck7_with_one_player_submitted_the_deadline_is_the_other_players_clock() -> None:
    """CK-7: one has submitted, the other has not: the phase's deadline is the latecomer's own clock."""
    m = match()
    m.advance(70)
    say(m, A, "pass")  # ann now has 170 s of reserve, but she is done in this phase
    assert GAME.status(m.state).deadline == 240
    assert GAME.view(m.state, Viewer.of(B))["clock"]["deadlines"] == {B: 240}


def test_ck7_a_player_losing_on_reserve_time_ends_the_match_and_the_other_wins() -> None:
    """CK-7: bob spends his reserve over several phases while ann keeps playing; when his clock runs out
    he loses at once and ann wins."""
    m = match()
    spent = 0
    while True:
        say(m, A, "pass")
        base = m.state.config.time(m.state.phase.value)
        if m.state.seat(B).reserve < 50:
            break
        m.advance(base + 50)
        say(m, B, "pass")
        spent += 50
    assert spent == 150 and m.state.seat(B).reserve == 30
    opened, base = m.state.opened_at, m.state.config.time(m.state.phase.value)
    assert GAME.status(m.state).deadline == opened + base + 30
    events = m.advance(base + 30)
    (expired,) = events_of(events, "time_expired")
    assert expired["players"] == [B] and expired["winner"] == A and expired["at"] == opened + base + 30
    assert any("CK-7" in line for line in GAME.explain(expired))
    assert m.finished and GAME.status(m.state).deadline is None
    result = GAME.results(m.state)
    assert result["winner"] == A and result["decision"] == "time" and result["lost_on_time"] == [B]
    assert [(r["player"], r["rank"]) for r in result["results"]] == [(A, 1), (B, 2)]


def test_ck7_the_clock_state_is_rebuilt_exactly_at_any_version() -> None:
    """CK-7 / event sourcing: phase opening times, reserves and deadlines fold back from the events."""
    m = match(first=[("Cheri", 4)])
    seen = []
    for step, (a, b) in enumerate([(5, 70), (95, 3), (10, 50), (47, 1), (31, 33), (12, 64)]):
        m.advance(a)
        say(m, A, "send 2 workers to Cheri" if step == 0 else "pass")
        seen.append((len(m.events), m.state, GAME.status(m.state)))
        m.advance(b)
        say(m, B, "pass")
        seen.append((len(m.events), m.state, GAME.status(m.state)))
    for version, state, status in seen:
        rebuilt = replayed(m, version)
        assert rebuilt == state and GAME.status(rebuilt) == status


def test_ckp2_both_clocks_running_out_together_give_the_match_to_the_dmo() -> None:
    """CK-P2: when both players' reserves run out at the same moment, the DMO wins."""
    m = match()
    (expired,) = events_of(m.advance(1000), "time_expired")
    assert expired["players"] == [A, B] and expired["winner"] == B and expired["at"] == 240
    m2 = match(dmo=A)
    assert events_of(m2.advance(1000), "time_expired")[0]["winner"] == A


def test_ckp3_a_submission_arriving_after_the_clock_ran_out_finds_the_flag_fallen() -> None:
    """CK-P3: a submission after the submitter's clock ran out is not taken: the player has lost."""
    m = match()
    say(m, B, "pass")
    m.now = 300.0  # the server's ticker has not run yet
    events = say(m, A, "pass")
    assert [e["type"] for e in events] == ["time_expired"]
    assert events[0]["players"] == [A] and events[0]["winner"] == B and events[0]["at"] == 240


def test_ck7_short_clocks_are_configurable() -> None:
    """CK-7: times are per-match configuration (bots play with short clocks)."""
    times = {"gathering": 1, "placement": 1, "sabotage": 1, "moves": 1, "removal": 1, "final_choice": 1}
    m = match(times=times, reserve=2)
    assert GAME.status(m.state).deadline == 3
    both(m, "pass")
    assert phase(m) is Phase.PLACEMENT
    assert events_of(m.advance(3), "time_expired")[0]["at"] == 3
