"""Issue 26: The Last Gathering's orders as forum players write them (corpus.txt beside this file), the
canonical text reading back to the same command for any command, and random text refused only as a
command error."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lg_helpers import new_match

from engine.errors import MalformedCommand
from engine.last_gathering import GAME
from engine.last_gathering.board import KIND_LETTERS, ROTATIONS, SPOTS
from engine.last_gathering.commands import FrameBid, Placement, Submit, TileBid
from engine.last_gathering.config import KINDS
from engine.last_gathering.state import State
from tests.support import phase_states
from tests.support.corpus import Case, Corpus, fuzz_text

CORPUS = Corpus(Path(__file__).with_name("corpus.txt"), GAME, *phase_states.last_gathering(), "Ann")
STATES = CORPUS.states


def test_the_corpus_has_150_sentences_accepted_and_refused_in_every_phase() -> None:
    CORPUS.assert_covers_every_phase()


@pytest.mark.parametrize("case", CORPUS.params())
def test_corpus_sentence_is_read_as_written_down(case: Case) -> None:
    CORPUS.check(case)


def test_the_issues_examples_are_accepted_with_the_right_reading() -> None:
    state = STATES["frames"]
    assert GAME.parse(state, "Ann", "bid 3 on frame F2!") == Submit(frame_bid=FrameBid("F2", 3))
    assert GAME.parse(state, "Ann", "I bid 3 on frame F2") == Submit(frame_bid=FrameBid("F2", 3))
    assert GAME.parse(state, "Ann", "bid 3 on F2") == Submit(frame_bid=FrameBid("F2", 3))
    example = "I bid 3 garnets to choose a junction (T) tile with an extra sheep on section B."
    assert GAME.parse(state, "Ann", example) == Submit(tile_bid=TileBid(3, "junction", "B"))
    comma = "place the tile at B3, rotated 90 degrees clockwise"
    assert GAME.parse(state, "Ann", comma) == Submit(placement=Placement("B3", 90))
    both = "bid 3 junction, place the tile at B3, rotated 90 degrees clockwise"
    assert GAME.parse(state, "Ann", both) == Submit(tile_bid=TileBid(3, "junction"), placement=Placement("B3", 90))


def test_a_frame_named_like_a_tile_kind_is_refused_with_both_readings() -> None:
    """Never a misreading: a host's frame named `T` makes `bid 3 on T` a frame bid or a junction bid."""
    frames = {"T": [], "F2": ["N1"], "F3": [], "F4": []}
    state: State = new_match(frames=frames).state
    with pytest.raises(MalformedCommand, match=r"did you mean 'bid 3 on frame T' or 'bid 3 junction'\?"):
        GAME.parse(state, "Ann", "bid 3 on T")
    assert GAME.parse(state, "Ann", "bid 3 on frame T") == Submit(frame_bid=FrameBid("T", 3))
    assert GAME.parse(state, "Ann", "bid 3 on the T tile") == Submit(tile_bid=TileBid(3, "junction"))


frame_names = st.sampled_from(["F1", "F2", "F3", "F4", "F5", "F6"])
commands = st.builds(
    Submit,
    st.none() | st.builds(FrameBid, frame_names, st.integers(0, 999)),
    st.none() | st.builds(TileBid, st.integers(0, 999), st.sampled_from(KINDS), st.none() | st.sampled_from("ABCD")),
    st.none() | st.builds(Placement, st.sampled_from(SPOTS), st.sampled_from(ROTATIONS)),
    st.booleans(),
).filter(lambda c: bool(c.frame_bid or c.tile_bid or c.placement or c.end_early))


@given(commands)
def test_the_canonical_text_of_any_command_reads_back_to_the_same_command(command: Submit) -> None:
    assert GAME.parse(STATES["frames"], "Ann", GAME.format(command)) == command


VOCABULARY = [*KINDS, *KIND_LETTERS, *SPOTS, "F2", "bid", "on", "frame", "place", "rotate", "rotated", "degrees",
              "clockwise", "sheep", "section", "with", "tile", "end early", "garnets"]  # fmt: skip


@given(fuzz_text(VOCABULARY))
def test_random_text_is_never_anything_but_a_command_error(text: str) -> None:
    CORPUS.fuzz(text, "step2")
