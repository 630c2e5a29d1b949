"""Seats and invitations, read from a match's records (so every server process agrees on them).

An invitation is a secret for one seat, stored as a hash: in the `created` record (one per seat) or in a
later `invited` record (the host's replacement). It claims the seat through JoinMatch and stays valid,
so a lost JoinMatch reply can be retried, until the seat acts (a record caused by its player), the host
fills the seat another way, or a newer invitation replaces it.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping

from server.records import Record


def seat_claimed(tokens: Mapping[str, tuple[str, str | None]], player: str) -> bool:
    return ("player", player) in tokens.values()


def seat_digests(tokens: Mapping[str, tuple[str, str | None]], player: str) -> list[str]:
    return [digest for digest, who in tokens.items() if who == ("player", player)]


def valid_invitation(records: Iterable[Record], player: str) -> str | None:
    """The hash of the seat's invitation if it may still claim the seat, else None."""
    current: str | None = None
    for record in records:
        kind = record.get("kind")
        if kind == "created":
            current = (record.get("invitations") or {}).get(player)
        elif kind == "invited" and record.get("player") == player:
            current = str(record["invitation"])
        elif kind == "joined" and record.get("player") == player and record.get("via") != "invitation":
            current = None  # the host filled the seat (or an old release's join): the invitation is spent
        elif kind == "game" and (record.get("cause") or {}).get("actor") == player:
            current = None  # the seat has acted: its token is in use
    return current


def invitation_matches(expected_digest: str | None, given_digest: str) -> bool:
    return expected_digest is not None and hmac.compare_digest(expected_digest, given_digest)
