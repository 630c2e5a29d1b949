"""Reading a match's record for a dispute: verify (re-decide everything, check the hash chain) and the
audit trail (every resolution's trace, in plain words, as the viewer may see it)."""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from engine import codec
from engine import match as rules
from engine.contract import Event, Viewer
from engine.registry import get_game
from server.disputes.correction import check_corrections
from server.live import LiveMatch
from server.records import Receipt, Record, first_broken_link, receipt_problem, unkeyed_until
from server.visibility import visible, visible_records


def verify(
    match_id: uuid.UUID,
    records: list[Record],
    current_rules_version: str,
    keys: Mapping[str, bytes] | None = None,
    receipts: Sequence[Receipt] = (),
    viewer: Viewer | None = None,
) -> dict[str, Any]:
    """OK, or the first problem: a broken hash chain (keyed records checked under `keys`), a receipt the
    log no longer holds, or an event the current engine would decide differently (both side by side).
    The records it shows are as `viewer` may see them (default: the host), like every other read."""
    seen = _Shown(match_id, records, viewer or Viewer.host())
    report: dict[str, Any] = {
        "ok": True,
        "checked": 0,
        "version": len(records),
        "recorded_rules_version": str(records[0].get("rules_version", "")),
        "current_rules_version": current_rules_version,
        "receipts_checked": 0,
        "unkeyed_until": unkeyed_until(records),
    }
    broken = first_broken_link(records, keys)
    if broken is not None:
        report.update(ok=False, first_bad_version=broken[0], problem=f"hash chain broken: {broken[1]}")
        report["recorded_json"] = seen.recorded(broken[0])
        return report
    for receipt in sorted(receipts, key=lambda kept: kept.version):
        problem = receipt_problem(records, receipt)
        if problem is not None:
            report.update(ok=False, first_bad_version=receipt.version, problem=problem)
            if receipt.version <= len(records):
                report["recorded_json"] = seen.recorded(receipt.version)
            return report
        report["receipts_checked"] += 1
    replay = LiveMatch.from_records(match_id, records)
    for before, events in game_record_batches(replay.records):
        why = records[before].get("cause", {})
        if why.get("actor") == "fork":
            continue  # copied from the origin match, which verifies them
        recomputed = _recompute(replay, before, why)
        report["checked"] += 1
        for offset in range(max(len(events), len(recomputed))):
            old = events[offset] if offset < len(events) else None
            new = recomputed[offset] if offset < len(recomputed) else None
            if old != new:
                report.update(ok=False, first_bad_version=before + 1 + offset)
                report["problem"] = "the current engine decides differently from the recorded event"
                report["recorded_json"] = seen.event(before + 1 + offset, old)
                report["recomputed_json"] = seen.event(before + 1 + offset, new)
                return report
    corrected = check_corrections(replay)  # each decided dispute's records are what its decision produced
    if corrected is not None:
        report.update(ok=False, first_bad_version=corrected[0], problem=corrected[1])
        report["recorded_json"] = seen.recorded(corrected[0])
    return report


class _Shown:
    """Records of a verify report as its caller may see them: the host the stored JSON, anyone else (an
    bot match's organiser, who sees it as a spectator) what History would show them (no seed before
    the end, no sealed command, no request id). A record that cannot be folded is not shown at all."""

    HIDDEN = json.dumps({"hidden": "not shown: this caller may not see this record yet"})

    def __init__(self, match_id: uuid.UUID, records: list[Record], viewer: Viewer) -> None:
        self.match_id, self.records, self.viewer = match_id, records, viewer
        self._replay: LiveMatch | None = None

    def recorded(self, version: int) -> str:
        return self._as_seen(version, self.records[version - 1])

    def event(self, version: int, event: Event | None) -> str:
        """A game event (recorded or recomputed) at `version`."""
        if event is None or self.viewer.is_host:
            return json.dumps(event, sort_keys=True)
        shown = self._visible(version, {"kind": "game", "event": event, "at": self.records[version - 1].get("at")})
        return self.HIDDEN if shown is None else json.dumps(shown["event"], sort_keys=True)

    def _as_seen(self, version: int, record: Record) -> str:
        if self.viewer.is_host:
            return json.dumps(record, sort_keys=True)
        shown = self._visible(version, record)
        return self.HIDDEN if shown is None else json.dumps(shown, sort_keys=True)

    def _visible(self, version: int, record: Record) -> Record | None:
        try:
            if self._replay is None:
                self._replay = LiveMatch.from_records(self.match_id, self.records)
            before = self._replay.state_at(version - 1) if record.get("kind") == "game" else None
            return visible(self._replay, version, record, before, self.viewer)
        except Exception:  # a tampered or unreadable record: say nothing of it rather than echo it raw
            return None


def _recompute(replay: LiveMatch, before: int, why: dict[str, Any]) -> list[Event]:
    game, state, at = replay.game, replay.state_at(before), float(replay.records[before]["at"])
    # The seed in force for this batch: a rollback that reopened a finished match recorded a new one.
    ctx = rules.context(replay.envelope.seed_at(before), replay.moves[before], at)
    try:
        if why.get("start"):
            return game.start(state, ctx)
        if why.get("timeout"):
            return game.timeout(state, ctx)
        command = codec.from_json(game.command_types, why["command"])
        return rules.submit(game, state, why["actor"], command, ctx)
    except Exception as exc:  # the current engine refuses what was once accepted: a difference
        return [{"type": "refused", "error": f"{type(exc).__name__}: {exc}"}]


def unreadable(version: int, reason: str, prefix: LiveMatch | None) -> dict[str, Any]:
    """The report for a quarantined match: the first stored record that cannot be read or applied."""
    return {
        "ok": False,
        "checked": 0,
        "version": prefix.version if prefix is not None else 0,
        "first_bad_version": version,
        "problem": f"the stored record cannot be read ({reason}): the match is quarantined (DATA_LOSS)",
        "recorded_rules_version": str(prefix.header.get("rules_version", "")) if prefix is not None else "",
        "current_rules_version": get_game(prefix.game.name).rules_version if prefix is not None else "",
        "receipts_checked": 0,
        "unkeyed_until": 0,
    }


def trail(live: LiveMatch, viewer: Viewer, upto: int, limit: int | None = None, start: int = 1) -> list[dict[str, Any]]:
    """An entry for every record from `start` to `upto` that explains itself, as `viewer` may see it (the
    first `limit` of them): one running fold from the batch that holds `start`, stopped once they are found."""
    entries = _entries(live, viewer, live.batches.start_at(start), upto)
    return list(itertools.islice((entry for entry in entries if entry["version"] >= start), limit))


def _entries(live: LiveMatch, viewer: Viewer, first: int, upto: int) -> Iterator[dict[str, Any]]:
    retracted = live.batches.retracted()
    actor: str | None = None
    source = ""
    for version, record in visible_records(live, first, upto, viewer):  # one running fold, not a StateAt each
        why = record.get("cause")
        if why is not None:
            actor = why.get("actor")
            source = why.get("text") or _describe_cause(why)
        elif record["kind"] != "game":  # host records name their own author
            actor, source = record.get("by"), ""
        lines: list[str] = []
        kind = record["kind"]
        if kind == "game":
            lines = live.game.explain(record["event"])
        elif kind == "rollback":
            lines = [f"{record['by']} rolled back to version {record['to']}: {record['reason']}"]
            if record.get("reopen"):
                lines.append(_reopened(record))
        elif kind == "host":
            extra = f" by {record['seconds']} s" if record.get("action") == "extend" else ""
            if record.get("action") == "fork":
                extra = f" at version {record['at_version']} as match {record['fork']}"
            lines = [f"{record['by']}: {record['action']}{extra}: {record.get('reason') or 'no reason given'}"]
        elif kind == "created":
            lines = [f"match of {record['game']} created for {', '.join(record['players'])}"]
        elif kind in ("dispute", "dispute_decided"):
            actor, source, lines = str(record.get("by", "")), "", dispute_lines(record)
        if not lines:
            continue
        yield {
            "version": version,
            "kind": kind,
            "type": (record.get("event") or {}).get("type", ""),
            "at": record.get("at") or 0.0,
            "actor": actor or "",
            "input": source,
            "lines": lines,
            "retracted": version in retracted,
        }


def dispute_lines(record: Record) -> list[str]:
    """A dispute's life in the audit trail and on the replay page's timeline: filed, then decided."""
    number = record.get("number")
    if record["kind"] == "dispute":
        return [
            f"{record['by']} disputes the resolution at version {record['at_version']} (dispute {number}): "
            f"{record['text']}"
        ]
    if record.get("decision") == "upheld":
        return [f"{record['by']} upheld the ruling (dispute {number}): {record.get('reason', '')}"]
    lines = [f"{record['by']} corrected the ruling (dispute {number}): {record.get('reason', '')}"]
    lines += [f"  {seat}'s input replaced: {text}" for seat, text in (record.get("replacements") or {}).items()]
    lines += [
        f"  re-applied the input of version {m['from']} at version {m['to']}" for m in record.get("reapplied", [])
    ]
    lines += [
        f"  {a['seat']} is asked again (its input at version {a['version']} no longer applies)"
        for a in record.get("asked_again", [])
    ]
    return lines


def _reopened(record: Record) -> str:
    """A rollback that reopened a finished match: its new seed, where the viewer may see it (visible_record
    shows it to the host, and to everyone once the match is over again; otherwise it says it is hidden)."""
    seed = record.get("seed")
    shown = f"seed {seed}" if isinstance(seed, int) else f"seed ({seed})" if seed else "seed"
    return (
        f"the match was over, so it was reopened with a new {shown} for every draw after version {record['to']} "
        "(the old seed was public)"
    )


def _describe_cause(why: Mapping[str, Any]) -> str:
    if why.get("forced"):
        return f"the host ended the phase: {why.get('reason', '')}"
    if why.get("timeout"):
        return "the phase deadline passed"
    if why.get("start"):
        return "the match started"
    if why.get("actor") == "fork":
        return f"forked from {why.get('origin')} at version {why.get('version')}"
    return ""


def game_record_batches(records: Sequence[Record]) -> list[tuple[int, list[Event]]]:
    """(version before the batch, its events) for each caused batch of game records."""
    batches: list[tuple[int, list[Event]]] = []
    for version, record in enumerate(records, start=1):
        if record["kind"] != "game":
            continue
        if "cause" in record or not batches:
            batches.append((version - 1, []))
        batches[-1][1].append(record["event"])
    return batches
