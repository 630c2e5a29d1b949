"""Text commands in the rule text's words (parse/format) and parser errors."""

from __future__ import annotations

import pytest
from ck_helpers import A, B, both, match, phase, to_phase

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
from engine.cookoff.state import Phase
from engine.errors import MalformedCommand


def state_in(target: Phase) -> object:
    m = match(first=[("Oran", 3), ("Cheri", 4)])
    if target is Phase.FINAL_CHOICE:
        from dataclasses import replace

        return replace(m.state, phase=Phase.FINAL_CHOICE)
    to_phase(m, target)
    return m.state


def parse(target: Phase, text: str) -> object:
    return GAME.parse(state_in(target), A, text)


@pytest.mark.parametrize(
    ("target", "text", "command"),
    [
        (
            Phase.GATHERING,
            "I will send 2 workers to the Oran tree. I will send 1 worker to the Cheri tree.",
            SendHarvesters((HarvesterSend("Oran", 2), HarvesterSend("Cheri", 1))),
        ),
        (Phase.GATHERING, "send 1 worker to oran", SendHarvesters((HarvesterSend("Oran", 1),))),
        (Phase.GATHERING, "Send two harvesters to the Cheri tree", SendHarvesters((HarvesterSend("Cheri", 2),))),
        (Phase.GATHERING, "I will send no workers.", SendHarvesters()),
        (Phase.GATHERING, "pass", SendHarvesters()),
        (Phase.GATHERING, "I will not send any workers.", SendHarvesters()),
        (Phase.GATHERING, "send nothing", SendHarvesters()),
        (
            Phase.PLACEMENT,
            "I will place a Cheri berry on C3. I will place an Oran berry on b2.",
            PlaceBerries((Placement("Cheri", "C3"), Placement("Oran", "B2"))),
        ),
        (Phase.PLACEMENT, "place Cheri on C3", PlaceBerries((Placement("Cheri", "C3"),))),
        (Phase.PLACEMENT, "nothing", PlaceBerries()),
        (Phase.SABOTAGE, "I will sabotage and place a Razz berry on A1.", Sabotage((Placement("Razz", "A1"),))),
        (
            Phase.SABOTAGE,
            "sabotage with Razz on A1; place Cheri on E5",
            Sabotage((Placement("Razz", "A1"), Placement("Cheri", "E5"))),
        ),
        (Phase.SABOTAGE, "I will not sabotage.", Sabotage()),
        (Phase.MOVES, "I will move the berry on C3 to C4.", MoveBerries((Move("C3", "C4"),))),
        (Phase.MOVES, "move C3 to C4. move C4 to D4", MoveBerries((Move("C3", "C4"), Move("C4", "D4")))),
        (Phase.MOVES, "I will not move any berries", MoveBerries()),
        (Phase.REMOVAL, "I remove the dish on B2, B3, C3.", RemoveDish(("B2", "B3", "C3"))),
        (Phase.REMOVAL, "remove the dish on b2 b3 and c3", RemoveDish(("B2", "B3", "C3"))),
        (Phase.REMOVAL, "I will not remove a dish.", RemoveDish()),
        (Phase.FINAL_CHOICE, "I choose dish 2.", ChooseDish(2)),
        (Phase.FINAL_CHOICE, "choose 1", ChooseDish(1)),
    ],
)
def test_rule_text_sentences_and_variants_parse(target: Phase, text: str, command: object) -> None:
    assert parse(target, text) == command


@pytest.mark.parametrize(
    ("target", "command"),
    [
        (Phase.GATHERING, SendHarvesters((HarvesterSend("Oran", 2), HarvesterSend("Cheri", 0)))),
        (Phase.GATHERING, SendHarvesters()),
        (Phase.PLACEMENT, PlaceBerries((Placement("Aspear", "A1"), Placement("Cheri", "E5")))),
        (Phase.PLACEMENT, PlaceBerries()),
        (Phase.SABOTAGE, Sabotage((Placement("Oran", "C3"),))),
        (Phase.SABOTAGE, Sabotage()),
        (Phase.MOVES, MoveBerries((Move("C3", "C4"), Move("C4", "D4")))),
        (Phase.MOVES, MoveBerries()),
        (Phase.REMOVAL, RemoveDish(("B2", "B3", "C3"))),
        (Phase.REMOVAL, RemoveDish()),
        (Phase.FINAL_CHOICE, ChooseDish(3)),
    ],
)
def test_format_is_the_inverse_of_parse_for_every_command_type(target: Phase, command: object) -> None:
    assert GAME.parse(state_in(target), A, GAME.format(command)) == command


@pytest.mark.parametrize(
    ("target", "text", "quoted"),
    [
        (Phase.GATHERING, "I will plant a tree.", "'I will plant a tree'"),
        (Phase.GATHERING, "send 2 workers to Oran. dance", "'dance'"),
        (Phase.GATHERING, "send 2 workers to the Mango tree", "unknown berry 'mango'"),
        (Phase.PLACEMENT, "I will move the berry on C3 to C4.", "'I will move the berry on C3 to C4'"),
        (Phase.PLACEMENT, "I will sabotage and place a Razz berry on A1.", "in the placement phase write"),
        (Phase.MOVES, "move C3 to Z9", "'move C3 to Z9'"),
        (Phase.REMOVAL, "I remove the dish on B2, X7.", "'I remove the dish on B2, X7'"),
        (Phase.SABOTAGE, "I will not sabotage. I will sabotage and place a Razz berry on A1.", "ambiguous"),
        (Phase.FINAL_CHOICE, "I choose dish 1. I choose dish 2.", "exactly one dish"),
        (Phase.GATHERING, "", "empty submission"),
    ],
)
def test_unknown_or_ambiguous_sentences_are_refused_quoting_them(target: Phase, text: str, quoted: str) -> None:
    with pytest.raises(MalformedCommand, match=None) as info:
        parse(target, text)
    assert quoted in str(info.value)


def test_one_message_is_one_phase_submission_and_the_phase_picks_the_command() -> None:
    m = match(first=[("Oran", 3)])
    assert phase(m) is Phase.GATHERING
    both(m, "pass")
    assert GAME.parse(m.state, B, "pass") == PlaceBerries()


# The rule text prints its formats in quotes, and the template's literal "worker(s)" (issue 17): every
# quoting form is understood in every phase, and parses to the same command as the plain sentence.
PLAIN = {
    Phase.GATHERING: ["I will send 2 workers to the Cheri tree.", "I will send 1 worker to the Oran tree."],
    Phase.PLACEMENT: ["I will place a Cheri berry on C3.", "I will place an Oran berry on B2."],
    Phase.SABOTAGE: ["I will sabotage and place a Razz berry on A1.", "I will sabotage and place a Cheri berry on E5."],
    Phase.MOVES: ["I will move the berry on C3 to C4.", "I will move the berry on C4 to D4."],
    Phase.REMOVAL: ["I remove the dish on B2, B3, C3."],
    Phase.FINAL_CHOICE: ["I choose dish 2."],
}
PASSES = {
    Phase.GATHERING: "I will send no workers.",
    Phase.PLACEMENT: "I will place no berries.",
    Phase.SABOTAGE: "I will not sabotage.",
    Phase.MOVES: "I won't move any berries.",
    Phase.REMOVAL: "I won’t remove a dish.",
}
QUOTINGS = {
    "curly": lambda s: f"“{s}”",
    "straight double": lambda s: f'"{s}"',
    "straight single": lambda s: f"'{s}'",
    "curly single": lambda s: f"‘{s}’",
    "guillemets": lambda s: f"« {s} »",
    "quote inside the full stop": lambda s: f'"{s[:-1]}".',
}


def _quoted_messages(sentences: list[str]) -> list[tuple[str, str]]:
    out = []
    for name, quote in QUOTINGS.items():
        out.append((name, " ".join(quote(s) for s in sentences)))  # each sentence quoted
        out.append((f"{name}, one message", "\n".join(quote(s) for s in sentences)))
    out.append(("whole message quoted", "“" + " ".join(sentences) + "”"))
    out.append(("mixed quotes", " ".join((QUOTINGS["curly"] if i % 2 else QUOTINGS["straight double"])(s)
                                          for i, s in enumerate(sentences))))  # fmt: skip
    return out


@pytest.mark.parametrize("target", list(PLAIN), ids=lambda p: p.value)
def test_quoted_sentences_parse_to_the_same_command_as_the_plain_ones_in_every_phase(target: Phase) -> None:
    """Issue 17: `“I will send 2 workers to the Cheri tree.”` was refused ("not understood: '”'"); straight
    and curly quotes, one or several quoted sentences per message, parse like the plain sentences."""
    state = state_in(target)
    plain = GAME.parse(state, A, " ".join(PLAIN[target]))
    for name, message in _quoted_messages(PLAIN[target]):
        assert GAME.parse(state, A, message) == plain, (name, message)
    if target in PASSES:
        empty = GAME.parse(state, A, PASSES[target])
        for name, message in _quoted_messages([PASSES[target]]):
            assert GAME.parse(state, A, message) == empty, (name, message)


@pytest.mark.parametrize(
    "text",
    [
        "I will send 1 worker(s) to the Oran tree.",
        "“I will send 1 worker(s) to the Oran tree.”",
        "I will send 1 workers to the Oran tree",
        "'send 1 harvester(s) to oran'",
    ],
)
def test_the_templates_literal_worker_s_is_understood(text: str) -> None:
    """Issue 17: the rule text's format "I will send [number] worker(s) to the [berry name] tree." as written."""
    assert parse(Phase.GATHERING, text) == SendHarvesters((HarvesterSend("Oran", 1),))


def test_the_example_of_the_issue_parses() -> None:
    assert parse(Phase.GATHERING, "“I will send 2 workers to the Cheri tree.”") == SendHarvesters(
        (HarvesterSend("Cheri", 2),)
    )
    both_quoted = "“I will send 2 workers to the Cheri tree.” “I will send 1 worker(s) to the Oran tree.”"
    assert parse(Phase.GATHERING, both_quoted) == SendHarvesters((HarvesterSend("Cheri", 2), HarvesterSend("Oran", 1)))


def test_a_quoted_unknown_sentence_is_still_refused_quoting_it_without_the_quotes() -> None:
    with pytest.raises(MalformedCommand) as info:
        parse(Phase.GATHERING, "“I will plant a tree.”")
    assert "'I will plant a tree'" in str(info.value)
    with pytest.raises(MalformedCommand, match="exactly one dish"):
        parse(Phase.FINAL_CHOICE, "“I choose dish 1.” “I choose dish 2.”")
