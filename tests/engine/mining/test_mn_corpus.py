"""Issue 26: mining orders as forum players write them (corpus.txt beside this file), the canonical text
reading back to the same command for any command, and random text refused only as a command error."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.mining import GAME
from engine.mining.commands import Move, Orders, Setup, Start, Upgrade
from engine.mining.config import COLOURS, ROLES
from engine.mining.text import CRYSTALS, MINERS, parse
from tests.support import phase_states
from tests.support.corpus import Case, Corpus, fuzz_text

CORPUS = Corpus(Path(__file__).with_name("corpus.txt"), GAME, *phase_states.mining(), "A")
STATES = CORPUS.states


def test_the_corpus_has_150_sentences_accepted_and_refused_in_both_phases() -> None:
    CORPUS.assert_covers_every_phase()


@pytest.mark.parametrize("case", CORPUS.params())
def test_corpus_sentence_is_read_as_written_down(case: Case) -> None:
    CORPUS.check(case)


def test_the_issues_examples_are_accepted_with_the_right_reading() -> None:
    round_, setup = STATES["round"], STATES["setup"]
    assert GAME.parse(round_, "A", "“move s 4”") == Orders(moves=(Move("s", 4),))
    assert GAME.parse(round_, "A", '"upgrade b r"') == Orders(upgrades=(Upgrade("b", "r"),))
    assert GAME.parse(round_, "A", "move s 4.") == Orders(moves=(Move("s", 4),))
    assert GAME.parse(round_, "A", "End early.") == Orders(end_early=True)
    assert GAME.parse(round_, "A", "move s 4, move b 2. move c 1") == Orders(
        moves=(Move("s", 4), Move("b", 2), Move("c", 1))
    )
    assert GAME.parse(round_, "A", "move s 4 spaces") == Orders(moves=(Move("s", 4),))
    five = Setup(tuple(Start(r, n) for r, n in zip(ROLES, (3, 6, 9, 12, 15), strict=True)))
    assert GAME.parse(setup, "A", "Bully 3; Claimer 6; Prospector 9; Scout 12; Thief 15") == five


miners = st.sampled_from(ROLES)
orders = st.builds(
    Orders,
    moves=st.lists(st.builds(Move, miners, st.integers(0, 99)), max_size=6).map(tuple),
    upgrades=st.lists(st.builds(Upgrade, miners, st.sampled_from(COLOURS)), max_size=4).map(tuple),
    bully=st.booleans(),
    end_early=st.booleans(),
).filter(lambda o: bool(o.moves or o.upgrades or o.bully or o.end_early))
setups = st.builds(
    Setup, st.lists(st.builds(Start, miners, st.integers(0, 99)), max_size=6).map(tuple), st.booleans()
).filter(lambda s: bool(s.starts or s.end_early))


@given(st.one_of(orders, setups))
def test_the_canonical_text_of_any_command_reads_back_to_the_same_command(command: Orders | Setup) -> None:
    assert parse(GAME.format(command), setup=isinstance(command, Setup)) == command


VOCABULARY = [*MINERS, *CRYSTALS, "move", "upgrade", "bully", "start", "end", "early", "space", "spaces", "use"]


@given(fuzz_text(VOCABULARY), st.sampled_from(sorted(STATES)))
def test_random_text_is_never_anything_but_a_command_error(text: str, section: str) -> None:
    CORPUS.fuzz(text, section)
