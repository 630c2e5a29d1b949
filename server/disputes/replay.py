"""A resolution, the inputs that drove it, and deciding them again on a private copy of the match.

A resolution is a batch of game records that moved the match on to a new phase (or ended it): the last
input of a phase and what the rules did with it, or a deadline's timeout. The inputs that drove it are the
effective batches of that phase, each caused by a seat's command or by the clock, from the phase's first
input to the resolution. A private copy is the match folded in memory up to the version before that first
input: nothing is written, no store is touched, no stream hears of it. Deciding on the copy uses the
times, seed and dice positions the match recorded, so the same inputs give the same events."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import codec
from engine import match as rules
from engine.contract import Viewer
from engine.errors import GameError
from server.decisions import decide_submission, decide_timeout
from server.envelope import cause, game_records
from server.errors import BadRequest, FailedPrecondition
from server.live import LiveMatch
from server.records import Record

HOST = Viewer.host()


@dataclass(frozen=True)
class Input:
    """One input of a phase: a seat's command, or the clock's timeout at a deadline."""

    version: int  # the batch's first record (where its cause is)
    end: int  # the batch's last record (its receipt)
    actor: str  # a seat, or "clock"
    text: str  # the command in the game's words ("" for a timeout)
    command: Any  # the recorded command as JSON (None for a timeout)
    at: float  # match clock when it was decided
    timeout: bool = False

    def as_json(self) -> dict[str, Any]:
        return {"version": self.version, "actor": self.actor, "text": self.text, "at": self.at, "timeout": self.timeout}


@dataclass
class Played:
    """What deciding inputs on a copy did: the records it made, and the inputs that no longer applied."""

    copy: LiveMatch
    records: list[Record] = field(default_factory=list)
    applied: list[tuple[Input, int]] = field(default_factory=list)  # (input, the copy's version of its batch)
    dropped: list[tuple[Input, str]] = field(default_factory=list)  # (input, why it no longer applies)


def phase_words(live: LiveMatch, version: int) -> str:
    return live.status(version).phase


def is_resolution(live: LiveMatch, version: int) -> bool:
    """Whether `version` ends a batch of game records that moved the match to a new phase or ended it."""
    if not live.started_version < version <= live.version or not live.batches.is_end(version):
        return False
    start = live.batches.start_at(version)
    record = live.records[start - 1]
    if record["kind"] != "game" or record.get("start") or version in live.batches.retracted():
        return False
    before, after = live.status(start - 1), live.status(version)
    return before.phase != after.phase or before.finished != after.finished


def resolution_at(live: LiveMatch, version: int) -> int:
    """The resolution that holds `version` (any record of its batch, e.g. the harvest its history shows),
    named by its last version; refused when that batch is no resolution."""
    if not 1 <= version <= live.version:
        raise BadRequest(f"version {version} is outside this match's versions 1..{live.version}")
    end = live.batches.end_from(live.batches.start_at(version))
    if not is_resolution(live, end):
        raise BadRequest(
            f"version {version} is not a resolution of this match (a batch of game records that ended a phase); "
            "dispute the version its history shows the phase ending at"
        )
    return end


def phase_base(live: LiveMatch, version: int) -> int:
    """The version before the first input of the phase that `version` resolves."""
    retracted = live.batches.retracted()
    start = live.batches.start_at(version)
    words = phase_words(live, start - 1)
    base = start - 1
    while base > live.started_version:
        if base in retracted or live.records[base - 1]["kind"] == "rollback":
            base -= 1
            continue
        if phase_words(live, base - 1) != words:
            break
        base -= 1
    return max(base, live.started_version)


def inputs_between(live: LiveMatch, base: int, last: int) -> list[Input]:
    """The effective inputs of the batches from base+1 to `last`, in order."""
    retracted = live.batches.retracted()
    found = []
    version = base + 1
    while version <= last:
        end = live.batches.end_from(version)
        record = live.records[version - 1]
        why = record.get("cause")
        if record["kind"] == "game" and why is not None and version not in retracted and not record.get("start"):
            actor = str(why.get("actor") or "clock")
            text = str(why.get("text") or "")
            if not text and why.get("command") is not None:
                text = _format(live, why["command"])
            found.append(
                Input(version, end, actor, text, why.get("command"), float(record["at"]), bool(why.get("timeout")))
            )
        version = end + 1
    return found


def _format(live: LiveMatch, command: Any) -> str:
    try:
        return str(live.game.format(codec.from_json(live.game.command_types, command)))
    except (GameError, KeyError, TypeError, ValueError):
        return str(command)


def private_copy(live: LiveMatch, base: int, rules_version: str | None = None) -> LiveMatch:
    """The match folded in memory up to `base` (under `rules_version` if given): a copy nothing else sees."""
    records: list[Record] = [live.records[index] for index in range(base)]
    if rules_version is not None:
        records[0] = {**records[0], "rules_version": rules_version}
    try:
        return LiveMatch.from_records(live.id, records)
    except GameError as exc:
        raise BadRequest(str(exc)) from None


def decide_input(copy: LiveMatch, given: Input, text: str | None = None, **why: Any) -> list[Record]:
    """The game records one input makes on the copy now (applied to it), or a GameError if it no longer
    applies. `text`: a replacement in the seat's words."""
    game, state = copy.game, copy.state
    if given.timeout:
        if not rules.is_due(game, state, given.at):
            raise FailedPrecondition("its deadline had not come on the corrected match")
        events = decide_timeout(copy, given.at)
        if not events:
            raise FailedPrecondition("nothing was left to end at its deadline")
        made = game_records(events, cause("clock", timeout=True, **why), given.at)
    else:
        words = text if text is not None else given.text
        typed = game.parse(state, given.actor, words) if words else codec.from_json(game.command_types, given.command)
        events = decide_submission(copy, given.actor, typed, given.at)
        made = game_records(events, cause(given.actor, typed, words or None, **why), given.at)
    for record in made:
        copy.apply(record)
    return made


def play(copy: LiveMatch, inputs: Iterable[Input], replacements: Mapping[str, str], **why: Any) -> Played:
    """Decide `inputs` in order on the copy: a seat with a replacement has its last input of the phase
    replaced by it (its earlier ones are dropped); a seat with a replacement and no input gets it before the
    phase's last input. An input the game now refuses is dropped with its reason."""
    listed = list(inputs)
    last_of = {item.actor: item.version for item in listed}
    missing = [seat for seat in replacements if seat not in last_of]
    played = Played(copy)
    for index, item in enumerate(listed):
        if index == len(listed) - 1:
            for seat in missing:
                extra = Input(item.version, item.end, seat, replacements[seat], None, item.at)
                apply_input(played, extra, replacements[seat], why)
        if item.actor in replacements:
            if last_of[item.actor] != item.version:
                played.dropped.append((item, "replaced by the correction"))
                continue
            apply_input(played, item, replacements[item.actor], {**why, "replaces": item.version})
        else:
            apply_input(played, item, None, why)
    if not listed:
        for seat in missing:
            apply_input(
                played, Input(copy.version, copy.version, seat, replacements[seat], None, 0.0), replacements[seat], why
            )
    return played


def apply_input(played: Played, item: Input, text: str | None, why: Mapping[str, Any]) -> None:
    try:
        made = decide_input(played.copy, item, text, **why)
    except (GameError, FailedPrecondition) as exc:
        played.dropped.append((item, str(exc)))
        return
    played.records.extend(made)
    played.applied.append((item, played.copy.version - len(made) + 1))


def outcome(live: LiveMatch, version: int | None = None, viewer: Viewer = HOST) -> dict[str, Any]:
    """Where a match (or a copy) stands at `version`, as `viewer` sees it: phase, who is awaited, whether
    it is over, its results (scores and ranks: before the end, to the host only) and the viewer's view."""
    at = live.version if version is None else version
    state = live.state_at(at) if at != live.version else live.state
    status = live.status(at)
    return {
        "version": at,
        "phase": status.phase,
        "awaiting": sorted(status.awaiting - status.submitted),
        "finished": status.finished,
        "results": live.game.results(state) if viewer.is_host or status.finished else {},
        "view": live.game.view(state, viewer),
    }


def events_between(live: LiveMatch, base: int, last: int) -> list[Any]:
    """The effective game events of the versions from base+1 to `last` (what deciding them again must match)."""
    retracted = live.batches.retracted()
    records = (live.records[v - 1] for v in range(base + 1, last + 1) if v not in retracted)
    return [record["event"] for record in records if record["kind"] == "game"]


def differences(actual: Mapping[str, Any], tried: Mapping[str, Any]) -> list[str]:
    """The top-level facts that differ between two outcomes (and each seat's results)."""
    out = []
    for key in ("phase", "awaiting", "finished"):
        if actual[key] != tried[key]:
            out.append(f"{key}: {actual[key]} → {tried[key]}")
    for key in sorted({*actual["results"], *tried["results"]}):
        if actual["results"].get(key) != tried["results"].get(key):
            out.append(f"results.{key}: {actual['results'].get(key)} → {tried['results'].get(key)}")
    out.extend(_changed("view", actual["view"], tried["view"], depth=3))
    return out


def view_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """What differs between two views of one viewer, key by key (down to three levels)."""
    return _changed("view", dict(before), dict(after), depth=3)


def _changed(path: str, old: Any, new: Any, depth: int) -> list[str]:
    """Where two views differ, down to `depth` keys: 'view.players.ann.inventory: {...} → {...}'."""
    if old == new:
        return []
    if depth > 0 and isinstance(old, dict) and isinstance(new, dict):
        found: list[str] = []
        for key in sorted({*old, *new}, key=str):
            found.extend(_changed(f"{path}.{key}", old.get(key), new.get(key), depth - 1))
        return found
    return [f"{path}: {_short(old)} → {_short(new)}"]


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return text if len(text) <= 80 else text[:77] + "..."
