"""engine/phrasing.py: the game-independent half of reading orders as forum players write them (issue
26), and docs/BOTS.md's table of accepted forms, every example of which is read here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from engine.cookoff import GAME as COOKOFF
from engine.errors import MalformedCommand
from engine.last_gathering import GAME as GATHERING
from engine.mining import GAME as MINING
from engine.phrasing import Ambiguous, NotUnderstood, Phrase, phrase, read, unquote
from tests.support import phase_states

BOTS_MD = Path(__file__).resolve().parents[2] / "docs" / "BOTS.md"


def words(text: str) -> list[str]:
    """A toy grammar: `go` followed by `x`, `y`, `rotated` or `and`, or a bare `x` or `y`."""

    def reader(p: Phrase) -> str:
        if not re.fullmatch(r"go( (x|y|rotated|and))*|x|y", p.words):
            raise NotUnderstood(f"not understood: {p.original!r}")
        return p.words

    return [r.order for r in read(text, reader, "; ".join)]


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("“move s 4”", "move s 4"),
        ('"move s 4" "upgrade b r"', "move s 4 , upgrade b r"),
        ("I won’t sabotage", "I won't sabotage"),
        ("« bid 3 »", "bid 3"),
        ("'upgrade b r'", "upgrade b r"),
    ],
)
def test_quotes_go_and_apostrophes_inside_words_stay(text: str, plain: str) -> None:
    assert " ".join(unquote(text).split()) == plain


@pytest.mark.parametrize(
    ("text", "read_as"),
    [
        ("I will move s 4", "move s 4"),
        ("I'd like to bid 3", "bid 3"),
        ("I would like to bid 3 please", "bid 3"),
        ("Please, bid 3", "bid 3"),
        ("I want to bid 3", "bid 3"),
        ("I won't sabotage", "not sabotage"),
        ("I don't move any berries", "not move any berries"),
        ("we will pass", "pass"),
        ("and then bid 3", "bid 3"),
        ("bid   3", "bid 3"),
        ("BID 3", "bid 3"),
        ("bid 1 I", "bid 1 i"),
    ],
)
def test_lead_ins_case_and_spaces_are_taken_off_the_words(text: str, read_as: str) -> None:
    assert phrase(text).words == read_as and phrase(text).original == " ".join(text.split())


def test_orders_are_cut_only_where_every_piece_reads_on_its_own() -> None:
    assert words("go x, go y") == ["go x", "go y"]
    assert words("go x, rotated") == ["go x rotated"]  # `rotated` alone is no order: the comma is inside
    assert words("go x then go y. go") == ["go x", "go y", "go"]
    assert words("go x; go y\ngo") == ["go x", "go y", "go"]


def test_two_cuts_that_both_read_and_differ_are_refused_with_both_readings() -> None:
    with pytest.raises(Ambiguous, match=r"'go x and y' can be read two ways: did you mean 'go x and y' or 'go x; y'\?"):
        words("go x and y")


def test_a_decimal_point_is_no_cut_and_a_final_stop_is_dropped() -> None:
    def reader(p: Phrase) -> str:
        if not re.fullmatch(r"move \d+", p.words):
            raise NotUnderstood(f"not understood: {p.original!r}")
        return p.words

    assert [r.order for r in read("move 4.", reader, "; ".join)] == ["move 4"]
    assert [r.order for r in read("move 4. move 5!", reader, "; ".join)] == ["move 4", "move 5"]
    with pytest.raises(NotUnderstood, match=r"'move 4\.5'"):
        read("move 4.5", reader, "; ".join)


def test_the_error_reported_is_of_the_cut_that_explains_most() -> None:
    """A known form with a bad value beats pieces that match no form; then most orders read."""

    def reader(p: Phrase) -> str:
        if m := re.fullmatch(r"place (\w+)(?: rotated (\d+))?", p.words):
            if m[2] and m[2] not in ("0", "90"):
                raise MalformedCommand(f"rotation {m[2]} in {p.original!r}")
            return p.words
        raise NotUnderstood(f"not understood: {p.original!r}")

    with pytest.raises(MalformedCommand, match="rotation 45 in 'place b3, rotated 45'"):
        read("place b3, rotated 45", reader, "; ".join)
    with pytest.raises(NotUnderstood, match="'dance'"):
        read("place b3, dance", reader, "; ".join)


def test_courtesies_between_orders_are_no_orders() -> None:
    assert words("go x, thanks") == ["go x"] and words("please") == []


@pytest.mark.parametrize("text", ["", " ", ";;", "“”", "\n\n", ". , !"])
def test_a_message_with_no_words_has_no_orders(text: str) -> None:
    assert words(text) == []


GAMES = {"Last Gathering": (GATHERING, "Ann"), "Cookoff": (COOKOFF, "ann"), "mining": (MINING, "A")}
_, GATHERING_STATES = phase_states.last_gathering()
_, MINING_STATES = phase_states.mining()
_, COOKOFF_STATES = phase_states.cookoff()
STATE_OF_ROW = {
    "Last Gathering, frame rounds": GATHERING_STATES["frames"],
    "Last Gathering, steps (auction)": GATHERING_STATES["step2"],
    "Last Gathering, steps (placement)": GATHERING_STATES["step2"],
    "Last Gathering, any phase": GATHERING_STATES["step2"],
    "mining, set-up": MINING_STATES["setup"],
    "mining, rounds": MINING_STATES["round"],
    "mining, either phase": MINING_STATES["round"],
    **{f"Cookoff, {phase.replace('_', ' ')}": state for phase, state in COOKOFF_STATES.items()},
}


RULES_DOCS = {
    "last-gathering": {
        "frame rounds": GATHERING_STATES["frames"],
        "steps: the auction": GATHERING_STATES["step2"],
        "steps: the placement": GATHERING_STATES["step2"],
        "any phase": GATHERING_STATES["step2"],
    },
    "cookoff": {phase.replace("_", " "): state for phase, state in COOKOFF_STATES.items()},
    "mining": {"set-up": MINING_STATES["setup"], "a round": MINING_STATES["round"], "either": MINING_STATES["round"]},
}
DOC_GAMES = {"last-gathering": "Last Gathering", "cookoff": "Cookoff", "mining": "mining"}


def table_rows(text: str, start: str, end: str) -> list[tuple[str, list[str], list[str]]]:
    table = text[text.index(start) : text.index(end, text.index(start))]
    rows = []
    for line in [line for line in table.splitlines() if line.startswith("|")][2:]:  # past the header
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3:
            rows.append((cells[0], re.findall(r"`([^`]+)`", cells[1]), re.findall(r"`([^`]+)`", cells[2])))
    return rows


def documented_forms() -> list[object]:
    cases = [
        pytest.param(*GAMES[row.split(",")[0]], STATE_OF_ROW[row], canonical, examples, id=f"BOTS.md {row}")
        for row, canonical, examples in table_rows(BOTS_MD.read_text(), "| game, phase |", "A sentence of another")
    ]
    for doc, states in RULES_DOCS.items():
        text = (BOTS_MD.parent / "rules" / f"{doc}.md").read_text()
        rows = table_rows(text, "## Writing your orders", "\n\n[")
        assert {row for row, _, _ in rows} == set(states), doc
        cases += [
            pytest.param(*GAMES[DOC_GAMES[doc]], states[row], canonical, examples, id=f"rules/{doc}.md {row}")
            for row, canonical, examples in rows
        ]
    return cases


@pytest.mark.parametrize(("game", "player", "state", "canonical", "examples"), documented_forms())
def test_every_documented_form_is_accepted_and_the_canonical_forms_are_canonical(
    game: Any, player: str, state: Any, canonical: list[str], examples: list[str]
) -> None:
    """docs/BOTS.md's and docs/rules/<game>.md's tables of accepted forms, every example read."""
    assert canonical and examples
    for text in canonical:
        assert game.format(game.parse(state, player, text)) == text, text
    for text in examples:
        command = game.parse(state, player, text)
        assert game.parse(state, player, game.format(command)) == command, text


def test_a_long_message_gets_shorter_joins_and_still_reads_every_order() -> None:
    """Issue 26 bounds the work per message (MAX_TRIES): 400 orders cut by commas still read one by one."""
    assert words(", ".join(["go x"] * 400)) == ["go x"] * 400
    assert words("go x, rotated") == ["go x rotated"]
