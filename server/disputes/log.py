"""A match's disputes, read from its log: a `dispute` record files one, a `dispute_decided` record decides
it. Both are public to every viewer of the match (a dispute is argued in the open, as on a forum), and a
rollback never retracts a dispute's life: the records stay in the log, and so does the story."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from server.errors import BadRequest, NotFound
from server.live import LiveMatch

FILED = "dispute"
DECIDED = "dispute_decided"


@dataclass
class Dispute:
    match_id: str
    number: int
    by: str  # the seat that filed it, or the host's name
    at_version: int  # the resolution it contests
    text: str
    filed_version: int
    filed_at: float
    state: str = "open"  # open, upheld or corrected
    decision: dict[str, Any] = field(default_factory=dict)  # the dispute_decided record
    decided_version: int = 0

    @property
    def id(self) -> str:
        return f"{self.match_id}.{self.number}"

    def as_json(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "match": self.match_id,
            "number": self.number,
            "by": self.by,
            "at_version": self.at_version,
            "text": self.text,
            "filed_version": self.filed_version,
            "filed_at": self.filed_at,
            "state": self.state,
        }
        if self.decision:
            out["decision"] = {k: v for k, v in self.decision.items() if k not in ("kind", "prev", "hash", "request")}
            out["decided_version"] = self.decided_version
        return out


def disputes_of(live: LiveMatch) -> list[Dispute]:
    found: dict[int, Dispute] = {}
    for version in live.envelope.disputes:  # not the whole log: the envelope keeps where they are
        record = live.records[version - 1]
        kind = record["kind"]
        if kind == FILED:
            number = int(record["number"])
            found[number] = Dispute(
                str(live.id),
                number,
                str(record["by"]),
                int(record["at_version"]),
                str(record["text"]),
                version,
                float(record["at"]),
            )
        elif kind == DECIDED and int(record["number"]) in found:
            dispute = found[int(record["number"])]
            dispute.state, dispute.decision, dispute.decided_version = str(record["decision"]), dict(record), version
    return [found[n] for n in sorted(found)]


def parse_dispute_id(text: str) -> tuple[uuid.UUID, int]:
    """A dispute's id: `<match id>.<number>`."""
    match_text, _, number = text.rpartition(".")
    try:
        return uuid.UUID(match_text), int(number)
    except ValueError:
        raise BadRequest(f"{text!r} is not a dispute id (<match id>.<number>, as `matchctl dispute` printed)") from None


def find(live: LiveMatch, number: int) -> Dispute:
    for dispute in disputes_of(live):
        if dispute.number == number:
            return dispute
    raise NotFound(f"match {live.id} has no dispute {number}")
