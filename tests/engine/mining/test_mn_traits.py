"""Traits (Scavenging, Exposure, Dexterity, Friendship), upgrades, and MN-4 garnet prices."""

from __future__ import annotations

import pytest
from mn_helpers import (
    ALL_ONE,
    ctx,
    play,
    player,
    space,
    state_with,
)

from engine.errors import RuleViolation
from engine.mining import GAME, rules
from engine.mining.text import parse


def test_scavenging_highest_level_splits_the_remainder_with_claimers_counting_one():
    """Scavenging: the highest level splits what is left evenly; Claimers count one; ties split evenly
    and further remainders stay on the space."""
    state = state_with(
        {"A": {"c": 12, "s": 12}, "B": {"s": 12}},
        piles={13: {"gold": 11}},
        levels={"A": {"c": {"r": 1}}, "B": {"s": {"r": 1}}},
    )
    result = play(state)  # 4 shares of 2, 3 left; A-C and B-S tie at level 1: 1 each, 1 stays
    assert player(result, "A").gold == 4 + 2 + 1
    assert player(result, "B").gold == 2 + 1
    assert space(result, 13)["scavenging"]["winners"] == ["A-C", "B-S"]
    assert space(result, 13)["pile_after"]["gold"] == 1


def test_scavenging_goes_only_to_the_highest_level():
    state = state_with(
        {"A": {"c": 12, "s": 12}, "B": {"s": 12}},
        piles={13: {"gold": 11}},
        levels={"A": {"c": {"r": 2}}, "B": {"s": {"r": 1}}},
    )
    result = play(state)
    assert player(result, "A").gold == 4 + 2 + 3
    assert space(result, 13)["pile_after"]["gold"] == 0


def test_scavenging_only_activates_when_non_zero():
    """Clarification: Scavenging only activates if it is non-zero."""
    state = state_with({"A": {"c": 12, "s": 12}, "B": {"s": 12}}, piles={13: {"gold": 11}})
    result = play(state)
    assert space(result, 13)["pile_after"]["gold"] == 3
    assert space(result, 13)["scavenging"]["winners"] == []


def test_exposure_ties_at_a_non_zero_level_all_gain_one_gold():
    """Clarification: miners tied for a non-zero Exposure all gain 1 gold."""
    state = state_with(
        {"A": {"c": 12, "s": 12}, "B": {"s": 12}},
        levels={"A": {"c": {"b": 2}, "s": {"b": 1}}, "B": {"s": {"b": 2}}},
    )
    result = play(state)
    assert (player(result, "A").gold, player(result, "B").gold) == (1, 1)
    assert space(result, 13)["exposure"] == {"level": 2, "winners": ["A-C", "B-S"]}


def test_exposure_at_level_zero_earns_nothing():
    state = state_with({"A": {"c": 12}, "B": {"s": 12}})
    assert space(play(state), 13)["exposure"]["winners"] == []


@pytest.mark.parametrize(("levels", "each"), [(6, 0), (7, 1), (14, 2)])
def test_friendship_per_seven_levels_on_a_space_gives_every_miner_there_one_gold(levels, each):
    """Edit: every seven Friendship levels on one space (all miners summed) give every miner there 1 gold;
    pinned at 6, 7 and 14 levels."""
    first = min(levels, 7)
    state = state_with(
        {"A": {"c": 12, "s": 12}, "B": {"s": 12}},
        levels={"A": {"c": {"g": first}}, "B": {"s": {"g": levels - first}}},
    )
    result = play(state)
    assert player(result, "A").gold == 2 * each
    assert player(result, "B").gold == each
    assert space(result, 13)["friendship"] == {"levels": levels, "gold_each": each}


def test_upgrade_costs_level_plus_one_crystals_of_the_colour():
    """Rule text: upgrading costs X+1 of the trait's crystal, X the current level."""
    state = state_with({}, crystals={"A": {"r": 3}}, levels={"A": {"c": {"r": 2}}})
    result = play(state, A="upgrade c r")
    assert player(result, "A").miner("c").level("r") == 3
    assert player(result, "A").crystal("r") == 0
    assert player(result, "A").garnets == 10


def test_mn4_garnet_substitution_costs_2_then_6_then_10():
    """MN-4: a crystal may be replaced by garnets: 2 for the first replacement, then 6, 10, ..."""
    state = state_with({}, garnets=20)
    result = play(state, A="upgrade c r; upgrade s r; upgrade p g")
    a = player(result, "A")
    assert a.garnets == 20 - 2 - 6 - 10
    assert a.replacements == 3
    assert rules.garnet_price(a.replacements) == 14
    assert any("paid 0 red crystals and 6 garnets for 1 missing crystal (MN-4)" in line for line in result.trace)


def test_mn4_garnet_prices_continue_over_the_match():
    """MN-4: the price counts the player's replacements over the whole match."""
    state = state_with({}, garnets=10, replacements={"A": 1})
    assert player(play(state, A="upgrade c r"), "A").garnets == 10 - 6


def test_mn_p2_crystals_are_spent_first_and_garnets_only_for_the_shortfall():
    """MN-P2: the player's crystals pay first; garnets replace only the crystals missing."""
    state = state_with({}, crystals={"A": {"b": 1}}, levels={"A": {"c": {"b": 1}}})
    a = player(play(state, A="upgrade c b"), "A")
    assert (a.crystal("b"), a.garnets, a.replacements) == (0, 8, 1)


def test_an_upgrade_the_player_cannot_pay_for_is_refused_with_the_cost_shown():
    """Text commands: an upgrade the player cannot pay for is refused, the cost shown (MN-4)."""
    state = state_with({}, garnets=7)
    command = parse(ALL_ONE + "; upgrade c r; upgrade s r", setup=False)
    with pytest.raises(RuleViolation) as refused:
        GAME.decide(state, "A", command, ctx())
    assert refused.value.rule == "MN-4"
    assert "costs 1 red crystal" in str(refused.value) and "6 garnets" in str(refused.value)


def test_mn5_crystals_won_in_a_round_cannot_be_spent_on_that_rounds_upgrades():
    """MN-5: upgrades are paid from what the player held when the round opened; a miner about to
    win red crystals cannot pay with them."""
    state = state_with({"A": {"c": 6}}, piles={7: {"r": 6}}, garnets=0)
    command = parse(ALL_ONE + "; upgrade c r", setup=False)
    with pytest.raises(RuleViolation):
        GAME.decide(state, "A", command, ctx())
    state = state_with({"A": {"c": 6}}, piles={7: {"r": 6}}, garnets=0, crystals={"A": {"r": 1}})
    a = player(play(state, A="upgrade c r"), "A")
    assert a.crystal("r") == 1 - 1 + 6


def test_each_trait_can_be_levelled_at_most_once_per_miner_per_round():
    """Rule text: for each miner, each trait can be levelled at most once per round."""
    state = state_with({}, crystals={"A": {"r": 5}})
    with pytest.raises(RuleViolation, match="at most once per round"):
        GAME.decide(state, "A", parse(ALL_ONE + "; upgrade c r; upgrade c r", setup=False), ctx())
    result = play(state, A="upgrade c r; upgrade s r")  # two miners, one trait each: fine
    assert player(result, "A").crystal("r") == 3


def test_traits_start_at_level_zero():
    state = GAME.initial_state(GAME.default_config(["A", "B"]), 1)
    assert all(m.levels == (0, 0, 0, 0) for p in state.players for m in p.miners)
