"""Text commands in the rule text's format, and their inverse."""

from __future__ import annotations

import pytest
from mn_helpers import ctx

from engine.errors import MalformedCommand
from engine.mining import GAME
from engine.mining.commands import Move, Orders, Setup, Start, Upgrade
from engine.mining.text import parse


def test_orders_parse_in_the_rule_texts_format_joined_by_semicolons_or_new_lines():
    command = parse("move s 4; upgrade b r\nbully 1\nMOVE B 1;move c 2 ; move p 3; move t 1", setup=False)
    assert command == Orders(
        moves=(Move("s", 4), Move("b", 1), Move("c", 2), Move("p", 3), Move("t", 1)),
        upgrades=(Upgrade("b", "r"),),
        bully=True,
    )


def test_full_words_are_accepted_for_miners_and_crystals():
    command = parse("move scout 4; upgrade bully red; upgrade thief dexterity", setup=False)
    assert command == Orders(moves=(Move("s", 4),), upgrades=(Upgrade("b", "r"), Upgrade("t", "y")))


def test_setup_parses_start_commands_and_end_early():
    command = parse("start b 3; Start C 5\nend early", setup=True)
    assert command == Setup((Start("b", 3), Start("c", 5)), end_early=True)


def test_bare_end_early_belongs_to_the_open_phase():
    assert parse("end early", setup=True) == Setup((), True)
    assert parse("End Early", setup=False) == Orders((), (), False, True)


def test_bully_0_is_not_using_the_ability():
    assert parse("bully 0", setup=False) == Orders()


@pytest.mark.parametrize(
    "command",
    [
        Setup((Start("b", 3), Start("c", 5), Start("p", 1), Start("s", 9), Start("t", 15)), False),
        Setup((Start("t", 2),), True),
        Setup((), True),
        Orders((Move("b", 1), Move("s", 5)), (Upgrade("b", "r"), Upgrade("c", "y")), True, True),
        Orders((Move("t", 3),), (), False, False),
        Orders((), (), False, True),
    ],
)
def test_format_is_the_inverse_of_parse_for_every_command_type(command):
    setup = isinstance(command, Setup)
    state = GAME.initial_state(GAME.default_config(["A", "B"]), 1)
    state = GAME.evolve(state, {"type": "setup_opened", "deadline": 10}) if setup else state
    assert parse(GAME.format(command), setup=setup) == command
    if setup:
        assert GAME.parse(state, "A", GAME.format(command)) == command


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("move s 4; jump b 2", "'jump b 2'"),
        ("move x 4", "'x' is not a miner"),
        ("move s four", "'four' is not a number"),
        ("upgrade b purple", "'purple' is not a crystal colour"),
        ("bully 2", "'bully 1'"),
        ("move s", "'move s'"),
        ("start b 3; move s 2", "cannot be mixed"),
        ("  ;  ", "empty message"),
        ("end now", "'end now'"),
    ],
)
def test_text_that_does_not_parse_is_malformed_quoting_the_part_and_showing_the_form(text, quoted):
    with pytest.raises(MalformedCommand) as error:
        parse(text, setup=False)
    assert quoted in str(error.value)
    assert "move [miner] [spaces]" in str(error.value)


def test_decide_refuses_unknown_letters_from_typed_commands():
    state = GAME.initial_state(GAME.default_config(["A", "B"]), 1)
    state = GAME.evolve(state, {"type": "setup_opened", "deadline": 10})
    with pytest.raises(MalformedCommand, match="unknown miner"):
        GAME.decide(state, "A", Setup((Start("x", 1),)), ctx())
