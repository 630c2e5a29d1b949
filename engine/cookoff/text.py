"""Text commands in the rule text's own words; one message is one phase submission.

The current phase decides which sentences are expected (parse knows the state). Several sentences per
message (split on '.', ';', '!' and new lines). The rule text prints its formats in quotes, so quotes are
dropped before splitting: straight or curly, double or single, around one sentence or several; an
apostrophe inside a word ("won't", "I’ll") stays. The template's literal "worker(s)" is understood.
Wording may vary as long as it is unambiguous; an unknown or ambiguous sentence is refused with
MalformedCommand quoting it and showing the expected form.
"""

from __future__ import annotations

import re

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

EXAMPLES = {
    Phase.GATHERING: "'I will send 2 workers to the Oran tree.' (or 'I will send no workers.')",
    Phase.PLACEMENT: "'I will place a Cheri berry on C3.' (or 'I will place no berries.')",
    Phase.SABOTAGE: "'I will sabotage and place a Razz berry on A1.' or 'I will not sabotage.'",
    Phase.MOVES: "'I will move the berry on C3 to C4.' (or 'I will not move any berries.')",
    Phase.REMOVAL: "'I remove the dish on B2, B3, C3.' or 'I will not remove a dish.'",
    Phase.FINAL_CHOICE: "'I choose dish 2.'",
}
NUMBERS = {"no": 0, "zero": 0, "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4}
SUBJECT = r"(?:(?:i will|i'll|i shall|i|we will|we)\s+)?"
SQUARE = r"([a-e][1-5])"
WORD = r"([a-z]+)"
PASS_WORDS = {"pass", "nothing", "none", "skip", "no", "nothing to do"}

SEND = re.compile(
    rf"^{SUBJECT}(?:send|assign)\s+(\d+|{'|'.join(NUMBERS)})\s*(?:(?:workers?|harvesters?)(?:\(s\))?\s+)?"
    rf"(?:to|at|on)\s+(?:the\s+)?{WORD}(?:\s+berry)?(?:\s+trees?)?$"
)
SEND_NONE = re.compile(rf"^{SUBJECT}(?:will\s+not|won't|do\s+not|don't)\s+send\s+(?:any\s+)?(?:workers|harvesters)$")
SEND_ZERO = re.compile(rf"^{SUBJECT}send\s+(?:(?:no|zero|0)\s+(?:workers|harvesters)|nothing|nobody|no\s+one)$")
PLACE = re.compile(
    rf"^{SUBJECT}(?:place|put|add)\s+(?:(?:a|an|one|the)\s+)?{WORD}(?:\s+berry)?\s+(?:on|at|in|onto|to)\s+{SQUARE}$"
)
PLACE_NONE = re.compile(
    rf"^{SUBJECT}(?:(?:will\s+not|won't|do\s+not|don't)\s+place\s+(?:any\s+berries|a\s+berry|berries|anything)"
    r"|place\s+(?:no\s+berries|nothing))$"
)
SABOTAGE = re.compile(
    rf"^{SUBJECT}(?:sabotage\s+(?:and\s+|by\s+)?(?:(?:place|placing|put|putting)\s+)?(?:with\s+)?|place\s+|put\s+)"
    rf"(?:(?:a|an|one|the)\s+)?{WORD}(?:\s+berry)?\s+(?:on|at|in|onto|to)\s+{SQUARE}$"
)
SABOTAGE_NONE = re.compile(rf"^{SUBJECT}(?:will\s+not|won't|do\s+not|don't)\s+sabotage$|^no\s+sabotage$")
MOVE = re.compile(rf"^{SUBJECT}move\s+(?:the\s+berry\s+)?(?:(?:on|at|from)\s+)?{SQUARE}\s+(?:to|onto)\s+{SQUARE}$")
MOVE_NONE = re.compile(
    rf"^{SUBJECT}(?:(?:will\s+not|won't|do\s+not|don't)\s+move(?:\s+any\s+berries|\s+anything)?|move\s+nothing)$|^no\s+moves$"
)
REMOVE = re.compile(rf"^{SUBJECT}(?:will\s+)?remove\s+(?:the\s+|a\s+)?dish\s+(?:on|at|of|from|with)\s+(.+)$")
REMOVE_NONE = re.compile(rf"^{SUBJECT}(?:will\s+not|won't|do\s+not|don't)\s+remove\s+(?:a|any)\s+dish$|^no\s+dish$")
CHOOSE = re.compile(rf"^{SUBJECT}(?:choose|pick|select)\s+(?:the\s+)?(?:dish\s+)?(?:number\s+|#)?(\d+)$")


# Double quotes anywhere; single quotes only where they are not an apostrophe inside a word.
QUOTES = re.compile(r"[\"“”„‟«»]|(?<![a-zA-Z])['‘’‚‛]|['‘’‚‛](?![a-zA-Z])")


def unquote(text: str) -> str:
    """The message without its quotation marks (the rule text quotes its formats); apostrophes inside
    words become a plain "'"."""
    return re.sub(r"(?<=[a-zA-Z])[‘’‛](?=[a-zA-Z])", "'", QUOTES.sub(" ", text))


def sentences(text: str) -> list[str]:
    parts = (s.strip(" \t\r,") for s in re.split(r"[.;!\n]+", unquote(text)))
    return [s for s in parts if s]


def _berry(state: State, word: str, sentence: str) -> str:
    for berry in state.config.berries:
        if berry.name.lower() == word.lower():
            return berry.name
    raise MalformedCommand(f"unknown berry {word!r} in {sentence!r}")


def _square(word: str) -> str:
    return square_name(square_index(word))


def _fail(sentence: str, phase: Phase) -> MalformedCommand:
    return MalformedCommand(
        f"not understood: {sentence!r}; in the {phase.value.replace('_', ' ')} phase write {EXAMPLES[phase]}"
    )


def parse(state: State, text: str) -> Command:
    phase = state.phase
    if phase not in EXAMPLES:
        raise NotYourTurn("the match takes no submissions now")
    parts = sentences(text)
    if not parts:
        raise MalformedCommand(f"empty submission; write {EXAMPLES[phase]}")
    actions: list[object] = []
    passes: list[str] = []
    for original in parts:
        s = re.sub(r"\s+", " ", original.lower()).strip(" ,")
        if s in PASS_WORDS and phase is not Phase.FINAL_CHOICE:
            passes.append(original)
            continue
        if phase is Phase.GATHERING:
            if SEND_NONE.match(s) or SEND_ZERO.match(s):
                passes.append(original)
                continue
            m = SEND.match(s)
            if not m:
                raise _fail(original, phase)
            count = int(m[1]) if m[1].isdigit() else NUMBERS[m[1]]
            actions.append(HarvesterSend(_berry(state, m[2], original), count))
        elif phase is Phase.PLACEMENT:
            if PLACE_NONE.match(s):
                passes.append(original)
                continue
            m = PLACE.match(s)
            if not m or "sabotage" in s:
                raise _fail(original, phase)
            actions.append(Placement(_berry(state, m[1], original), _square(m[2])))
        elif phase is Phase.SABOTAGE:
            if SABOTAGE_NONE.match(s):
                passes.append(original)
                continue
            m = SABOTAGE.match(s)
            if not m:
                raise _fail(original, phase)
            actions.append(Placement(_berry(state, m[1], original), _square(m[2])))
        elif phase is Phase.MOVES:
            if MOVE_NONE.match(s):
                passes.append(original)
                continue
            m = MOVE.match(s)
            if not m:
                raise _fail(original, phase)
            actions.append(Move(_square(m[1]), _square(m[2])))
        elif phase is Phase.REMOVAL:
            if REMOVE_NONE.match(s):
                passes.append(original)
                continue
            m = REMOVE.match(s)
            if not m:
                raise _fail(original, phase)
            words = [w for w in re.split(r"[\s,]+|\band\b", m[1]) if w]
            if not words or not all(re.fullmatch(SQUARE, w) for w in words):
                raise _fail(original, phase)
            actions.append(tuple(_square(w) for w in words))
        else:
            m = CHOOSE.match(s)
            if not m:
                raise _fail(original, phase)
            actions.append(ChooseDish(int(m[1])))
    if passes and actions:
        raise MalformedCommand(f"ambiguous: {passes[0]!r} says nothing to do, but other sentences do something")
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
