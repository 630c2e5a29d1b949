"""Disputes: a seat or the host contests a resolution; the host reviews it (its trace, inputs, every seat's
view before and after, the resolution decided again under today's rules), tries corrections on a private
copy, and upholds or corrects it. A correction is today's safe rollback to before the resolution's phase,
the corrected inputs, then (with `reapply`) the later inputs that still apply, each a record that names
the dispute; the seats whose inputs no longer apply are asked again (server/disputes/)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.contract import Viewer
from engine.registry import get_game
from server import audit
from server.application.callers import accepted
from server.application.commands import CommandRoom, new_seed
from server.application.values import Accepted
from server.decisions import decide_rollback
from server.disputes import replay
from server.disputes.correction import correction_records
from server.disputes.log import DECIDED, FILED, Dispute, disputes_of, find, parse_dispute_id
from server.disputes.rules_text import rule_links
from server.errors import BadRequest, FailedPrecondition, PermissionDenied, ResourceExhausted
from server.live import LiveMatch
from server.records import Record
from server.requests import RequestTag, tagged


@dataclass(frozen=True)
class Filed:
    dispute: Dispute
    accepted: Accepted


class DisputeRoom(CommandRoom):
    async def file(
        self, match_id: uuid.UUID, token: str | None, at_version: int, text: str, tag: RequestTag | None = None
    ) -> Filed:
        text = text.strip()
        if not text:
            raise BadRequest("a dispute needs its reason: say what was wrong with the ruling")
        if len(text) > self.limits.max_dispute_chars:
            raise BadRequest(
                f"a dispute is {len(text)} characters, over max_dispute_chars ({self.limits.max_dispute_chars})"
            )

        async def act(live: LiveMatch) -> Filed:
            viewer = await self.callers.viewer_for(live, token)
            if viewer.kind not in ("player", "host"):
                raise PermissionDenied("a dispute is filed by a seat of the match or its host")
            by = viewer.player if viewer.player is not None else self.callers.by(token)
            caller = f"seat:{by}" if viewer.player is not None else self.access.caller_of(live, token)
            resolved = replay.resolution_at(live, at_version)
            held = [d for d in disputes_of(live) if d.by == by and d.state == "open"]
            most = self.limits.max_open_disputes_per_seat
            if len(held) >= most:
                raise ResourceExhausted(
                    f"{by} already has {len(held)} open disputes (max_open_disputes_per_seat is {most}); "
                    "wait for the host to decide one"
                )
            number = 1 + max((d.number for d in disputes_of(live)), default=0)
            record: Record = {"kind": FILED, "number": number, "by": by, "at_version": resolved, "text": text}
            record["at"] = self.uow.now(live)
            written = await self.uow.append(live, tagged([record], tag, caller))
            return Filed(find(live, number), accepted(live, viewer, written))

        return await self.uow.write(match_id, act)

    async def listed(self, match_id: uuid.UUID, token: str | None) -> list[Dispute]:
        live = await self.matches.load(match_id)
        await self.callers.viewer_for(live, token)  # anyone who may watch the match sees its disputes
        return disputes_of(live)

    async def _hosted(self, dispute_id: str, token: str | None) -> tuple[LiveMatch, Dispute, Viewer]:
        """The match, the dispute and the corrector's viewer: the host, or (a registered policy's match,
        e.g. an arena match) its organiser, who sees it as a spectator and is shown no more than that."""
        match_id, number = parse_dispute_id(dispute_id)
        live = await self.matches.load(match_id)
        viewer = await self.callers.require_host(live, token)
        return live, find(live, number), viewer

    async def review(self, dispute_id: str, token: str | None) -> dict[str, Any]:
        """Host: the contested resolution's trace (rule ids linked to our words), its inputs with their
        times and receipts, every seat's view just before and just after, and the resolution decided again
        under the current rules."""
        live, dispute, viewer = await self._hosted(dispute_id, token)
        version = dispute.at_version
        base = replay.phase_base(live, version)
        inputs = replay.inputs_between(live, base, version)
        trace = audit.trail(live, viewer, version, start=base + 1)
        viewers = {"spectator": Viewer.spectator()}
        if viewer.is_host:
            viewers = {seat: Viewer.of(seat) for seat in live.players} | viewers
        before, after = live.state_at(base), live.state_at(version)
        current = get_game(live.game.name).rules_version
        copy = replay.private_copy(live, base, current)
        again = replay.play(copy, inputs, {})
        actual, redecided = replay.outcome(live, version, viewer), replay.outcome(copy, viewer=viewer)
        same = replay.events_between(live, base, version) == [r["event"] for r in again.records]
        views = {name: (live.game.view(before, seen), live.game.view(after, seen)) for name, seen in viewers.items()}
        return {
            "dispute": dispute.as_json(),
            "resolution": {"version": version, "phase_from": base + 1, "phase": live.status(base).phase},
            "trace": [{**entry, "rules": rule_links(live.game.name, entry.get("lines", []))} for entry in trace],
            "inputs": [{**shown_input(item, viewer), "receipt": audit_receipt(live, item.end)} for item in inputs],
            "views": {name: {"before": old, "after": new} for name, (old, new) in views.items()},
            # each viewer's view, before and after side by side: what the resolution changed
            "changes": {name: replay.view_changes(old, new) for name, (old, new) in views.items()},
            "redecided": {
                "rules_version": current,
                "recorded_rules_version": live.game.rules_version,
                "same": same and not again.dropped,
                "lines": lines_for(copy, base + 1, copy.version, viewer),
                "differences": replay.differences(actual, redecided),
                "dropped": [{"input": i.as_json(), "why": why} for i, why in again.dropped],
            },
        }

    async def try_correction(
        self,
        dispute_id: str,
        token: str | None,
        replacements: Mapping[str, str],
        rules_version: str | None = None,
        forward: bool = False,
    ) -> dict[str, Any]:
        """Host: a correction decided on a private copy from the version before the resolution's phase, next
        to what happened; with `forward`, the rest of the recorded inputs played on, and where both end.
        Nothing is written and no stream hears of it."""
        live, dispute, viewer = await self._hosted(dispute_id, token)
        check_replacements(live, replacements)
        version = dispute.at_version
        base = replay.phase_base(live, version)
        copy = replay.private_copy(live, base, rules_version)
        tried = replay.play(copy, replay.inputs_between(live, base, version), replacements)
        actual = replay.outcome(live, version, viewer)
        shown = replay.outcome(copy, viewer=viewer)
        out: dict[str, Any] = {
            "dispute": dispute.id,
            "replacements": dict(replacements),
            "rules_version": copy.game.rules_version,
            "actual": {
                **actual,
                "lines": lines_for(live, base + 1, version, viewer),
            },
            "tried": {**shown, "lines": lines_for(copy, base + 1, copy.version, viewer)},
            "differences": replay.differences(actual, shown),
            "dropped": [{"input": i.as_json(), "why": why} for i, why in tried.dropped],
        }
        if forward:
            later = replay.play(copy, replay.inputs_between(live, version, live.version), {})
            end_actual, end_tried = replay.outcome(live, viewer=viewer), replay.outcome(copy, viewer=viewer)
            out["forward"] = {
                "actual": end_actual,
                "tried": end_tried,
                "differences": replay.differences(end_actual, end_tried),
                "dropped": [{"input": i.as_json(), "why": why} for i, why in later.dropped],
            }
        return out

    async def uphold(self, dispute_id: str, token: str | None, reason: str, tag: RequestTag | None = None) -> Accepted:
        match_id, number = parse_dispute_id(dispute_id)
        if not reason.strip():
            raise BadRequest("upholding a ruling needs a reason (it is kept in the match's log)")

        async def act(live: LiveMatch) -> Accepted:
            viewer, caller, again = await self.callers.as_host(live, token, tag)
            if again is not None:
                return again
            open_dispute(find(live, number))
            record: Record = {"kind": DECIDED, "number": number, "decision": "upheld", "reason": reason}
            record.update(by=self.callers.by(token), at=self.uow.now(live))
            written = await self.uow.append(live, tagged([record], tag, caller))
            return accepted(live, viewer, written)

        return await self.uow.write(match_id, act)

    async def correct(
        self,
        dispute_id: str,
        token: str | None,
        reason: str,
        replacements: Mapping[str, str],
        reapply: bool = False,
        tag: RequestTag | None = None,
    ) -> Accepted:
        match_id, number = parse_dispute_id(dispute_id)
        if not reason.strip():
            raise BadRequest("a correction needs a reason (it is kept in the match's log)")

        async def act(live: LiveMatch) -> Accepted:
            viewer, caller, again = await self.callers.as_host(live, token, tag)
            if again is not None:
                return again
            dispute = open_dispute(find(live, number))
            check_replacements(live, replacements)
            rollback = decide_rollback(
                live,
                replay.phase_base(live, dispute.at_version),
                f"dispute {dispute.id} corrected: {reason}",
                self.callers.by(token),
                self.clock.now(),
                reopen=live.status().finished,
                new_seed=new_seed(),
            )
            records = correction_records(live, dispute, rollback, reason, replacements, reapply, self.clock.now())
            written = await self.uow.append(live, tagged(records, tag, caller))
            return accepted(live, viewer, written)

        return await self.uow.write(match_id, act)


def open_dispute(dispute: Dispute) -> Dispute:
    if dispute.state != "open":
        raise FailedPrecondition(
            f"dispute {dispute.id} was {dispute.state} already (at version {dispute.decided_version})"
        )
    return dispute


def check_replacements(live: LiveMatch, replacements: Mapping[str, str]) -> None:
    for seat, text in replacements.items():
        if seat not in live.players:
            raise BadRequest(f"{seat!r} is not a seat of this match (a replacement is 'SEAT: TEXT')")
        if not text.strip():
            raise BadRequest(f"the replacement for {seat} is empty")


def lines_for(live: LiveMatch, first: int, last: int, viewer: Viewer) -> list[str]:
    """What the game records from `first` to `last` did, in the game's words, as `viewer` may see them."""
    if last < first:
        return []
    entries = audit.trail(live, viewer, last, start=first)
    return [line for entry in entries if entry["kind"] == "game" and not entry["retracted"] for line in entry["lines"]]


def shown_input(item: replay.Input, viewer: Viewer) -> dict[str, Any]:
    """An input as the corrector may see it: an organiser watching as a spectator sees who acted, not what."""
    shown = item.as_json()
    if not viewer.is_host and not item.timeout:
        shown["text"] = "(hidden from a spectator)"
    return shown


def audit_receipt(live: LiveMatch, version: int) -> dict[str, Any]:
    record = live.records[version - 1]
    return {"version": version, "chain_head": str(record.get("hash", "")), "key_id": str(record.get("key_id", ""))}
