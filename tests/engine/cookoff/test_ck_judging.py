"""Judging (CK-6): flavour chains, size, cook bands, ties, no dish, and the final decision."""

from __future__ import annotations

from fractions import Fraction

import pytest
from ck_helpers import JUDGES, A, B, both, events_of, finish_round, match, phase, play_to_final, say, to_phase

from engine.contract import Viewer
from engine.cookoff import GAME
from engine.cookoff.config import Judge, parse_config
from engine.cookoff.scoring import JudgeVerdict, final_decision, flavour_chain, judge_one, score_dish
from engine.cookoff.state import Dish, DishBerry, Phase
from engine.errors import RuleViolation
from engine.match import LocalMatch

CONFIG = parse_config(GAME.default_config([A, B]))


def dish(*berries: tuple[str, str, int], number: int = 1) -> Dish:
    return Dish(number, 1, tuple(DishBerry(sq, name, cook) for sq, name, cook in berries))


def test_ck1_potencies_are_the_canonical_values_divided_by_ten() -> None:
    """CK-1: Liechi is spicy 3, dry 1, sweet 3; a berry has every flavour whose value is non-zero."""
    liechi = CONFIG.berry("Liechi")
    assert liechi.flavours == (3, 1, 3, 0, 0)
    assert CONFIG.berry("Cheri").potency("spicy") == 1 and CONFIG.berry("Cheri").potency("sour") == 0


def test_ck6_flavour_chain_is_the_largest_group_by_count() -> None:
    """CK-6: the largest connected group having the flavour wins by count, even with less potency."""
    d = dish(("A1", "Pecha", 4), ("A2", "Pecha", 4), ("A3", "Pecha", 4), ("C1", "Liechi", 4), ("D1", "Liechi", 4))
    chain, potency = flavour_chain(d, "sweet", CONFIG)
    assert [b.square for b in chain] == ["A1", "A2", "A3"] and potency == 3


def test_ck6_flavour_chain_ties_on_count_are_broken_by_potency() -> None:
    """CK-6: equal counts: the group with the larger potency sum."""
    d = dish(("A1", "Pecha", 4), ("A2", "Pecha", 4), ("C1", "Liechi", 4), ("D1", "Salac", 4))
    chain, potency = flavour_chain(d, "sweet", CONFIG)
    assert [b.square for b in chain] == ["C1", "D1"] and potency == 6


def test_ck6_burned_berries_have_no_flavour_and_break_chains() -> None:
    """CK-2 / CK-6: a burned berry (cook 8+) has no flavour."""
    d = dish(("A1", "Pecha", 4), ("A2", "Liechi", 8), ("A3", "Pecha", 4))
    chain, potency = flavour_chain(d, "sweet", CONFIG)
    assert len(chain) == 1 and potency == 1


def test_ck6_opposite_potency_zero_counts_as_one() -> None:
    """CK-6 / clarification: an opposite potency of 0 counts as 1, so the score is finite."""
    sweet = Judge("flavour", "sweet")  # opposite: spicy
    score = score_dish(sweet, dish(("A1", "Pecha", 4), ("A2", "Magost", 4)), CONFIG)
    assert score.value == Fraction(3, 1)
    assert "opposite 0 counts as 1" in score.lines[0]
    with_spicy = score_dish(sweet, dish(("A1", "Pecha", 4), ("A2", "Magost", 4), ("B1", "Tamato", 4)), CONFIG)
    assert with_spicy.value == Fraction(3, 2)


def test_ck6_flavour_opposites_follow_the_rule_texts_cycle() -> None:
    """Rule text: spicy->bitter, dry->sour, sweet->spicy, bitter->dry, sour->sweet."""
    bitter = Judge("flavour", "bitter")
    # Rawst is bitter 1; Chesto is dry 1 (the opposite of bitter)
    assert score_dish(bitter, dish(("A1", "Rawst", 4), ("A2", "Chesto", 4)), CONFIG).value == 1
    assert score_dish(bitter, dish(("A1", "Rawst", 4), ("A2", "Cheri", 4)), CONFIG).value == 1
    assert score_dish(Judge("flavour", "spicy"), dish(("A1", "Cheri", 4), ("A2", "Rawst", 4)), CONFIG).value == 1


def test_ck6_size_judge_lower_distance_to_perfect_wins() -> None:
    """CK-6 / clarification: size score |size - perfect|, lower is better."""
    small = Judge("size", "small")
    three = dish(("A1", "Pecha", 4), ("A2", "Pecha", 4), ("A3", "Pecha", 4))
    six = dish(*[(f"A{i}", "Pecha", 4) for i in range(1, 6)], ("B1", "Pecha", 4))
    verdict = judge_one(1, small, [A, B], [three, six], CONFIG)
    assert verdict.scores == ("1", "2") and verdict.winner == A


def test_ck6_cook_judge_counts_desired_against_opposite_band_with_zero_as_one() -> None:
    """CK-6: cook score = tiles of the desired band / tiles of the opposite band (0 counts as 1)."""
    medium = Judge("cook", "medium")  # opposite: slightly raw
    assert score_dish(medium, dish(("A1", "Pecha", 4), ("A2", "Pecha", 5), ("A3", "Pecha", 3)), CONFIG).value == 2
    assert score_dish(medium, dish(("A1", "Pecha", 4), ("A2", "Pecha", 5), ("A3", "Pecha", 1)), CONFIG).value == 2
    raw = Judge("cook", "raw")  # opposite: well done; burned counts as neither
    assert score_dish(
        raw, dish(("A1", "Pecha", 1), ("A2", "Pecha", 6), ("A3", "Pecha", 7), ("A4", "Pecha", 9)), CONFIG
    ).value == Fraction(1, 2)


def test_ck6_equal_scores_mean_nobody_wins_that_judge() -> None:
    """CK-6: a judge with equal scores is won by nobody."""
    d = dish(("A1", "Pecha", 4))
    verdict = judge_one(1, Judge("size", "small"), [A, B], [d, d], CONFIG)
    assert verdict.winner is None and any("nobody" in line for line in verdict.lines)


def test_ck6_a_player_with_no_dish_loses_every_judge() -> None:
    """CK-6: no dish loses every judge; when neither has one, nobody wins it."""
    d = dish(("A1", "Rawst", 9))  # burned and far from every ideal: still beats no dish
    for judge in (Judge("flavour", "sweet"), Judge("size", "large"), Judge("cook", "raw")):
        assert judge_one(1, judge, [A, B], [None, d], CONFIG).winner == B
        assert judge_one(1, judge, [A, B], [None, None], CONFIG).winner is None


def verdicts(*winners: str | None) -> list[JudgeVerdict]:
    return [JudgeVerdict(i + 1, Judge("size", "small"), ("0", "0"), w, (), (None, None)) for i, w in enumerate(winners)]


def test_ck6_final_decision_two_judges_win() -> None:
    """CK-6 / rule text: the player who wins two of three judges wins, even against judge one."""
    assert final_decision(verdicts(A, B, B), [A, B], A)[:2] == (B, "two judges")


def test_ck6_final_decision_otherwise_judge_ones_winner() -> None:
    """CK-6: no one has two judges: the winner of the first judge revealed wins."""
    assert final_decision(verdicts(A, B, None), [A, B], B)[:2] == (A, "judge one")
    assert final_decision(verdicts(B, None, None), [A, B], A)[:2] == (B, "judge one")


def test_ck6_final_decision_otherwise_the_dmo() -> None:
    """CK-6: judge one won by nobody and no one has two: the DMO wins."""
    assert final_decision(verdicts(None, A, B), [A, B], A)[:2] == (A, "dmo")
    assert final_decision(verdicts(None, None, None), [A, B], B)[:2] == (B, "dmo")


# ------------------------------------------------------------- in a played match


def judged_match(judges: list[dict[str, str]] | None = None, **kw: object) -> LocalMatch:
    return match(judges=judges or JUDGES, **kw)


def test_ck6_judges_are_revealed_at_the_start_after_round_5_and_after_round_10() -> None:
    """Rule text / CK-6, CK-P11: judge 1 at the start, judge 2 after round 5, judge 3 after round 10."""
    m = judged_match()
    assert m.state.revealed == 1
    for round_ in range(1, 11):
        to_phase(m, Phase.REMOVAL, round_)
        before = m.state.revealed
        finish_round(m)
        if round_ == 5:
            assert (before, m.state.revealed) == (1, 2)
        elif round_ == 10:
            assert (before, m.state.revealed) == (2, 3)
        else:
            assert m.state.revealed == before


def _unrevealed_absent(m: LocalMatch, seen: list[dict[str, object]]) -> None:
    import json

    hidden = [Judge(**j).criterion() for j in JUDGES_HIDDEN[m.state.revealed :]]
    for viewer in (Viewer.of(A), Viewer.of(B), Viewer.spectator()):
        view = GAME.view(m.state, viewer)
        assert len(view["judges"]) == m.state.revealed
        text = json.dumps(view) + json.dumps(seen)
        for criterion in hidden:
            assert criterion not in text


JUDGES_HIDDEN = [
    {"family": "size", "want": "large"},
    {"family": "flavour", "want": "sour"},
    {"family": "cook", "want": "well done"},
]


def test_ck6_a_judges_criterion_is_absent_from_views_and_redacted_events_before_its_reveal() -> None:
    """CK-6 / hidden information: an unrevealed judge reaches no player or spectator (the host sees all)."""
    m = judged_match(JUDGES_HIDDEN)
    for viewer in (Viewer.of(A), Viewer.spectator()):
        redacted = []
        state = GAME.initial_state(m.cfg, m.seed)  # type: ignore[attr-defined]
        for event in m.events:
            shown = GAME.redact(state, event, viewer)
            if shown is not None:
                redacted.append(shown)
            state = GAME.evolve(state, event)
        _unrevealed_absent(m, redacted)
        assert all(e["type"] != "match_prepared" for e in redacted)
    host = GAME.view(m.state, Viewer.host())
    assert [j["criterion"] for j in host["judges"]] == [Judge(**j).criterion() for j in JUDGES_HIDDEN]
    to_phase(m, Phase.GATHERING, 6)
    _unrevealed_absent(m, [])
    assert [j["want"] for j in GAME.view(m.state, Viewer.of(B))["judges"]] == ["large", "sour"]


def test_ck6_judges_drawn_from_the_seed_are_one_of_each_family() -> None:
    """CK-6: unless the host sets them, one judge per family with a random parameter and order."""
    families = set()
    for seed in range(6):
        m = LocalMatch(GAME, GAME.default_config([A, B]), seed)
        judges = m.events[0]["judges"]
        assert sorted(j["family"] for j in judges) == ["cook", "flavour", "size"]
        families.add(judges[0]["family"])
    assert len(families) > 1


def test_ck6_ckp5_final_choice_judges_the_chosen_dish_and_dishes_are_numbered_in_removal_order() -> None:
    """CK-6 / CK-P5: only players with two dishes or more choose (numbered 1.. in the order removed)."""
    m = match(first=[("Cheri", 4)])
    both(m, "send 4 workers to Cheri")
    play_to_final(m, ["C3", "A1"], [])
    assert phase(m) is Phase.FINAL_CHOICE
    assert GAME.status(m.state).awaiting == frozenset({A})  # bob has no dish: nothing to choose
    with pytest.raises(RuleViolation, match="no dish 3"):
        say(m, A, "I choose dish 3.")
    events = say(m, A, "I choose dish 1.")
    (judged,) = events_of(events, "match_judged")
    assert judged["chosen"] == {A: 1, B: None}
    assert judged["winner"] == A and judged["decision"] == "two judges"
    assert all(j["winner"] == A for j in judged["judges"])
    result = GAME.results(m.state)
    assert result["winner"] == A and result["chosen"] == {A: 1, B: None}
    assert [r["rank"] for r in result["results"]] == [1, 2]


def test_ck6_berries_left_in_a_pot_are_discarded_and_no_dish_loses() -> None:
    """CK-6: berries still in a pot at the end are discarded; a player with no dish loses every judge."""
    m = match(first=[("Cheri", 4)])
    both(m, "send 2 workers to Cheri", "send 2 workers to Cheri")
    both(m, "place Cheri on C3", "place Cheri on A1")
    both(m, "pass")
    both(m, "pass")
    both(m, "pass", "remove the dish on A1")
    for _ in range(14):
        finish_round(m)
    assert m.finished
    result = GAME.results(m.state)
    assert result["winner"] == B and result["chosen"] == {A: None, B: 1}
    assert [j["scores"][A] for j in result["judges"]] == ["-", "-", "-"]


def test_ck6_the_dmo_wins_when_judge_one_is_tied_and_nobody_has_two() -> None:
    """CK-6: judge one (size) tied, judges two and three split: the DMO (default: bob) wins."""
    judges = [
        {"family": "size", "want": "small"},
        {"family": "flavour", "want": "sweet"},
        {"family": "flavour", "want": "spicy"},
    ]
    m = match(first=[("Cheri", 4), ("Pecha", 4)], judges=judges)
    both(m, "send 1 worker to Cheri", "send 1 worker to Pecha")
    play_to_final_with(m, "place Cheri on A1", "place Pecha on A1")
    result = GAME.results(m.state)
    assert [j["winner"] for j in result["judges"]] == [None, B, A]
    assert result["winner"] == B and result["decision"] == "dmo"


def test_ck6_one_judge_to_none_with_judge_one_tied_goes_to_the_dmo() -> None:
    """CK-6's last clause when the only judge won is not the first: ann wins judge two, judges one and
    three are tied. Nobody has two judges and judge one has no winner, so the DMO (default: bob) wins, as
    the text's tie-break reads ("in case of a tie, the winner of the first judge wins the match; in case
    this is also a tie, the DMO wins"), although bob won no judge."""
    assert final_decision(verdicts(None, A, None), [A, B], B)[:2] == (B, "dmo")
    assert final_decision(verdicts(None, None, B), [A, B], A)[:2] == (A, "dmo")
    judges = [
        {"family": "size", "want": "small"},
        {"family": "flavour", "want": "sweet"},
        {"family": "flavour", "want": "dry"},
    ]
    m = match(first=[("Cheri", 4), ("Pecha", 4)], judges=judges)
    both(m, "send 1 worker to Pecha", "send 1 worker to Cheri")
    play_to_final_with(m, "place Pecha on A1", "place Cheri on A1")
    result = GAME.results(m.state)
    # size: 1 tile each, tied; sweet: Pecha 1/1 vs Cheri 0/1 -> ann; dry: 0/1 each, tied
    assert [j["winner"] for j in result["judges"]] == [None, A, None]
    assert result["winner"] == B and result["decision"] == "dmo"


def test_ck6_judge_ones_winner_wins_when_nobody_has_two() -> None:
    """CK-6: judge one won by ann, judge two tied, judge three won by bob: ann wins."""
    judges = [
        {"family": "size", "want": "small"},
        {"family": "flavour", "want": "sweet"},
        {"family": "flavour", "want": "dry"},
    ]
    m = match(first=[("Cheri", 4), ("Chesto", 4)], judges=judges)
    both(m, "send 1 worker to Cheri", "send 1 worker to Chesto")
    play_to_final_with(m, "place Cheri on A1. place Cheri on A2", "place Chesto on A1")
    result = GAME.results(m.state)
    # size: |2-4| = 2 vs |1-4| = 3 -> ann; no sweet anywhere: 0/1 each, tied; dry: 0/1 vs 1/1 -> bob
    assert [j["winner"] for j in result["judges"]] == [A, None, B]
    assert result["winner"] == A and result["decision"] == "judge one"


def play_to_final_with(m: LocalMatch, place_a: str, place_b: str) -> None:
    both(m, place_a, place_b)
    both(m, "pass")
    both(m, "pass")
    squares_a = ", ".join(s.split(" on ")[1] for s in place_a.split(". "))
    squares_b = ", ".join(s.split(" on ")[1] for s in place_b.split(". "))
    both(m, f"remove the dish on {squares_a}", f"remove the dish on {squares_b}")
    for _ in range(14):
        finish_round(m)
    assert m.finished


def test_ckp8_size_counts_burned_tiles_and_the_cook_judge_counts_them_in_neither_band() -> None:
    """CK-P8: a burned berry is still a tile of the dish (size) but has no cook band (CK-2)."""
    d = dish(("A1", "Pecha", 9), ("A2", "Pecha", 8), ("A3", "Pecha", 1))
    assert score_dish(Judge("size", "small"), d, CONFIG).value == 1
    assert score_dish(Judge("cook", "well done"), d, CONFIG).value == 0
    assert score_dish(Judge("cook", "raw"), d, CONFIG).value == 1
