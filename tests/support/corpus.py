"""Each game's corpus of sentences as forum players write them (tests/engine/<game>/corpus.txt), and the
fuzz strategy its parser is run against.

A corpus line is `text => canonical text` (accepted, with that reading: the canonical text of the parsed
command, which must parse back to the same command), `text !! words` (refused as malformed:
MalformedCommand, with those words in the message) or `text !? words` (it parses, but the rules refuse
it now: RuleViolation, with those words). `\\n` in a text is a new line; `[name]` starts a section (the
phase the following lines are sent in); `#` starts a comment line.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from engine.contract import Game
from engine.errors import MalformedCommand, RuleViolation
from engine.match import LocalMatch
from tests.support.phase_states import judge

LINE = re.compile(r"(?P<text>.*?) (?P<mark>=>|!!|!\?) ?(?P<expect>.*)")
KINDS = {"=>": "accepted", "!!": "malformed", "!?": "illegal"}


@dataclass(frozen=True, slots=True)
class Case:
    section: str
    text: str
    kind: str  # "accepted" | "malformed" | "illegal"
    expect: str
    line: int

    def __str__(self) -> str:
        return f"line {self.line}: {self.text!r}"


def load(path: Path) -> list[Case]:
    cases, section = [], ""
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip() or raw.startswith("#"):
            continue
        if raw.startswith("[") and raw.rstrip().endswith("]"):
            section = raw.strip()[1:-1]
            continue
        m = LINE.fullmatch(raw)
        assert m is not None, f"{path.name} line {number} has no '=>', '!!' or '!?': {raw!r}"
        text = m["text"].replace("\\n", "\n")
        cases.append(Case(section, text, KINDS[m["mark"]], m["expect"].strip(), number))
    return cases


def params(cases: list[Case]) -> list[Any]:
    return [pytest.param(case, id=f"{case.section}-{case.line}") for case in cases]


def check(
    case: Case,
    parse: Callable[[str], Any],
    canonical: Callable[[Any], str],
    decide: Callable[[Any], object] | None = None,
) -> None:
    """One corpus line: the reading, the canonical text meaning the same, or the refusal and its family."""
    if case.kind == "malformed":
        with pytest.raises(MalformedCommand) as refused:
            parse(case.text)
        assert case.expect in str(refused.value), (str(case), str(refused.value))
        return
    command = parse(case.text)
    if case.kind == "accepted":
        assert canonical(command) == case.expect, (str(case), canonical(command))
        assert parse(case.expect) == command, f"{case}: the canonical text reads differently"
        return
    assert decide is not None, f"{case}: this corpus has no rules to refuse it with"
    with pytest.raises(RuleViolation) as illegal:
        decide(command)
    assert case.expect in str(illegal.value), (str(case), str(illegal.value))


def counts(cases: list[Case]) -> dict[str, int]:
    return {kind: sum(1 for c in cases if c.kind == kind) for kind in KINDS.values()}


PUNCTUATION = [".", ",", ";", "!", "?", "\n", "'", '"', "“", "”", "‘", "’", "(", ")", ":", "-", "+", "°", "#"]
WORDS = ["I", "I'll", "will", "please", "and", "then", "not", "won't", "the", "a", "on", "to", "at", "with"]


def fuzz_text(vocabulary: list[str]) -> st.SearchStrategy[str]:
    """Text near the game's grammar (its own words, numbers, punctuation) and text far from it."""
    token = st.one_of(
        st.sampled_from(vocabulary + WORDS),
        st.sampled_from(PUNCTUATION),
        st.integers(-3, 400).map(str),
        st.text(max_size=4),
    )
    near = st.lists(token, max_size=16).map(lambda tokens: " ".join(tokens))
    glued = st.lists(token, max_size=12).map(lambda tokens: "".join(tokens))
    return st.one_of(near, glued, st.text(max_size=60))


def only_command_errors(parse: Callable[[str], Any], text: str) -> None:
    """Random text parses or is refused with one of the two command errors, nothing else."""
    with contextlib.suppress(MalformedCommand, RuleViolation):
        parse(text)


@dataclass
class Corpus:
    """A game's corpus with the match it is sent to: `states` by section, sent as `player`."""

    path: Path
    game: Game
    match: LocalMatch
    states: dict[str, Any]
    player: str
    cases: list[Case] = field(init=False)

    def __post_init__(self) -> None:
        self.cases = load(self.path)

    def params(self) -> list[Any]:
        return params(self.cases)

    def assert_covers_every_phase(self, at_least: int = 150) -> None:
        assert len(self.cases) >= at_least and {c.section for c in self.cases} == set(self.states)
        assert all(n >= 10 for n in counts(self.cases).values()), counts(self.cases)

    def check(self, case: Case) -> None:
        state = self.states[case.section]
        check(
            case,
            lambda text: self.game.parse(state, self.player, text),
            self.game.format,
            judge(self.game, self.match, state, self.player),
        )

    def fuzz(self, text: str, section: str) -> None:
        only_command_errors(lambda t: self.game.parse(self.states[section], self.player, t), text)
