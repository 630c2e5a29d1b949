"""Project rulings where the text and MN-1..MN-5 are silent (docs/rulings/mining.md), and the wire
contract of the commands."""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path

import pytest
from mn_helpers import SETUP_A, new_match, play, player, state_with

from engine.errors import RuleViolation
from engine.mining import GAME, rules
from engine.mining.commands import COMMAND_TYPES, Move, Orders, Setup, Start, Upgrade
from engine.mining.state import Player

PROTO = Path(__file__).resolve().parents[3] / "protos" / "matchserver" / "mining" / "v1" / "mining.proto"


def test_mn_p3_a_bully_may_use_its_ability_in_round_1_from_its_starting_space():
    """MN-P3: "no actions on the starting space" means no mining there; the Bully's push is part of
    movement away from it, so `bully 1` works in round 1."""
    match = new_match(("A", "B"))
    match.submit_text("A", SETUP_A + "; end early")
    match.submit_text("B", "start b 1; start c 6; start p 7; start s 8; start t 9; end early")
    match.submit_text("A", "move b 1; move c 1; move p 1; move s 1; move t 1; bully 1; end early")
    match.submit_text("B", "move b 1; move c 1; move p 1; move s 1; move t 1; end early")
    assert match.state.player("A").miner("b").space == 3
    assert match.state.player("B").miner("b").space == 3


def test_mn_p4_players_start_with_the_configured_garnets_default_10():
    """MN-P4: starting garnets are configuration; the default is 10."""
    assert all(p.garnets == 10 for p in new_match(("A", "B")).state.players)
    assert all(p.garnets == 0 for p in new_match(("A", "B"), starting_garnets=0).state.players)


def test_mn_p5_ranks_follow_gold_and_tied_players_share_a_rank():
    """MN-P5: rank by final gold, highest first; equal gold shares the rank (1, 2, 2, 4)."""
    state = state_with({}, players=("A", "B", "C", "D"), gold={"A": 9, "B": 5, "C": 5, "D": 1})
    players, outcome, _ = rules.finish(state.players)
    event = {"type": "match_finished", "players": [], **outcome}
    from engine.mining.state import player_json

    event["players"] = [player_json(p) for p in players]
    finished = GAME.evolve(state, event)
    ranks = {row["player"]: row["rank"] for row in GAME.results(finished)["results"]}
    assert ranks == {"A": 1, "B": 2, "C": 2, "D": 4}


def test_mn_p6_dexterity_upgrades_are_paid_first_then_the_others_in_the_order_given():
    """MN-P6: payments follow MN-1's order (Dexterity first), which fixes the MN-4 garnet prices each pays."""
    me = Player("A", 0, (0, 0, 0, 0), 20)
    payments = rules.plan_payments(me, (Upgrade("c", "r"), Upgrade("s", "y"), Upgrade("p", "g")))
    assert [(p.upgrade.crystal, p.garnets) for p in payments] == [("y", 2), ("r", 6), ("g", 10)]


def test_mn_p7_friendship_counts_the_levels_of_every_players_miners_on_the_space():
    """MN-P7: friendship sums every miner's level on the space (all players)."""
    state = state_with({"A": {"c": 12}, "B": {"s": 12}}, levels={"A": {"c": {"g": 4}}, "B": {"s": {"g": 3}}})
    result = play(state)
    assert (player(result, "A").gold, player(result, "B").gold) == (1, 1)


def _proto_messages() -> dict[str, dict[str, str]]:
    text = PROTO.read_text()
    messages = {}
    for name, body in re.findall(r"message (\w+) \{(.*?)\n\}", text, re.S):
        fields = {}
        for line in body.splitlines():
            found = re.match(r"\s*(repeated |optional )?(\w+) (\w+) = \d+;", line)
            if found:
                fields[found.group(3)] = (found.group(1) or "") + found.group(2)
        messages[name] = fields
    return messages


def test_proto_messages_match_the_command_dataclasses_by_name_and_field():
    scalar = {int: "int32", str: "string", bool: "bool"}
    messages = _proto_messages()
    for cls in (Start, Setup, Move, Upgrade, Orders):
        hints = typing.get_type_hints(cls)
        expected = {}
        for field in dataclasses.fields(cls):
            hint = hints[field.name]
            if typing.get_origin(hint) is tuple:
                expected[field.name] = "repeated " + typing.get_args(hint)[0].__name__
            else:
                expected[field.name] = scalar[hint]
        assert messages[cls.__name__] == expected, cls.__name__
    assert set(messages["Command"]) == {"setup", "orders"}
    assert (Setup, Orders) == COMMAND_TYPES


def test_typed_commands_round_trip_through_the_engine_codec():
    from engine import codec

    orders = Orders((Move("s", 4),), (Upgrade("b", "r"),), True, False)
    assert codec.from_json(GAME.command_types, codec.to_json(orders)) == orders
    setup = Setup((Start("b", 3),), True)
    assert codec.from_json(GAME.command_types, codec.to_json(setup)) == setup


def _refusal(match: object, player: str, text: str) -> RuleViolation:
    before = list(match.events)  # type: ignore[attr-defined]
    with pytest.raises(RuleViolation) as refused:
        match.submit_text(player, text)  # type: ignore[attr-defined]
    assert match.events == before  # type: ignore[attr-defined]
    return refused.value


def test_mn_p8_a_set_up_is_checked_when_submitted_and_refusals_name_mn_p8():
    match = new_match(players=("A", "B"))
    for text, says in [
        ("start b 1; start c 2", "no starting space for Prospector, Scout, Thief"),
        ("start b 1; start c 1; start p 3; start s 4; start t 5", "different space"),
        ("start b 1; start c 2; start p 3; start s 4; start t 99", "space 99 does not exist"),
        ("move s 4", "the set-up is open"),
    ]:
        refused = _refusal(match, "A", text)
        assert refused.rule == "MN-P8" and says in str(refused) and str(refused).endswith("(MN-P8)")


def test_mn_p9_orders_are_checked_when_submitted_and_refusals_name_mn_p9():
    match = new_match(players=("A", "B"))
    for name in ("A", "B"):
        match.submit_text(name, SETUP_A + "; end early")
    for text, says in [
        ("move b 1", "no move for Claimer, Prospector, Scout, Thief"),
        ("move b 4; move c 1; move p 1; move s 1; move t 1", "the Bully moves 1 to 3 spaces"),
        ("move b 1; move b 2; move c 1; move p 1; move s 1; move t 1", "two moves for the Bully"),
        ("move b 1; move c 1; move p 1; move s 1; move t 1; upgrade b r; upgrade b red", "upgraded twice"),
    ]:
        refused = _refusal(match, "A", text)
        assert refused.rule == "MN-P9" and says in str(refused), str(refused)


def test_mn_p10_end_early_alone_needs_a_submission_and_the_refusal_names_mn_p10():
    match = new_match(players=("A", "B"))
    refused = _refusal(match, "A", "end early")
    assert refused.rule == "MN-P10" and "submit your set-up before asking to end early" in str(refused)
    match.submit_text("A", SETUP_A)
    assert match.submit_text("A", "End early.")[0]["end_early"] is True  # keeps the set-up made
