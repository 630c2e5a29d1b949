"""Text commands in the rule text's format: `move s 4`, `upgrade b r`, `bully 1`, `start b 3`,
`end early`; several in one message, joined by `;` or new lines. Case does not matter."""

from __future__ import annotations

import re

from engine.errors import MalformedCommand
from engine.mining.commands import Move, Orders, Setup, Start, Upgrade

MINERS = {"b": "b", "c": "c", "p": "p", "s": "s", "t": "t", "bully": "b", "claimer": "c", "prospector": "p",
          "scout": "s", "thief": "t"}  # fmt: skip
CRYSTALS = {"r": "r", "b": "b", "y": "y", "g": "g", "red": "r", "blue": "b", "yellow": "y", "green": "g",
            "scavenging": "r", "exposure": "b", "dexterity": "y", "friendship": "g"}  # fmt: skip

FORMS = (
    "expected, joined by ';' or new lines: 'start [miner] [space]' (set-up), 'move [miner] [spaces]', "
    "'upgrade [miner] [crystal]', 'bully 1', 'end early'; miners b c p s t, crystals r b y g "
    "(e.g. 'move s 4; upgrade b r; bully 1')"
)


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


def parse(text: str, setup: bool) -> Setup | Orders:
    """One message -> a Setup or an Orders. `setup` says which a bare 'end early' belongs to."""
    starts: list[Start] = []
    moves: list[Move] = []
    upgrades: list[Upgrade] = []
    bully = False
    bully_given = False
    end_early = False
    for raw in re.split(r"[;\n]", text):
        part = raw.strip()
        words = part.lower().split()
        if not words:
            continue
        verb = words[0]
        if verb == "end" and words[1:] == ["early"]:
            end_early = True
        elif verb == "start" and len(words) == 3:
            starts.append(Start(_miner(part, words[1]), _number(part, words[2])))
        elif verb == "move" and len(words) == 3:
            moves.append(Move(_miner(part, words[1]), _number(part, words[2])))
        elif verb == "upgrade" and len(words) == 3:
            if words[2] not in CRYSTALS:
                raise _bad(part, f"{words[2]!r} is not a crystal colour (r b y g)")
            upgrades.append(Upgrade(_miner(part, words[1]), CRYSTALS[words[2]]))
        elif verb == "bully" and len(words) == 2:
            if words[1] not in ("0", "1"):
                raise _bad(part, "the bully's ability adds 1 space: 'bully 1' (or 'bully 0' not to use it)")
            bully, bully_given = words[1] == "1", True
        else:
            raise _bad(part)
    orders_given = bool(moves or upgrades or bully_given)
    if starts and orders_given:
        raise MalformedCommand(f"'start' (set-up) and round orders cannot be mixed in one message; {FORMS}")
    if starts or (setup and not orders_given):
        if not starts and not end_early:
            raise MalformedCommand(f"empty message; {FORMS}")
        return Setup(tuple(starts), end_early)
    if not orders_given and not end_early:
        raise MalformedCommand(f"empty message; {FORMS}")
    return Orders(tuple(moves), tuple(upgrades), bully, end_early)


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
