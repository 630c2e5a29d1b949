"""Gathering: the seeded tree schedule and the harvest division (CK-5)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from ck_helpers import A, B, both, events_of, gather, inventory, match, say

from engine.cookoff import GAME
from engine.cookoff.config import parse_config
from engine.cookoff.rules import draw_schedule
from engine.cookoff.state import Phase
from engine.errors import RuleViolation
from engine.match import LocalMatch


@pytest.mark.parametrize("seed", range(8))
def test_ck5_schedule_has_each_berry_three_times_once_per_quantity_never_twice_in_a_round(seed: int) -> None:
    """CK-5: 90 tree slots (30 berries x 3, one of each listed quantity) shuffled into 15 rounds of 6."""
    config = parse_config(GAME.default_config([A, B]))
    rounds = draw_schedule(config, random.Random(seed))
    assert len(rounds) == 15 and all(len(r) == 6 for r in rounds)
    for trees in rounds:
        assert len({t.berry for t in trees}) == 6
    seen = Counter((t.berry, t.quantity) for r in rounds for t in r)
    for berry in config.berries:
        assert Counter({(berry.name, q): n for q, n in Counter(berry.quantities).items()}) == Counter(
            {k: v for k, v in seen.items() if k[0] == berry.name}
        )


def test_ck5_schedule_is_drawn_from_the_seed_and_recorded_in_the_opening_event() -> None:
    """CK-5: the schedule comes from the match seed, so the same seed gives the same trees."""
    cfg = GAME.default_config([A, B])
    first = LocalMatch(GAME, cfg, 42).events[0]
    again = LocalMatch(GAME, cfg, 42).events[0]
    other = LocalMatch(GAME, cfg, 43).events[0]
    assert first["type"] == "match_prepared" and len(first["schedule"]) == 15
    assert first == again and first["schedule"] != other["schedule"]


def test_ck5_only_the_current_rounds_trees_are_revealed() -> None:
    """CK-5: a round's trees are revealed only at its start, by their own event."""
    m = match(first=[("Oran", 3), ("Cheri", 4)])
    revealed = events_of(m.events, "trees_revealed")
    assert [e["round"] for e in revealed] == [1]
    assert [t["berry"] for t in revealed[0]["trees"]][:2] == ["Oran", "Cheri"]


def test_ck5_mixed_harvesters_on_one_tree_share_by_floor_division() -> None:
    """CK-5: each harvester gets floor(quantity / all harvesters at that tree, both players'); rest lost."""
    m = match(first=[("Oran", 3), ("Cheri", 4), ("Pecha", 2)])
    events = both(
        m,
        "I will send 2 workers to the Oran tree. I will send 2 workers to the Cheri tree.",
        "I will send 1 worker to the Oran tree. I will send 1 worker to the Cheri tree. Send 2 to Pecha.",
    )
    (harvest,) = events_of(events, "harvest_resolved")
    trees = {t["berry"]: t for t in harvest["trees"]}
    assert trees["Oran"]["each"] == 1 and trees["Oran"]["gained"] == {A: 2, B: 1} and trees["Oran"]["lost"] == 0
    assert trees["Cheri"]["each"] == 1 and trees["Cheri"]["gained"] == {A: 2, B: 1} and trees["Cheri"]["lost"] == 1
    assert trees["Pecha"]["each"] == 1 and trees["Pecha"]["gained"] == {A: 0, B: 2}
    assert inventory(m, A) == {"Oran": 2, "Cheri": 2}
    assert inventory(m, B) == {"Oran": 1, "Cheri": 1, "Pecha": 2}
    assert any("floor(4/3) = 1" in line for line in GAME.explain(harvest))


def test_ck5_a_lone_harvester_takes_the_whole_tree_and_too_many_get_nothing() -> None:
    """CK-5: 1 harvester on a 4-tree takes 4; 3 harvesters on a 2-tree get floor(2/3) = 0 each."""
    m = match(first=[("Cheri", 4), ("Leppa", 2)])
    both(m, "send 1 worker to Cheri. send 3 workers to Leppa", "send 0 workers to Leppa")
    assert inventory(m, A) == {"Cheri": 4}


def test_ck5_inventories_persist_and_gathered_berries_may_be_placed_the_same_turn() -> None:
    """CK-5: berries gathered in a turn may be placed in that turn; inventories persist across turns."""
    m = match(first=[("Cheri", 4)])
    gather(m, "send 1 worker to Cheri")
    say(m, A, "I will place a Cheri berry on C3.")
    say(m, B, "pass")
    assert inventory(m, A) == {"Cheri": 3}
    assert m.state.seat(A).pot[12] is not None


def test_ck5_more_than_four_harvesters_are_refused_and_change_nothing() -> None:
    """CK-5 / CK-5b: a player controls 4 harvesters; the refusal names the problem, nothing changes."""
    m = match(first=[("Oran", 3), ("Cheri", 4)])
    before, count = m.state, len(m.events)
    with pytest.raises(RuleViolation, match="5 harvesters"):
        say(m, A, "send 3 workers to Oran. send 2 workers to Cheri.")
    assert m.state == before and len(m.events) == count


def test_ck5_a_tree_not_in_this_round_is_refused_without_naming_future_trees() -> None:
    """CK-5: only this round's trees may be harvested; the error lists only what is public."""
    m = match(first=[("Oran", 3)])
    later = m.state.schedule[1][0].berry
    with pytest.raises(RuleViolation) as info:
        say(m, A, f"send 1 worker to {later}")
    assert "not a tree of round 1" in str(info.value)
    assert all(t.berry not in str(info.value) for t in m.state.schedule[1] if t.berry != later)


def test_ck5_assignments_are_sealed_until_both_players_sent() -> None:
    """CK-4: gathering assignments are sealed; the opponent and spectators see only that one was made."""
    from engine.contract import Viewer

    m = match(first=[("Oran", 3)])
    (event,) = say(m, A, "send 4 workers to Oran")
    for viewer in (Viewer.of(B), Viewer.spectator()):
        seen = GAME.redact(m.state, event, viewer)
        assert seen is not None and "command" not in seen and seen["sealed"] is True
        assert GAME.view(m.state, viewer)["players"][A]["pending"] is None
    assert GAME.redact(m.state, event, Viewer.of(A)) == event
    assert GAME.view(m.state, Viewer.of(A))["players"][A]["pending"]["type"] == "SendHarvesters"
    assert m.state.phase is Phase.GATHERING


def test_ckp7_a_tree_named_twice_is_refused_and_zero_harvesters_may_be_sent() -> None:
    """CK-P7: each tree once per submission; '0 workers' to a tree is the same as not naming it."""
    m = match(first=[("Oran", 3), ("Cheri", 4)])
    with pytest.raises(RuleViolation, match="name each tree once"):
        say(m, A, "send 1 worker to Oran. send 1 worker to Oran.")
    events = both(m, "send 0 workers to Oran. send 1 worker to Cheri", "pass")
    trees = {t["berry"]: t for t in events_of(events, "harvest_resolved")[0]["trees"]}
    assert trees["Oran"]["harvesters"] == {A: 0, B: 0} and inventory(m, A) == {"Cheri": 4}
