"""How forum players write orders, whatever the game: the game-independent half of every text parser.

A message is unquoted (straight, curly or single quotes, around it or around each sentence), then cut
into orders. New lines and ';' always separate orders. Commas, full stops, '!', '?', 'and' and 'then'
separate them only where every piece reads as an order on its own: `place the tile at B3, rotated 90
degrees` is one order because `rotated 90 degrees` alone is none. If two cuts both read and mean
different things, the message is refused with both readings. Each order reaches the game's own reader
as a `Phrase`: its words lower-cased, spaces collapsed, inner punctuation dropped, and the polite or
first-person lead-in taken off (`I will`, `I'd like to`, `please`, ...), so `I won't sabotage` reads
`not sabotage`. A full stop between two digits is a decimal point, never a cut: `move s 4.5` is refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from engine.errors import MalformedCommand

T = TypeVar("T")


class NotUnderstood(MalformedCommand):
    """No form of the game matches the words (as opposed to a known form with a bad value in it)."""


class Ambiguous(MalformedCommand):
    """The words have two readings; the message spells both out."""


def did_you_mean(original: str, readings: Sequence[str]) -> Ambiguous:
    options = " or ".join(repr(r) for r in readings)
    return Ambiguous(f"{original!r} can be read two ways: did you mean {options}? Send the one you mean")


# Double quotes anywhere; single quotes only where they are not an apostrophe inside a word.
_QUOTE = r"[\"“”„‟«»]|(?<![a-zA-Z])['‘’‚‛]|['‘’‚‛](?![a-zA-Z])"
QUOTES = re.compile(_QUOTE)
QUOTED_ONE_AFTER_ANOTHER = re.compile(rf"(?:{_QUOTE})\s*(?:{_QUOTE})")  # “move s 4” “upgrade b r”: two orders
APOSTROPHE = re.compile(r"(?<=[a-zA-Z])[‘’‛](?=[a-zA-Z])")


def unquote(text: str) -> str:
    """The message without its quotation marks; apostrophes inside words become a plain "'"."""
    return APOSTROPHE.sub("'", QUOTES.sub(" ", QUOTED_ONE_AFTER_ANOTHER.sub(" , ", text)))


HARD = re.compile(r"[;\n\r]+")
# A full stop is punctuation unless it sits between two digits (a decimal point).
_STOP = r"(?:[,!?]|(?<!\d)\.|\.(?!\d))"
SOFT = re.compile(rf"(?:\s*{_STOP})+\s*(?:(?:and\s+then|and|then)\s+)?|\s+(?:and\s+then|and|then)\s+", re.IGNORECASE)
INNER_STOPS = re.compile(_STOP)
LEAD_IN = re.compile(
    r"^(?:(?:and|then|also|so|ok|okay|please|kindly|now)\s+"
    r"|(?:i|we)(?:'d|\s+would)\s+like\s+to\s+|(?:i|we)(?:'d|\s+would)\s+"
    r"|(?:i|we)\s+(?:want|wish|need|intend|plan)\s+to\s+|(?:i|we)(?:'m|\s+am|'re|\s+are)\s+going\s+to\s+"
    r"|(?:i|we)(?:'ll|\s+will|\s+shall)\s+|(?:i|we)\s+)"
)
TRAILING = re.compile(r"\s+(?:please|thanks|thank\s+you)$")
NEGATION = re.compile(r"^(?:will|shall|do|would)\s+not\s+")
COURTESY = {"please", "thanks", "thank you", "cheers", "ty"}
END_EARLY = re.compile(
    r"(?:ready\s+to\s+)?end\s+(?:the\s+|this\s+)?(?:(?:round|set-?up|phase|step|turn|auction)\s+)?early"
)
MAX_SPAN = 32  # pieces one order may span (a 25-square dish written with commas needs 25)
MAX_TRIES = 1000  # readings tried per chunk: a long message gets shorter spans, never a long wait


@dataclass(frozen=True, slots=True)
class Phrase:
    """One order: `words` for the grammar, `original` (as written, unquoted) for error messages."""

    words: str
    original: str


def phrase(original: str) -> Phrase:
    words = original.lower().replace("won't", "will not").replace("don't", "do not").replace("can't", "cannot")
    words = " ".join(INNER_STOPS.sub(" ", words).split())
    while (stripped := TRAILING.sub("", LEAD_IN.sub("", words))) != words:
        words = stripped
    return Phrase(NEGATION.sub("not ", words), " ".join(original.split()))


@dataclass(frozen=True, slots=True)
class EndEarly:
    """`end early`, `end the round early` (LG-10): the games that end phases early share it."""

    @staticmethod
    def read(words: str) -> EndEarly | None:
        return EndEarly() if END_EARLY.fullmatch(words) else None


@dataclass(frozen=True, slots=True)
class Reading(Generic[T]):
    """An order as the game understood it, with the words it was read from."""

    original: str
    order: T


Reader = Callable[[Phrase], T]
Describe = Callable[[list[T]], str]


def read(text: str, reader: Reader[T], describe: Describe[T]) -> list[Reading[T]]:
    """Every order of the message, in order, read by `reader` (which raises MalformedCommand, or
    NotUnderstood when no form matches). `describe` writes a list of orders back as canonical text, to
    spell out two readings. An empty message gives []."""
    readings: list[Reading[T]] = []
    for chunk in HARD.split(unquote(text)):
        readings += _read_chunk(chunk, reader, describe)
    return readings


def _pieces(chunk: str) -> list[tuple[int, int]]:
    """(start, end) of each non-empty text between soft separators."""
    spans, start = [], 0
    for cut in SOFT.finditer(chunk):
        spans.append((start, cut.start()))
        start = cut.end()
    spans.append((start, len(chunk)))
    return [(a, b) for a, b in spans if chunk[a:b].strip()]


@dataclass(frozen=True, slots=True)
class _Try(Generic[T]):
    """One run of pieces read as one order: what it gave (no reading and no error: a courtesy)."""

    reading: Reading[T] | None = None
    error: MalformedCommand | None = None


def _read_chunk(chunk: str, reader: Reader[T], describe: Describe[T]) -> list[Reading[T]]:
    spans = _pieces(chunk)
    n = len(spans)
    span = max(1, min(MAX_SPAN, MAX_TRIES // max(n, 1)))
    tries: dict[tuple[int, int], _Try[T]] = {}

    def attempt(i: int, j: int) -> _Try[T]:
        """Pieces i..j-1 read as one order."""
        if (i, j) not in tries:
            original = chunk[spans[i][0] : spans[j - 1][1]].strip()
            words = phrase(original)
            if words.words in COURTESY:
                tries[i, j] = _Try()
            else:
                try:
                    tries[i, j] = _Try(reading=Reading(original, reader(words)))
                except MalformedCommand as error:
                    tries[i, j] = _Try(error=error)
        return tries[i, j]

    # Up to two different readings of each prefix (two are enough to know the message is ambiguous).
    ways: list[list[list[Reading[T]]]] = [[[]], *([] for _ in range(n))]
    for j in range(1, n + 1):
        for i in range(max(0, j - span), j):
            if not ways[i]:
                continue
            got = attempt(i, j)
            if got.error is not None:
                continue
            extra = [] if got.reading is None else [got.reading]
            for way in ways[i]:
                candidate = way + extra
                if all(_orders(candidate) != _orders(w) for w in ways[j]) and len(ways[j]) < 2:
                    ways[j].append(candidate)
    if len(ways[n]) == 1:
        return ways[n][0]
    if len(ways[n]) > 1:
        raise did_you_mean(chunk.strip(), [describe(_orders(way)) for way in ways[n]])
    raise _best_error(n, span, attempt)


def _orders(way: list[Reading[T]]) -> list[T]:
    return [r.order for r in way]


def _best_error(n: int, span: int, attempt: Callable[[int, int], _Try[T]]) -> MalformedCommand:
    """The error of the cut that explains most: fewest pieces that match no form, then most orders
    read, then fewest pieces; its first error is the one reported."""
    nothing: MalformedCommand | None = None
    best = [((0, 0, 0), nothing), *(((n + 1, 0, 0), nothing) for _ in range(n))]
    for j in range(1, n + 1):
        for i in range(max(0, j - span), j):
            (unknown, read_, pieces), first = best[i]
            got = attempt(i, j)
            if got.error is None:
                score = (unknown, read_ - 1, pieces + 1)
            else:
                score = (unknown + isinstance(got.error, NotUnderstood), read_, pieces + 1)
                first = first or got.error
            if score < best[j][0]:
                best[j] = (score, first)
    error = best[n][1]
    assert error is not None, "a chunk with no reading has a failing piece"
    return error
