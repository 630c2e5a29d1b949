"""Issue 26: Cookoff's orders as forum players write them (corpus.txt beside this file), the canonical
text reading back to the same command for any command, and random text refused only as a command error."""

from __future__ import annotations

from pathlib import Path

import pytest
from ck_helpers import NAMES, A
from hypothesis import given
from hypothesis import strategies as st

from engine.cookoff import GAME
from engine.cookoff.commands import (
    ChooseDish,
    HarvesterSend,
    Move,
    MoveBerries,
    PlaceBerries,
    Placement,
    RemoveDish,
    Sabotage,
    SendHarvesters,
)
from tests.support import phase_states
from tests.support.corpus import Case, Corpus, fuzz_text

CORPUS = Corpus(Path(__file__).with_name("corpus.txt"), GAME, *phase_states.cookoff(), A)
STATES = CORPUS.states


def test_the_corpus_has_150_sentences_accepted_and_refused_in_every_phase() -> None:
    CORPUS.assert_covers_every_phase()


@pytest.mark.parametrize("case", CORPUS.params())
def test_corpus_sentence_is_read_as_written_down(case: Case) -> None:
    CORPUS.check(case)


def test_the_issues_examples_are_accepted_with_the_right_reading() -> None:
    two = "I will send 2 workers to the Oran tree and 1 worker to the Cheri tree"
    assert GAME.parse(STATES["gathering"], A, two) == SendHarvesters(
        (HarvesterSend("Oran", 2), HarvesterSend("Cheri", 1))
    )
    comma = "I will place a Cheri berry on C3, I will place an Oran berry on B2"
    assert GAME.parse(STATES["placement"], A, comma) == PlaceBerries(
        (Placement("Cheri", "C3"), Placement("Oran", "B2"))
    )
    assert GAME.parse(STATES["final_choice"], A, "I will use dish 2.") == ChooseDish(2)


berries = st.sampled_from(NAMES)
squares = st.sampled_from([f"{c}{r}" for c in "ABCDE" for r in range(1, 6)])
placements = st.lists(st.builds(Placement, berries, squares), max_size=5).map(tuple)
COMMANDS = {
    "gathering": st.builds(
        SendHarvesters, st.lists(st.builds(HarvesterSend, berries, st.integers(0, 9)), max_size=6).map(tuple)
    ),
    "placement": st.builds(PlaceBerries, placements),
    "sabotage": st.builds(Sabotage, placements),
    "moves": st.builds(MoveBerries, st.lists(st.builds(Move, squares, squares), max_size=5).map(tuple)),
    "removal": st.builds(RemoveDish, st.lists(squares, max_size=25, unique=True).map(tuple)),
    "final_choice": st.builds(ChooseDish, st.integers(1, 99)),
}


@given(st.sampled_from(sorted(COMMANDS)).flatmap(lambda phase: st.tuples(st.just(phase), COMMANDS[phase])))
def test_the_canonical_text_of_any_command_reads_back_to_the_same_command(
    phase_and_command: tuple[str, object],
) -> None:
    phase, command = phase_and_command
    assert GAME.parse(STATES[phase], A, GAME.format(command)) == command


VOCABULARY = [*NAMES[:6], "send", "workers", "worker(s)", "tree", "place", "berry", "sabotage", "move", "remove",
              "dish", "choose", "use", "C3", "B2", "E5", "Z9", "pass", "nothing", "not", "any", "berries"]  # fmt: skip


@given(fuzz_text(VOCABULARY), st.sampled_from(sorted(STATES)))
def test_random_text_is_never_anything_but_a_command_error(text: str, phase: str) -> None:
    CORPUS.fuzz(text, phase)
