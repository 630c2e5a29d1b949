"""Text commands in the rule text's own words; one message is one phase submission.

The current phase decides which sentences are expected (parse knows the state). Quotes, lead-ins (`I
will`, `I'd like to`, `please`; `I won't` reads `not`) and the separators between orders (new lines, ';',
',', '.', 'and', 'then') are engine/phrasing.py's; this module keeps Cookoff's vocabulary. The text's
formats are accepted with or without their verb after the first order (`I will send 2 workers to the Oran
tree and 1 to the Cheri tree`), and the template's literal "worker(s)". A sentence of another phase is
refused naming the phase it belongs to and what this phase takes (CK-P10).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from engine.cookoff.commands import (
    ChooseDish,
    Command,
    HarvesterSend,
    Move,
    MoveBerries,
    PlaceBerries,
    Placement,
    RemoveDish,
    Sabotage,
    SendHarvesters,
)
from engine.cookoff.state import Phase, State, square_index, square_name
from engine.errors import MalformedCommand, NotYourTurn
from engine.phrasing import NotUnderstood, Phrase, read

EXAMPLES = {
    Phase.GATHERING: "'I will send 2 workers to the Oran tree.' (or 'I will send no workers.')",
    Phase.PLACEMENT: "'I will place a Cheri berry on C3.' (or 'I will place no berries.')",
    Phase.SABOTAGE: "'I will sabotage and place a Razz berry on A1.' or 'I will not sabotage.'",
    Phase.MOVES: "'I will move the berry on C3 to C4.' (or 'I will not move any berries.')",
    Phase.REMOVAL: "'I remove the dish on B2, B3, C3.' or 'I will not remove a dish.'",
    Phase.FINAL_CHOICE: "'I choose dish 2.'",
}
# Each phase's sentences as templates, in format_command's canonical words (the contract's `forms`); the
# sentence doing nothing follows, as format_command writes the phase's empty command.
TEMPLATES = {
    Phase.GATHERING: "I will send N workers to the BERRY tree.",
    Phase.PLACEMENT: "I will place a BERRY berry on SQUARE.",
    Phase.SABOTAGE: "I will sabotage and place a BERRY berry on SQUARE.",
    Phase.MOVES: "I will move the berry on SQUARE to SQUARE.",
    Phase.REMOVAL: "I remove the dish on SQUARE, SQUARE, ...",
    Phase.FINAL_CHOICE: "I choose dish N.",
}
# Each phase's command doing nothing, always legal (CK-4); the final choice has none.
NOTHING: dict[Phase, Command] = {
    Phase.GATHERING: SendHarvesters(),
    Phase.PLACEMENT: PlaceBerries(),
    Phase.SABOTAGE: Sabotage(),
    Phase.MOVES: MoveBerries(),
    Phase.REMOVAL: RemoveDish(),
}
NUMBERS = {"no": 0, "zero": 0, "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_COUNT = rf"(?P<n>\d+|{'|'.join(NUMBERS)})"
_BERRY = r"(?:(?:a|an|one|the|my)\s+)?(?P<berry>[a-z]+)(?:\s+berry)?"
_ON = r"\s+(?:on|at|in|onto|to|into)\s+(?:square\s+)?(?P<square>\S+)"
PASS_WORDS = {"pass", "nothing", "none", "skip", "no", "nothing to do"}

SEND = re.compile(
    rf"(?:(?:send|assign|put)\s+)?{_COUNT}\s*(?:(?:workers?|harvesters?)(?:\(s\))?\s+)?"
    r"(?:to|at|on)\s+(?:the\s+)?(?P<berry>[a-z]+)(?:\s+berry|\s+berries)?(?:\s+trees?)?"
)
SEND_NONE = re.compile(
    r"not\s+send(?:\s+any)?(?:\s+(?:workers|harvesters))?"
    r"|send\s+(?:(?:no|zero|0)\s+(?:workers?|harvesters?)(?:\(s\))?|nothing|nobody|no\s+one)"
)
PLACE = re.compile(rf"(?:(?:place|put|add|drop)\s+)?{_BERRY}{_ON}(?:\s+(?:of\s+)?(?:my|the)\s+pot)?")
PLACE_NONE = re.compile(
    r"not\s+place(?:\s+(?:any\s+berries|a\s+berry|berries|anything))?|place\s+(?:no\s+berries|nothing)"
)
SABOTAGE = re.compile(
    r"(?:sabotage\s+(?:and\s+|by\s+)?(?:(?:place|placing|put|putting)\s+)?(?:with\s+)?|(?:place|put|add)\s+)?"
    rf"{_BERRY}{_ON}(?:\s+(?:of|in|on)\s+(?:their|the\s+opponent's|my\s+opponent's)\s+(?:pot|board))?"
)
SABOTAGE_NONE = re.compile(r"not\s+sabotage(?:\s+(?:this\s+(?:round|turn)|anyone|anything))?|no\s+sabotage")
MOVE = re.compile(
    r"move\s+(?:the\s+berry\s+)?(?:(?:on|at|from)\s+)?(?P<source>\S+)\s+(?:to|onto)\s+(?P<target>\S+)"
    r"|(?:the\s+berry\s+)?(?:(?:on|at|from)\s+)?(?P<source2>[a-e][1-5])\s+(?:to|onto)\s+(?P<target2>[a-e][1-5])"
)
MOVE_NONE = re.compile(r"not\s+move(?:\s+any\s+berries|\s+anything|\s+any)?|move\s+nothing|no\s+moves")
REMOVE = re.compile(
    r"(?:remove|take\s+out|take)\s+(?:the\s+|a\s+|my\s+)?dish\s+(?:on|at|of|from|with|made\s+of)\s+"
    r"(?:squares?\s+)?(?P<squares>.+)"
)
REMOVE_NONE = re.compile(r"not\s+remove(?:\s+(?:a|any))?(?:\s+dish(?:es)?)?(?:\s+this\s+(?:round|turn))?|no\s+dish")
CHOOSE = re.compile(
    r"(?:(?:choose|pick|select|use|submit|serve|take|go\s+with)\s+)?(?:the\s+)?(?:dish\s+)?(?:number\s+|no\s+|#\s*)?"
    rf"(?P<n>\d+|{'|'.join(k for k, v in NUMBERS.items() if v and k not in ('a', 'an'))})"
)
# What each phase takes: its action and its "nothing to do" forms (to name a sentence's own phase too).
FORMS = {
    Phase.GATHERING: (SEND, SEND_NONE),
    Phase.PLACEMENT: (PLACE, PLACE_NONE),
    Phase.SABOTAGE: (SABOTAGE, SABOTAGE_NONE),
    Phase.MOVES: (MOVE, MOVE_NONE),
    Phase.REMOVAL: (REMOVE, REMOVE_NONE),
    Phase.FINAL_CHOICE: (CHOOSE, CHOOSE),
}


@dataclass(frozen=True, slots=True)
class Pass:
    """A sentence saying there is nothing to do this phase."""


Action = HarvesterSend | Placement | Move | tuple[str, ...] | ChooseDish | Pass


def _berry(state: State, word: str, sentence: str) -> str:
    for berry in state.config.berries:
        if berry.name.lower() == word.lower():
            return berry.name
    raise MalformedCommand(f"unknown berry {word!r} in {sentence!r}")


def _square(word: str, sentence: str) -> str:
    try:
        return square_name(square_index(word.upper()))
    except MalformedCommand as error:
        raise MalformedCommand(f"{error} (in {sentence!r})") from None


def _phase_words(phase: Phase) -> str:
    return phase.value.replace("_", " ")


def _elsewhere(phrase: Phrase, phase: Phase) -> MalformedCommand:
    """Not a sentence of this phase: say which phase it belongs to, if any, and what this one takes."""
    for other, (action, none) in FORMS.items():
        if other is not phase and (action.fullmatch(phrase.words) or none.fullmatch(phrase.words)):
            return MalformedCommand(
                f"{phrase.original!r} belongs to the {_phase_words(other)} phase;"
                f" in the {_phase_words(phase)} phase write {EXAMPLES[phase]}"
            )
    return NotUnderstood(
        f"not understood: {phrase.original!r}; in the {_phase_words(phase)} phase write {EXAMPLES[phase]}"
    )


def _reader(state: State) -> Callable[[Phrase], Action]:
    phase = state.phase
    action, none = FORMS[phase]

    def read_action(phrase: Phrase) -> Action:
        words, original = phrase.words, phrase.original
        if phase is not Phase.FINAL_CHOICE and (words in PASS_WORDS or none.fullmatch(words)):
            return Pass()
        m = action.fullmatch(words)
        if m is None or (phase is Phase.PLACEMENT and "sabotage" in words):
            raise _elsewhere(phrase, phase)
        if phase is Phase.GATHERING:
            count = int(m["n"]) if m["n"].isdigit() else NUMBERS[m["n"]]
            return HarvesterSend(_berry(state, m["berry"], original), count)
        if phase in (Phase.PLACEMENT, Phase.SABOTAGE):
            return Placement(_berry(state, m["berry"], original), _square(m["square"], original))
        if phase is Phase.MOVES:
            source, target = m["source"] or m["source2"], m["target"] or m["target2"]
            return Move(_square(source, original), _square(target, original))
        if phase is Phase.REMOVAL:
            squares = [w for w in m["squares"].split() if w != "and"]
            return tuple(_square(w, original) for w in squares)
        return ChooseDish(int(m["n"]) if m["n"].isdigit() else NUMBERS[m["n"]])

    return read_action


def parse(state: State, text: str) -> Command:
    phase = state.phase
    if phase not in EXAMPLES:
        raise NotYourTurn("the match takes no submissions now")
    readings = read(text, _reader(state), lambda actions: format_command(_command(phase, actions, text)))
    if not readings:
        raise MalformedCommand(f"empty submission; write {EXAMPLES[phase]}")
    passes = [r.original for r in readings if isinstance(r.order, Pass)]
    if passes and len(passes) < len(readings):
        raise MalformedCommand(f"ambiguous: {passes[0]!r} says nothing to do, but other sentences do something")
    return _command(phase, [r.order for r in readings if not isinstance(r.order, Pass)], text)


def _command(phase: Phase, actions: list[Action], text: str) -> Command:
    if phase is Phase.GATHERING:
        return SendHarvesters(tuple(a for a in actions if isinstance(a, HarvesterSend)))
    if phase is Phase.PLACEMENT:
        return PlaceBerries(tuple(a for a in actions if isinstance(a, Placement)))
    if phase is Phase.SABOTAGE:
        return Sabotage(tuple(a for a in actions if isinstance(a, Placement)))
    if phase is Phase.MOVES:
        return MoveBerries(tuple(a for a in actions if isinstance(a, Move)))
    if phase is Phase.REMOVAL:
        if len(actions) > 1:
            raise MalformedCommand(f"at most one dish a turn (CK-4); got {len(actions)} in {text!r}")
        return RemoveDish(actions[0] if actions and isinstance(actions[0], tuple) else ())
    if len(actions) != 1 or not isinstance(actions[0], ChooseDish):
        raise MalformedCommand(f"choose exactly one dish, e.g. {EXAMPLES[phase]}; got {text!r}")
    return actions[0]


def _article(name: str) -> str:
    return "an" if name[0].lower() in "aeiou" else "a"


def format_command(command: object) -> str:
    if isinstance(command, SendHarvesters):
        if not command.sends:
            return "I will send no workers."
        return " ".join(
            f"I will send {s.count} worker{'' if s.count == 1 else 's'} to the {s.berry} tree." for s in command.sends
        )
    if isinstance(command, PlaceBerries):
        if not command.placements:
            return "I will place no berries."
        return " ".join(f"I will place {_article(p.berry)} {p.berry} berry on {p.square}." for p in command.placements)
    if isinstance(command, Sabotage):
        if not command.placements:
            return "I will not sabotage."
        return " ".join(
            f"I will sabotage and place {_article(p.berry)} {p.berry} berry on {p.square}." for p in command.placements
        )
    if isinstance(command, MoveBerries):
        if not command.moves:
            return "I will not move any berries."
        return " ".join(f"I will move the berry on {m.source} to {m.target}." for m in command.moves)
    if isinstance(command, RemoveDish):
        if not command.squares:
            return "I will not remove a dish."
        return f"I remove the dish on {', '.join(command.squares)}."
    if isinstance(command, ChooseDish):
        return f"I choose dish {command.number}."
    raise MalformedCommand(f"not a Cookoff command: {command!r}")


def forms(state: State) -> tuple[str, ...]:
    """The current phase's sentences as templates, with the limits of the match's config (public), one
    sentence per order in one message; () when no phase takes submissions."""
    phase, config = state.phase, state.config
    if phase not in TEMPLATES:
        return ()
    squares = "SQUARE a column A-E and a row 1-5 (CK-3)"
    notes = {
        Phase.GATHERING: f"(BERRY a tree of this round: {', '.join(t.berry for t in state.trees)};"
        f" at most {config.harvesters} workers in all)",
        Phase.PLACEMENT: f"(a berry of your inventory on an empty square of your pot, {squares}; at most"
        f" {config.max_place})",
        Phase.SABOTAGE: f"(a berry of your inventory on an empty square of the opponent's pot, {squares}; at"
        f" most {config.max_sabotage})",
        Phase.MOVES: f"(one orthogonal step into an empty square, {squares}; at most {config.max_moves}, in order)",
        Phase.REMOVAL: f"(one orthogonally connected group of your pot's berries, {squares})",
        Phase.FINAL_CHOICE: "(N a dish of yours, numbered 1.. in the order removed)",
    }
    template = f"{TEMPLATES[phase]} {notes[phase]}"
    return (template, format_command(NOTHING[phase])) if phase in NOTHING else (template,)
