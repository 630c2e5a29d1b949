"""The duel fixture game (engine/fixtures/duel.py, where bench/ imports it too) and the tests' helpers
that seat and start a duel over a real client."""

from __future__ import annotations

from typing import Any

from engine.fixtures.duel import GAME, Duel, DuelState, Pick

__all__ = ["GAME", "Duel", "DuelState", "Pick", "seat_duel", "started_duel"]


def seat_duel(client: Any, seed: int) -> tuple[str, str, str, str]:
    """Create a duel over a real client and join both seats: (match id, host, ann's, bob's token)."""
    created = client.create("duel", ["ann", "bob"], seed=seed)
    return (
        created.match_id,
        created.host_token,
        client.join(created.match_id, "ann"),
        client.join(created.match_id, "bob"),
    )


def started_duel(client: Any, seed: int | None = None) -> Any:
    """Create a duel and open its first phase at once (host action start), before anyone joins: a match
    otherwise waits for its players. Returns the CreateMatchResponse."""
    created = client.create("duel", ["ann", "bob"], seed=seed)
    client.host_action(created.match_id, created.host_token, "start", "the test starts it")
    return created
