"""MN-1 round order, MN-2 bullies and movement, the circular board."""

from __future__ import annotations

from mn_helpers import ALL_ONE, new_match, play, space, state_with, where

from engine.mining import GAME


def test_mn1_round_opens_with_every_space_gaining_resources_and_gold_spaces_the_round_number():
    """MN-1 step 1: crystals as the table says; spaces that earn gold also gain the round number."""
    match = new_match(("A", "B"))
    match.expire()  # set-up defaults, round 1 opens
    opened = match.events[-1]
    assert opened["type"] == "round_opened" and opened["round"] == 1
    piles = opened["piles"]
    assert piles[0] == {"gold": 0, "r": 3, "b": 0, "y": 6, "g": 0}
    assert piles[2]["gold"] == 5 + 1 and piles[12]["gold"] == 7 + 1
    match.expire()  # round 1 at its deadline; round 2 opens
    assert match.events[-1]["income"][12]["gold"] == 7 + 2


def test_mn1_round_resolves_in_the_order_of_the_ruling():
    """MN-1: dexterity upgrades, movement, other upgrades, thieves, distribution, prospector, space
    abilities, scavenging, exposure, friendship."""
    state = state_with(
        {"A": {"t": 12, "p": 7}, "B": {"c": 12, "s": 11, "b": 8}},
        piles={13: {"gold": 11}, 9: {"gold": 9}},
        levels={"B": {"c": {"r": 1, "b": 1, "g": 7}}},
        crystals={"A": {"y": 1, "g": 1}},
    )
    result = play(state, A="upgrade t y; upgrade t g; move p 2", B="move s 2")
    marks = [
        "step 3",
        "step 4",
        "step 5",
        "thief",
        "distribution",
        "prospector",
        "ability",
        "Scavenging, space",
        "Exposure, space",
        "Friendship, space",
    ]
    firsts = [next(i for i, line in enumerate(result.trace) if mark in line) for mark in marks]
    assert firsts == sorted(firsts)


def test_mn2_bully_pushes_every_miner_of_every_player_on_its_starting_space_including_itself():
    """MN-2: `bully 1` adds one step to every miner starting the round on the bully's space, the bully
    included; a miner arriving from elsewhere is not pushed."""
    state = state_with({"A": {"b": 20, "c": 20}, "B": {"s": 20, "c": 19}})
    result = play(state, A="bully 1", B="move c 2")
    assert where(result, "A", "b") == where(result, "A", "c") == where(result, "B", "s") == 22
    assert where(result, "B", "c") == 21
    assert result.moves["B-S"]["bullied_by"] == ["A-B"]


def test_mn2_bully_0_or_absent_does_not_use_the_ability():
    """MN-2: 0 or absent: not used."""
    state = state_with({"A": {"b": 20, "c": 20}})
    assert where(play(state, A="bully 0"), "A", "c") == 21
    assert where(play(state), "A", "c") == 21


def test_mn2_stacking_bullies_each_add_a_step():
    """MN-2 and the text ("This stacks"): two bullies on one space push each miner there by 2."""
    state = state_with({"A": {"b": 20, "c": 20}, "B": {"b": 20}})
    result = play(state, A="bully 1", B="bully 1")
    assert where(result, "A", "c") == where(result, "A", "b") == where(result, "B", "b") == 23


def test_mn2_miner_with_strictly_greater_dexterity_is_not_pushed_and_equal_dexterity_is():
    """MN-1 step 4 / rule text: immune only with Dexterity strictly greater than the bully's."""
    state = state_with(
        {"A": {"b": 20}, "B": {"s": 20, "c": 20}},
        levels={"A": {"b": {"y": 1}}, "B": {"s": {"y": 2}, "c": {"y": 1}}},
    )
    result = play(state, A="bully 1")
    assert where(result, "B", "s") == 21
    assert where(result, "B", "c") == 22


def test_mn1_addendum_dexterity_upgrade_in_the_same_round_escapes_a_bully():
    """MN-1 step 3 (the addendum): a Dexterity upgrade applies before movement, so it can escape a
    bully in the same round; other upgrades apply after movement."""
    state = state_with({"A": {"b": 20}, "B": {"s": 20, "c": 20}}, crystals={"B": {"y": 1}})
    result = play(state, A="bully 1", B="upgrade s y")
    assert where(result, "B", "s") == 21  # Dexterity 1 > the bully's 0
    assert where(result, "B", "c") == 22  # not upgraded: pushed
    line = next(line for line in result.trace if "Dexterity 0 -> 1" in line)
    assert "step 3" in line


def test_mn5_a_bullys_extra_steps_may_take_a_move_past_the_maximum():
    """MN-5: a Scout moving 5 and bullied moves 6."""
    state = state_with({"A": {"b": 20}, "B": {"s": 20}})
    assert where(play(state, A="bully 1", B="move s 5"), "B", "s") == 26


def test_board_is_circular_space_15_plus_1_is_space_1():
    """Rule text: the board is circular and loops back to the start."""
    match = new_match(("A", "B"))
    match.submit_text("A", "start b 1; start c 2; start p 3; start s 14; start t 15; end early")
    match.submit_text("B", "start b 1; start c 2; start p 3; start s 4; start t 5; end early")
    match.submit_text("A", "move b 1; move c 1; move p 1; move s 2; move t 3; end early")
    match.submit_text("B", ALL_ONE + "; end early")
    a = match.state.player("A")
    assert (a.miner("s").space, a.miner("t").space) == (1, 3)


def test_miners_take_no_action_on_their_starting_space():
    """Setup: miners take nothing where they start; they act only on the spaces they move to."""
    match = new_match(("A", "B"))
    match.submit_text("A", "start b 13; start c 3; start p 9; start s 6; start t 12; end early")
    match.submit_text("B", "start b 1; start c 2; start p 4; start s 5; start t 7; end early")
    assert all(p.gold == 0 and p.crystals == (0, 0, 0, 0) for p in match.state.players)
    assert match.events[-1]["piles"][12]["gold"] == 8  # space 13 untouched by A-B on it


def test_ruling_trace_answers_why_a_miner_got_its_gold_on_a_space():
    """Ruling trace: for a space, the pile before and after, shares, takes, steals, bonuses, scavenging,
    exposure and friendship; and a plain line with the arithmetic."""
    state = state_with({"A": {"c": 12}, "B": {"s": 11, "t": 12}}, piles={13: {"gold": 10}})
    result = play(state, B="move s 2")
    record = space(result, 13)
    assert record["pile_before"]["gold"] == 10 and record["pile_after"]["gold"] == 2
    assert record["shares"] == 4 and record["share"]["gold"] == 2
    assert record["primary"] == {"A-C": {"gold": 4}, "B-S": {"gold": 2}, "B-T": {"gold": 2}}
    assert record["steals"] == [{"thief": "B-T", "from": "A-C"}]
    assert set(record) >= {"bonus", "scavenging", "exposure", "friendship", "miners"}
    assert "MN-3 distribution, space 13: 10 gold in 4 shares (A-C x2, B-S, B-T): 2 a share, 2 stays" in result.trace


def test_explain_returns_the_trace_of_a_resolution():
    match = new_match(("A", "B"))
    match.expire()
    match.expire()
    resolved = next(e for e in match.events if e["type"] == "round_resolved")
    assert GAME.explain(resolved) == resolved["trace"] and resolved["trace"]
