"""What an arena match's own log says of its end: each bot's rank, and the rollbacks made while it was
played (the tournament records both; verify checks the ranks against the match)."""

from __future__ import annotations

from typing import Any

from server.live import LiveMatch


def ranks_of(live: LiveMatch) -> dict[str, int]:
    """A finished bot match's ranks by bot (none for a cancelled match)."""
    if live.cancelled():
        return {}
    seats: dict[str, str] = dict(live.header.get("bots") or {})
    results = live.game.results(live.state).get("results", [])
    return {seats.get(str(row["player"]), str(row["player"])): int(row["rank"]) for row in results}


def rollbacks_of(live: LiveMatch) -> list[dict[str, Any]]:
    return [
        {"to": int(record["to"]), "reason": str(record.get("reason", "")), "by": str(record.get("by", ""))}
        for record in live.records
        if record.get("kind") == "rollback"
    ]
