"""Text commands as players write them: the text's own `move s 4`, `upgrade b r`, `bully 1`, with the
set-up as `start b 3` or `Bully 3`, and `end early`. Miners by letter or role, crystals by colour letter,
colour or trait; `spaces` after a number or not. Several orders per message (see engine/phrasing.py for
quotes, lead-ins such as `I will` and the separators). `[miner] [number]` is a starting space in the
set-up and a move in a round (`move s 4, c 2`), except that `bully 1` in a round is the bully's ability
(MN-2), and `b 1` there reads two ways (move or ability) and is refused with both."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from engine.errors import MalformedCommand
from engine.mining.commands import Move, Orders, Setup, Start, Upgrade
from engine.phrasing import EndEarly, NotUnderstood, Phrase, did_you_mean, read

MINERS = {"b": "b", "c": "c", "p": "p", "s": "s", "t": "t", "bully": "b", "claimer": "c", "prospector": "p",
          "scout": "s", "thief": "t"}  # fmt: skip
CRYSTALS = {"r": "r", "b": "b", "y": "y", "g": "g", "red": "r", "blue": "b", "yellow": "y", "green": "g",
            "scavenging": "r", "exposure": "b", "dexterity": "y", "friendship": "g"}  # fmt: skip

# The sentences of each phase: the parse errors' FORMS and the contract's `forms` both say them.
SETUP_FORMS = ("start [miner] [space]", "[miner] [space]")
ROUND_FORMS = ("move [miner] [spaces]", "upgrade [miner] [crystal]", "bully 1")
END_EARLY = "end early"
WORDS = "miners b c p s t, crystals r b y g"
FORMS = (
    "expected, joined by ';', ',' or new lines: "
    + " or ".join(f"'{form}'" for form in SETUP_FORMS)
    + " (set-up), "
    + ", ".join(f"'{form}'" for form in (*ROUND_FORMS, END_EARLY))
    + f"; {WORDS} (e.g. 'move s 4; upgrade b r; bully 1')"
)

_MINER = r"(?:the\s+|my\s+)?(?P<miner>[^\s']+)(?:'s)?"
_NUMBER = r"(?:space\s+|by\s+)?(?P<n>\S+)(?:\s+(?:spaces?|steps?))?"
MOVE = re.compile(rf"move\s+{_MINER}\s+(?:forward\s+)?{_NUMBER}(?:\s+(?:forward|forwards|ahead|clockwise))?")
UPGRADE = re.compile(rf"upgrade\s+{_MINER}\s+(?:with\s+|in\s+)?(?P<crystal>\S+)(?:\s+(?:crystals?|trait|level))?")
BULLY = re.compile(rf"bully\s+{_NUMBER}")
USE_BULLY = re.compile(
    r"(?P<no>not\s+)?use\s+(?:the\s+|my\s+)?bully(?:'s)?(?:\s+ability)?|(?P<none>no\s+bully(?:\s+ability)?)"
)
START = re.compile(rf"(?:start|place|put|assign)\s+{_MINER}\s+(?:on\s+|at\s+|to\s+|in\s+)?{_NUMBER}")
SHORT_MOVE = re.compile(rf"{_MINER}\s+{_NUMBER}(?:\s+(?:forward|forwards|ahead|clockwise))?")
PLACED = re.compile(rf"{_MINER}\s+(?:starts?\s+)?(?:on\s+|at\s+|in\s+)?{_NUMBER}")


@dataclass(frozen=True, slots=True)
class BullyUse:
    """`bully 1` (used) or `bully 0` (not used)."""

    used: bool


Item = Start | Move | Upgrade | BullyUse | EndEarly


def _bad(part: str, why: str = "not understood") -> MalformedCommand:
    return MalformedCommand(f"{why}: {part!r}; {FORMS}")


def _number(part: str, token: str) -> int:
    if not re.fullmatch(r"[+-]?\d+", token):
        raise _bad(part, f"{token!r} is not a number")
    return int(token)


def _miner(part: str, token: str) -> str:
    if token not in MINERS:
        raise _bad(part, f"{token!r} is not a miner (b c p s t)")
    return MINERS[token]


def _reader(setup: bool) -> Callable[[Phrase], Item]:
    def read_order(phrase: Phrase) -> Item:
        part, words = phrase.original, " ".join(re.sub(r"[:=]", " ", phrase.words).split())
        if end := EndEarly.read(words):
            return end
        if m := MOVE.fullmatch(words):
            return Move(_miner(part, m["miner"]), _number(part, m["n"]))
        if m := UPGRADE.fullmatch(words):
            if m["crystal"] not in CRYSTALS:
                raise _bad(part, f"{m['crystal']!r} is not a crystal colour (r b y g)")
            return Upgrade(_miner(part, m["miner"]), CRYSTALS[m["crystal"]])
        if m := START.fullmatch(words):
            return Start(_miner(part, m["miner"]), _number(part, m["n"]))
        if setup and (m := PLACED.fullmatch(words)) and m["miner"] in MINERS:
            return Start(MINERS[m["miner"]], _number(part, m["n"]))  # `Bully 3`: the set-up's own shorthand
        if m := BULLY.fullmatch(words):
            if m["n"] not in ("0", "1"):
                raise _bad(
                    part,
                    f"in a round the bully's ability is 'bully 1' (or 'bully 0' not to use it); to move the bully"
                    f" {m['n']} spaces write 'move b {m['n']}'; starting spaces are given in the set-up",
                )
            return BullyUse(m["n"] == "1")
        if m := USE_BULLY.fullmatch(words):
            return BullyUse(not (m["no"] or m["none"]))
        if (m := SHORT_MOVE.fullmatch(words)) and m["miner"] in MINERS:
            move = Move(MINERS[m["miner"]], _number(part, m["n"]))  # `move s 4, c 2`: the verb said once
            if m["miner"] == "b" and m["n"] in ("0", "1"):
                raise did_you_mean(part, [_item_text(move), f"bully {m['n']}"])
            return move
        raise NotUnderstood(f"not understood: {part!r}; {FORMS}")

    return read_order


def _describe(items: list[Item]) -> str:
    return "; ".join(_item_text(i) for i in items)


def _item_text(item: Item) -> str:
    if isinstance(item, Start):
        return f"start {item.miner} {item.space}"
    if isinstance(item, Move):
        return f"move {item.miner} {item.steps}"
    if isinstance(item, Upgrade):
        return f"upgrade {item.miner} {item.crystal}"
    if isinstance(item, BullyUse):
        return f"bully {int(item.used)}"
    return "end early"


def parse(text: str, setup: bool) -> Setup | Orders:
    """One message -> a Setup or an Orders. `setup` says which a bare 'end early' belongs to."""
    items = [r.order for r in read(text, _reader(setup), _describe)]
    starts = [i for i in items if isinstance(i, Start)]
    moves = [i for i in items if isinstance(i, Move)]
    upgrades = [i for i in items if isinstance(i, Upgrade)]
    bullies = [i for i in items if isinstance(i, BullyUse)]
    end_early = any(isinstance(i, EndEarly) for i in items)
    orders_given = bool(moves or upgrades or bullies)
    if starts and orders_given:
        raise MalformedCommand(f"'start' (set-up) and round orders cannot be mixed in one message; {FORMS}")
    if starts or (setup and not orders_given):
        if not starts and not end_early:
            raise MalformedCommand(f"empty message; {FORMS}")
        return Setup(tuple(starts), end_early)
    if not orders_given and not end_early:
        raise MalformedCommand(f"empty message; {FORMS}")
    return Orders(tuple(moves), tuple(upgrades), any(b.used for b in bullies), end_early)


def format_command(command: Setup | Orders) -> str:
    parts: list[str] = []
    if isinstance(command, Setup):
        parts += [f"start {s.miner} {s.space}" for s in command.starts]
    else:
        parts += [f"move {m.miner} {m.steps}" for m in command.moves]
        parts += [f"upgrade {u.miner} {u.crystal}" for u in command.upgrades]
        if command.bully:
            parts.append("bully 1")
    if command.end_early:
        parts.append("end early")
    return "; ".join(parts)


def forms(setup: bool, spaces: int, max_steps: dict[str, int]) -> tuple[str, ...]:
    """The set-up's or a round's sentences as templates, with the miners' letters, the spaces and the
    steps each miner may move (MN-P9); several orders are joined by ';' in one message."""
    if setup:
        first, *rest = SETUP_FORMS
        return (f"{first} (each of the miners b c p s t on its own space, 1 to {spaces})", *rest, END_EARLY)
    move, upgrade, bully = ROUND_FORMS
    steps = ", ".join(f"{miner} 1 to {top}" for miner, top in max_steps.items())
    return (f"{move} (every miner: {steps})", f"{upgrade} ({WORDS})", bully, END_EARLY)
