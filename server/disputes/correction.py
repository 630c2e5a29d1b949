"""What a correction writes, decided on a private copy of the whole match before anything is written, and
the same decision made again by `verify` from the log, which must find the records it would have written.

The records: the rollback to before the resolution's phase (naming the dispute), the phase's inputs with
the host's replacements, then (with `reapply`) the later inputs that still apply, each caused as the
original was and naming it (`replaces`, `reapplies`), a resume if the rollback paused a running match, and
the decision: what was replaced, which inputs went where, and which seats are asked again (their seats
and versions only: the words of an input not yet revealed stay with its seat)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.disputes import replay
from server.disputes.log import DECIDED, Dispute, disputes_of
from server.live import LiveMatch
from server.records import Record


def correction_records(
    live: LiveMatch,
    dispute: Dispute,
    rollback: Record,
    reason: str,
    replacements: Mapping[str, str],
    reapply: bool,
    server_now: float,
) -> list[Record]:
    rollback = {**rollback, "dispute": dispute.number}
    copy = replay.private_copy(live, live.version)
    copy.apply(rollback)
    made, reapplied, asked = redo(live, copy, dispute, replacements, reapply)
    records: list[Record] = [rollback, *made]
    last_at = float(records[-1].get("at") or rollback["clock_to"])
    by = str(rollback["by"])
    if live.paused_at is None:  # the rollback paused a running match: it goes on from the last input's time
        resume: Record = {"kind": "host", "action": "resume", "by": by, "reason": f"dispute {dispute.id} corrected"}
        resume.update(at=last_at, offset=server_now - last_at, dispute=dispute.number)
        records.append(resume)
    decided: Record = {
        "kind": DECIDED,
        "number": dispute.number,
        "decision": "corrected",
        "reason": reason,
        "by": by,
        "replacements": dict(replacements),
        "reapply": reapply,
        "rollback_to": int(rollback["to"]),
        "reapplied": reapplied,
        "asked_again": asked,
        "at": last_at,
    }
    return [*records, decided]


def redo(
    before: LiveMatch, copy: LiveMatch, dispute: Dispute, replacements: Mapping[str, str], reapply: bool
) -> tuple[list[Record], list[dict[str, int]], list[dict[str, Any]]]:
    """On `copy` (the match with the correction's rollback applied), the corrected inputs and the
    re-applied ones, from the inputs `before` (the match as it stood before the rollback) holds."""
    version = dispute.at_version
    base = replay.phase_base(before, version)
    later = replay.inputs_between(before, version, before.version)
    corrected = replay.play(copy, replay.inputs_between(before, base, version), replacements, dispute=dispute.number)
    made = list(corrected.records)
    reapplied: list[dict[str, int]] = []
    asked = [item for item in later if not item.timeout]
    if reapply:
        more = replay.Played(copy)
        for item in later:
            count = len(more.records)
            replay.apply_input(more, item, None, {"dispute": dispute.number, "reapplies": item.version})
            if len(more.records) > count:
                reapplied.append({"from": item.version, "to": copy.version - (len(more.records) - count) + 1})
        made.extend(more.records)
        asked = [item for item, _ in more.dropped if not item.timeout]
    return made, reapplied, [{"seat": item.actor, "version": item.version} for item in asked]


def check_corrections(live: LiveMatch) -> tuple[int, str] | None:
    """The first corrected dispute whose records are not what its decision produces: (version, problem)."""
    records = [live.records[index] for index in range(live.version)]
    for dispute in disputes_of(live):
        if dispute.state != "corrected":
            continue
        decided = dispute.decided_version
        rollback_at = next(
            (
                v
                for v in range(dispute.filed_version + 1, decided)
                if records[v - 1]["kind"] == "rollback" and records[v - 1].get("dispute") == dispute.number
            ),
            None,
        )
        if rollback_at is None:
            return decided, f"dispute {dispute.id} was corrected without its rollback"
        before = LiveMatch.from_records(live.id, records[: rollback_at - 1])
        copy = LiveMatch.from_records(live.id, records[:rollback_at])
        decision = dispute.decision
        replacements = {str(k): str(v) for k, v in (decision.get("replacements") or {}).items()}
        made, reapplied, asked = redo(before, copy, dispute, replacements, bool(decision.get("reapply")))
        written = [r for r in records[rollback_at : decided - 1] if r["kind"] == "game"]
        if [_core(r) for r in written] != [_core(r) for r in made]:
            return rollback_at + 1, f"dispute {dispute.id}'s corrected records are not what its decision produces"
        expected = {
            "rollback_to": replay.phase_base(before, dispute.at_version),
            "reapplied": reapplied,
            "asked_again": asked,
        }
        for key, value in expected.items():
            if decision.get(key) != value:
                return (
                    decided,
                    f"dispute {dispute.id}'s decision says {key}={decision.get(key)!r}, its records {value!r}",
                )
    return None


def _core(record: Record) -> tuple[Any, Any]:
    return record.get("event"), record.get("cause")
