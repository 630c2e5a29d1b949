"""MN-3 distribution, prospector, space abilities and thieves; negative gold."""

from __future__ import annotations

from mn_helpers import play, player, space, state_with

from engine.contract import Context
from engine.mining import GAME
from engine.mining.text import parse
from engine.rng import rng_for


def test_mn3_claimer_counts_as_two_shares_and_the_remainder_stays_on_the_space():
    """MN-3: shares = miners present with Claimers counting 2; floor(pile / shares) a share; the rest stays."""
    state = state_with({"A": {"c": 12}, "B": {"s": 11}}, piles={13: {"gold": 10}})
    result = play(state, B="move s 2")
    assert space(result, 13)["shares"] == 3
    assert player(result, "A").gold == 6  # two shares of 3
    assert player(result, "B").gold == 3
    assert space(result, 13)["pile_after"]["gold"] == 1
    assert result.piles[12][0] == 1


def test_mn3_remainder_left_on_the_space_is_there_for_the_next_round():
    """MN-3: the remainder stays for later rounds; the next round adds its income on top (7 + 2 on space 13)."""
    state = state_with({"A": {"c": 12}, "B": {"s": 11}}, piles={13: {"gold": 10}})
    ctx = Context(now=500.0, rng=rng_for(1, 0))
    given = GAME.decide(state, "A", parse("move b 1; move c 1; move p 1; move s 1; move t 1; end early", False), ctx)
    state = GAME.evolve(state, given[0])
    events = GAME.decide(state, "B", parse("move b 1; move c 1; move p 1; move s 2; move t 1; end early", False), ctx)
    assert [e["type"] for e in events] == ["orders_submitted", "round_resolved", "round_opened"]
    assert events[2]["piles"][12]["gold"] == 1 + 7 + 2


def test_mn3_prospector_gains_one_of_each_resource_whose_primary_share_was_not_zero():
    """MN-3: +1 gold if its gold share was non-zero, +1 of each crystal colour whose share was non-zero."""
    state = state_with({"A": {"p": 50}, "B": {"c": 50}}, piles={1: {"r": 3, "y": 6}})
    result = play(state)
    a = player(result, "A")
    assert (a.crystal("r"), a.crystal("y"), a.gold) == (1 + 1, 2 + 1, 0)
    assert space(result, 1)["bonus"] == {"A-P": {"r": 1, "y": 1}}
    b = player(result, "B")
    assert (b.crystal("r"), b.crystal("y")) == (2, 4)


def test_mn3_prospector_bonus_only_from_the_primary_distribution_not_from_scavenging():
    """MN-3 (the text's edit): a prospector whose primary shares were 0 gets no bonus, even when it
    then scavenges the pile."""
    state = state_with(
        {"A": {"p": 50}, "B": {"c": 50, "s": 50}},
        piles={1: {"r": 3, "y": 3}},
        levels={"A": {"p": {"r": 1}}},
    )
    result = play(state)
    a = player(result, "A")
    assert (a.crystal("r"), a.crystal("y")) == (3, 3)  # scavenged, no +1
    assert space(result, 1)["bonus"] == {}


def test_mn3_prospector_on_the_prospector_space_earns_share_bonus_and_ability():
    """MN-3 and space 9: 14 gold alone, +1 prospector bonus, +1 space ability, both from the bank."""
    state = state_with({"A": {"p": 8}}, piles={9: {"gold": 14}})
    result = play(state)
    assert player(result, "A").gold == 16
    assert space(result, 9)["pile_after"]["gold"] == 0


def test_space_ability_gives_every_miner_of_the_role_one_gold_from_the_bank():
    """Space 6: all Bullies there earn 1 extra gold; space 3: all Claimers."""
    state = state_with({"A": {"b": 5, "c": 2}, "B": {"b": 5}}, piles={6: {"gold": 12}, 3: {"gold": 6}})
    result = play(state)
    assert player(result, "A").gold == 6 + 1 + 6 + 1
    assert player(result, "B").gold == 6 + 1


def test_mn3_thief_takes_one_gold_from_every_other_players_miner_on_its_space():
    """MN-3: a thief takes 1 gold from each other player's miner on its space, from the owner's total."""
    state = state_with({"A": {"t": 12}, "B": {"c": 12, "s": 12}}, gold={"B": 5})
    result = play(state)
    assert player(result, "A").gold == 2
    assert player(result, "B").gold == 3
    assert space(result, 13)["steals"] == [{"thief": "A-T", "from": "B-C"}, {"thief": "A-T", "from": "B-S"}]


def test_mn3_thief_does_not_steal_from_its_own_players_miners():
    """MN-3: other players' miners only."""
    state = state_with({"A": {"t": 12, "c": 12}}, gold={"A": 5})
    assert player(play(state), "A").gold == 5


def test_mn3_miner_with_strictly_greater_dexterity_than_the_thief_is_not_stolen_from():
    """MN-3: strictly greater Dexterity is immune; equal Dexterity is not."""
    state = state_with(
        {"A": {"t": 12}, "B": {"c": 12, "s": 12}},
        levels={"A": {"t": {"y": 1}}, "B": {"c": {"y": 2}, "s": {"y": 1}}},
    )
    result = play(state)
    assert player(result, "A").gold == 1
    assert space(result, 13)["steals"] == [{"thief": "A-T", "from": "B-S"}]
    assert any("B-C Dexterity 2 is strictly greater than A-T's 1" in line for line in result.trace)


def test_thief_steals_after_movement_from_the_miners_on_its_new_space():
    """Clarification: the Thief's ability takes place after movement."""
    state = state_with({"A": {"t": 12}, "B": {"c": 13, "s": 11}})
    result = play(state, B="move s 2")  # B-C leaves space 13; B-S arrives
    assert space(result, 13)["steals"] == [{"thief": "A-T", "from": "B-S"}]


def test_two_thieves_on_one_space_steal_from_each_other():
    """MN-3: each thief steals from every other player's miner, including another thief."""
    state = state_with({"A": {"t": 12}, "B": {"t": 12}})
    result = play(state)
    assert len(space(result, 13)["steals"]) == 2
    assert player(result, "A").gold == player(result, "B").gold == 0


def test_gold_may_go_negative():
    """MN-3 and the text: players can go into negative gold."""
    state = state_with({"A": {"t": 12}, "B": {"c": 12, "s": 12}})
    result = play(state)
    assert player(result, "B").gold == -2


def test_everything_a_miner_earns_goes_to_its_player():
    """Rule text: everything a Miner earns in a round goes to its player (several miners add up)."""
    state = state_with({"A": {"c": 12, "s": 11, "p": 12}}, piles={13: {"gold": 20}})
    result = play(state, A="move s 2")
    assert player(result, "A").gold == 20 - 20 % 4 + 1  # 4 shares of 5, prospector +1
