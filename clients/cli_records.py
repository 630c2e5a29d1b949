"""One readable line per log record, for `matchctl history` and `matchctl watch`.

A line is the record's version, its time as an offset from the match's first record (`+15s`, `+4m35s`,
`+2h03m`), its kind and a few plain words: who did what, or a game event's type and its key facts. It
shows only what the record holds as the server sent it (the server redacts for the viewer); `--json`
has every record whole.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from matchserver.v1 import matchserver_pb2 as pb

Record = Mapping[str, Any]


def offset(seconds: float) -> str:
    """A time after the match's first record, in whole seconds: `+15s`, `+4m35s`, `+2h03m` (minutes, past
    an hour), `+3d04h` (hours, past a day)."""
    whole = max(0, round(seconds))
    minutes, secs = divmod(whole, 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"+{days}d{hours:02d}h"
    if hours:
        return f"+{hours}h{minutes:02d}m"
    if minutes:
        return f"+{minutes}m{secs:02d}s"
    return f"+{secs}s"


def names(values: Any) -> str:
    """A list of names (or other plain values) as `ann, bob`; `nobody` when empty."""
    if not isinstance(values, (list, tuple)):
        return str(values)
    return ", ".join(str(value) for value in values) or "nobody"


def record_start(event: pb.Event) -> float | None:
    """The match clock at the first record, that later lines are offsets from."""
    at = json.loads(event.json).get("at") if event.json else None
    return float(at) if isinstance(at, (int, float)) else None


def record_line(event: pb.Event, start: float | None) -> str:
    """One record: version, offset from the first record, kind, what happened; `(retracted)` when it was."""
    record: Record = json.loads(event.json) if event.json else {}
    at = record.get("at")
    when = offset(float(at) - start) if start is not None and isinstance(at, (int, float)) else ""
    mark = " (retracted)" if event.retracted else ""
    kind = event.kind or str(record.get("kind", ""))
    return f"{event.version:5d} {when:>7} {kind:8s} {describe(kind, event.type, record)}{mark}".rstrip()


def describe(kind: str, event_type: str, record: Record) -> str:
    """A record in a few plain words (one line; no JSON)."""
    if kind == "game":
        return _game(event_type, record)
    if kind == "created":
        return _created(record)
    if kind == "joined":
        return f"{record.get('player', 'a player')} took their seat"
    if kind == "invited":
        return f"a new invitation for {record.get('player', 'a seat')}"
    if kind == "host":
        return _host(record)
    if kind == "rollback":
        return _rollback(record)
    if kind == "chain_keyed":
        return f"the log's chain is keyed from here (key {record.get('key_id', '?')})"
    return _facts(record, skip=("kind", "at"))


def _created(record: Record) -> str:
    words = f"{record.get('game', 'a')} match for {names(record.get('players') or [])}"
    seed = record.get("seed")
    if isinstance(seed, int):
        words += f", seed {seed}"
    origin = record.get("origin")
    if isinstance(origin, Mapping):
        words += f"; a fork of {origin.get('match_id')} at version {origin.get('version')}"
    return words


def _host(record: Record) -> str:
    by = record.get("by") or "host"
    action = record.get("action", "?")
    reason = f" ({record['reason']})" if record.get("reason") else ""
    if action == "fork":
        return f"{by}: fork at version {record.get('at_version', '?')} as {record.get('fork', '?')}{reason}"
    if action == "extend" and record.get("seconds"):
        return f"{by}: extend by {_seconds(record['seconds'])}{reason}"
    return f"{by}: {action}{reason}"


def _rollback(record: Record) -> str:
    by = record.get("by") or "host"
    reason = f" ({record['reason']})" if record.get("reason") else ""
    reopen = "; reopened with a new seed" if record.get("reopen") else ""
    return f"{by}: rolled back to version {record.get('to', '?')}{reason}{reopen}"


def _seconds(value: Any) -> str:
    return f"{value:g} s" if isinstance(value, (int, float)) else str(value)


SUBMISSIONS = frozenset({"submission_received", "orders_submitted", "setup_submitted"})


def _game(event_type: str, record: Record) -> str:
    """A game record: who caused it (on a batch's first record), then the event's type and key facts."""
    event = record.get("event")
    event = event if isinstance(event, Mapping) else {}
    kind = str(event.get("type") or event_type or "event")
    cause = record.get("cause")
    cause = cause if isinstance(cause, Mapping) else {}
    actor = cause.get("actor")
    if kind in SUBMISSIONS or (kind == "hidden" and actor not in (None, "server", "clock", "host", "fork")):
        who = event.get("player") or actor or "a player"
        if cause.get("text"):  # the viewer may see what was submitted (the host, or the player themself)
            return f"{kind}: {who}: {cause['text']}"
        return f"{kind}: {who} submitted"
    if kind == "hidden":
        return "hidden (not for this viewer)"
    why = _why(cause)
    facts = FACTS.get(kind, _generic)(event)
    said = "; ".join(part for part in (why, facts) if part)
    return f"{kind}: {said}" if said else kind


def _why(cause: Mapping[str, Any]) -> str:
    """Who caused a batch of events, as far as the viewer may see (a non-host sees only the actor)."""
    actor = cause.get("actor")
    if cause.get("forced") or actor == "host":
        reason = f" ({cause['reason']})" if cause.get("reason") else ""
        return f"host ended the phase{reason}"
    if cause.get("timeout") or actor == "clock":
        return "deadline passed"
    if actor == "fork":
        return f"copied from {cause.get('origin', '?')} at version {cause.get('version', '?')}"
    return ""


def _phase_opened(event: Record) -> str:
    who = f", awaiting {names(event['players'])}" if event.get("players") else ""
    return f"round {event.get('round', '?')} {event.get('phase', '')}{who}".rstrip()


def _trees(event: Record) -> str:
    trees = [f"{t.get('berry')} {t.get('quantity')}" for t in event.get("trees") or [] if isinstance(t, Mapping)]
    return f"round {event.get('round', '?')}: {', '.join(trees) or 'no trees'}"


def _judge(event: Record) -> str:
    return f"judge {event.get('index', '?')}: {event.get('criterion', '')}".rstrip(": ")


def _prepared(event: Record) -> str:
    judges, schedule = event.get("judges") or [], event.get("schedule") or []
    return f"{len(judges)} judges and {len(schedule)} rounds of trees drawn"


def _per_player(field: str, what: str) -> Callable[[Record], str]:
    """An event with a table of player -> list (placements, moves...): the round and how many each."""

    def facts(event: Record) -> str:
        table = event.get(field)
        counts = (
            ", ".join(f"{name} {len(items)}" for name, items in table.items() if isinstance(items, list))
            if isinstance(table, Mapping)
            else ""
        )
        return f"round {event.get('round', '?')}" + (f"; {what}: {counts}" if counts else "")

    return facts


def _harvest(event: Record) -> str:
    sends = event.get("sends")
    if not isinstance(sends, Mapping):
        return f"round {event.get('round', '?')}"
    each = [
        f"{name} {sum(s.get('count', 0) for s in items if isinstance(s, Mapping))}"
        for name, items in sends.items()
        if isinstance(items, list)
    ]
    return f"round {event.get('round', '?')}; harvesters sent: {', '.join(each)}"


def _time_expired(event: Record) -> str:
    late = f"; late: {names(event['players'])}" if event.get("players") else ""
    winner = f"; {event['winner']} wins" if event.get("winner") else ""
    return f"round {event.get('round', '?')} {event.get('phase', '')}{late}{winner}"


def _dish_defaulted(event: Record) -> str:
    return f"{event.get('player', '?')} serves dish {event.get('dish', '?')} by default"


def _judged(event: Record) -> str:
    judges = [j for j in event.get("judges") or [] if isinstance(j, Mapping)]
    winners = [f"judge {j.get('index')}: {j.get('winner') or 'a tie'}" for j in judges]
    return "; ".join(winners)


def _step(event: Record) -> str:
    return f"step {event.get('step', '?')}"


def _step_resolved(event: Record) -> str:
    words = f"step {event.get('step', '?')}"
    if event.get("winner"):
        tile = event.get("tile")
        tile = tile if isinstance(tile, Mapping) else {}
        paid = f" for {event['paid']}" if event.get("paid") is not None else ""
        words += f"; {event['winner']} wins the {tile.get('kind', 'tile')}{paid}"
    return words


def _frame_round(event: Record) -> str:
    awards = [a for a in event.get("awards") or [] if isinstance(a, Mapping)]
    won = ", ".join(f"{a.get('frame', '?')} to {a.get('player', '?')} for {a.get('paid', 0)}" for a in awards)
    return f"round {event.get('round', '?')}" + (f"; frames: {won}" if won else "")


def _ranking(event: Record) -> str:
    ranking = event.get("ranking")
    if isinstance(ranking, list) and ranking:
        return "ranking: " + ", ".join(_plain(entry) for entry in ranking)
    parts = []
    players = event.get("players")
    if isinstance(players, list):  # mining: the gold each ends with
        gold = [f"{p.get('name', '?')} {p.get('gold', 0)}" for p in players if isinstance(p, Mapping)]
        parts.append("gold: " + ", ".join(gold))
    candidates = event.get("candidates")
    if isinstance(candidates, list) and candidates:
        parts.append(f"elimination candidates: {names(candidates)}")
    return "; ".join(parts)


def _round(event: Record) -> str:
    return f"round {event.get('round', '?')}"


def _setup_resolved(event: Record) -> str:
    defaulted = event.get("defaulted") or []
    return f"miners placed; defaulted: {names(defaulted)}" if defaulted else "miners placed"


def _round_resolved(event: Record) -> str:
    defaulted = event.get("defaulted") or []
    return f"round {event.get('round', '?')}" + (f"; defaulted: {names(defaulted)}" if defaulted else "")


def _plain(value: Any) -> str:
    """A small value as words: a mapping's scalars as `key value`, a list's items joined; never JSON."""
    if isinstance(value, Mapping):
        return " ".join(f"{k} {v}" for k, v in value.items() if not isinstance(v, (Mapping, list)) and v is not None)
    if isinstance(value, list):
        return ", ".join(_plain(item) for item in value)
    return str(value)


GENERIC_SKIP = ("type", "at", "trace", "deadline", "base", "base_deadline", "command", "sealed")


def _generic(event: Record) -> str:
    return _facts(event, GENERIC_SKIP)


def _facts(record: Record, skip: Sequence[str]) -> str:
    """A record's short facts: its plain values (numbers, words, lists of names) as `key value`."""
    shown = []
    for key, value in record.items():
        if key in skip or value in (None, "", [], {}):
            continue
        if isinstance(value, list) and all(isinstance(item, (str, int, float)) for item in value) and len(value) <= 8:
            shown.append(f"{key.replace('_', ' ')} {names(value)}")
        elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
            shown.append(f"{key.replace('_', ' ')} {value}")
        elif isinstance(value, bool) and value:
            shown.append(key.replace("_", " "))
    return ", ".join(shown)


FACTS: dict[str, Callable[[Record], str]] = {
    "match_prepared": _prepared,
    "judge_revealed": _judge,
    "trees_revealed": _trees,
    "phase_opened": _phase_opened,
    "harvest_resolved": _harvest,
    "placements_revealed": _per_player("placements", "berries placed"),
    "sabotage_announced": _per_player("sabotage", "sabotage"),
    "moves_revealed": _per_player("moves", "moves"),
    "pots_cooked": _round,
    "dishes_removed": _round,
    "match_judged": _judged,
    "dish_defaulted": _dish_defaulted,
    "time_expired": _time_expired,
    "frame_round_opened": _round,
    "frame_round_resolved": _frame_round,
    "step_opened": _step,
    "step_resolved": _step_resolved,
    "match_finished": _ranking,
    "setup_opened": lambda event: "every player places five miners",
    "setup_resolved": _setup_resolved,
    "round_opened": _round,
    "round_resolved": _round_resolved,
}
