"""Transcripts: a match as text lines, played in process (`matchctl simulate`) and written back out.

A script line is `PLAYER: text command`; `#` starts a comment; `---` ends the current phase at its
deadline (whoever has not submitted gets the default); `@ +N` moves the match clock on N seconds,
applying any deadline passed on the way. A phase also ends as soon as the game's rules say it does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.contract import Game, Json
from engine.errors import GameError
from engine.match import LocalMatch


class ScriptError(Exception):
    """A script line that could not be played; names the line and what the game said."""


@dataclass(frozen=True, slots=True)
class Step:
    """One recorded step of a match, for writing a transcript back out."""

    at: float
    player: str | None  # None for a deadline that passed
    command: Any = None


def build_config(game: Game[Any, Any], players: Sequence[str], overrides: Mapping[str, Json] | None) -> dict[str, Json]:
    config = game.default_config(players)
    config.update(overrides or {})
    return config


def script_lines(lines: Iterable[str]) -> list[str]:
    """The lines that play: comments and blank lines dropped."""
    return [line.split("#", 1)[0].strip() for line in lines if line.split("#", 1)[0].strip()]


def header_fields(lines: Sequence[str]) -> dict[str, str]:
    """The fields of a first line such as `# game=mining seed=N players=A,B,C` (as `matchctl transcript`
    writes it); {} when the script does not start with a comment."""
    if not lines or not lines[0].startswith("#"):
        return {}
    return dict(word.split("=", 1) for word in lines[0].lstrip("#").split() if "=" in word)


def script_header(lines: Sequence[str]) -> tuple[int, list[str]]:
    """(seed, players) from the first line's fields (`header_fields`)."""
    fields = header_fields(lines)
    return int(fields["seed"]), fields["players"].split(",")


def play_script(
    game: Game[Any, Any], match: LocalMatch, lines: Iterable[str], steps: list[Step] | None = None
) -> LocalMatch:
    """Play the lines into `match`; with `steps`, record what was played (for `write_script`)."""
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            if line == "---":
                deadline = game.status(match.state).deadline
                match.expire()
                if steps is not None:
                    steps.append(Step(deadline if deadline is not None else match.now, None))
            elif line.startswith("@"):
                match.advance(float(line[1:].strip().lstrip("+")))
            elif ":" in line:
                player, text = (part.strip() for part in line.split(":", 1))
                command = game.parse(match.state, player, text)
                match.submit(player, command)
                if steps is not None:
                    steps.append(Step(match.now, player, command))
            else:
                raise ScriptError(f"line {number}: expected 'PLAYER: text', '---' or '@ +N': {raw.strip()!r}")
        except (GameError, ValueError) as exc:
            raise ScriptError(f"line {number}: {raw.strip()!r}: {exc}") from exc
    return match


def simulate(
    game: Game[Any, Any],
    players: Sequence[str],
    seed: int,
    lines: Iterable[str],
    overrides: Mapping[str, Json] | None = None,
) -> dict[str, Json]:
    match = LocalMatch(game, build_config(game, players, overrides), seed)
    play_script(game, match, lines)
    return summary(game, match.state, seed, len(match.events))


def summary(game: Game[Any, Any], state: Any, seed: int, version: int) -> dict[str, Json]:
    status = game.status(state)
    out: dict[str, Json] = {
        "game": game.name,
        "seed": seed,
        "players": list(game.players(state)),
        "finished": status.finished,
        "phase": status.phase,
        "events": version,
    }
    out.update(game.results(state))
    return out


CLOCK_DIGITS = 3  # a transcript's clock gaps, in seconds to the millisecond: `@ +15`, `@ +0.25`


def write_script(game: Game[Any, Any], steps: Iterable[Step], start: float = 0.0) -> list[str]:
    """Lines that `play_script` replays into the same match. Times are rounded to the millisecond where
    they fall (not gap by gap, so the roundings do not add up), and a gap is written as it reads: `@ +15`,
    never `@ +15.000000001` from a clock's float arithmetic."""
    lines: list[str] = []
    clock = round(start, CLOCK_DIGITS)
    for step in steps:
        at = round(step.at, CLOCK_DIGITS)
        if step.player is None:
            lines.append("---")
            clock = at
            continue
        if at > clock:
            lines.append(f"@ +{clock_gap(at - clock)}")
            clock = at
        lines.append(f"{step.player}: {game.format(step.command)}")
    return lines


def clock_gap(seconds: float) -> str:
    """Seconds to the millisecond, without trailing zeros: 15, 0.25, 7.001."""
    return f"{seconds:.{CLOCK_DIGITS}f}".rstrip("0").rstrip(".")
