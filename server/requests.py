"""Idempotent writes: a client's request_id, recorded with the batch it caused.

A write request may carry a request_id (1-64 characters of [A-Za-z0-9_-]: server/limits.py). The first
record of the batch it appends carries {"id", "caller", "fingerprint"}; a retry with the same id from
the same caller finds it (LiveMatch.requests, rebuilt from the log, so it survives restarts and works
across server processes) and gets the original outcome instead of a second write. The fingerprint is a
digest of the request without its id: the same id with another body is refused. Secrets a write hands
out (a host token, a seat token, invitations) are derived from the server key, the match and the request
id, so a retry returns the same ones; without a request id they are random.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from server.errors import BadRequest
from server.identities import BOT_KEY_PREFIX, KEY_PREFIX
from server.records import Record

# What each secret the server hands out starts with (it also keeps a secret from starting with "-").
SECRET_PREFIXES = {
    "host": "msh_",
    "seat": "mss_",
    "invitation": "msi_",
    "invited": "msi_",
    "host-key": KEY_PREFIX,
    "bot-key": BOT_KEY_PREFIX,
}


@dataclass(frozen=True)
class RequestTag:
    request_id: str
    fingerprint: str

    def record(self, caller: str) -> dict[str, Any]:
        return {"id": self.request_id, "caller": caller, "fingerprint": self.fingerprint}


def same_body(recorded: dict[str, Any], tag: RequestTag) -> None:
    if not hmac.compare_digest(str(recorded.get("fingerprint", "")), tag.fingerprint):
        raise BadRequest(
            f"request_id {tag.request_id!r} was already used for a different request; use a new id for a new request"
        )


def derived_secret(key: bytes, *parts: str) -> str:
    """A secret only this server (holding `key`) can compute again from the same parts."""
    mac = hmac.new(key, "|".join(("matchserver-secret", *parts)).encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:24]).decode().rstrip("=")


def tagged(records: Sequence[Record], tag: RequestTag | None, caller: str) -> list[Record]:
    """The batch with the request recorded on its first record."""
    if tag is None or not records:
        return list(records)
    return [{**records[0], "request": tag.record(caller)}, *records[1:]]


class Secrets:
    """New secrets: derived from the request id when there is one, so a retry gets the same again. Each
    one's prefix says what it is and keeps it from starting with "-" (which a command line reads as a flag)."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def new(self, tag: RequestTag | None, scope: str, purpose: str, *parts: str) -> str:
        prefix = SECRET_PREFIXES[purpose]
        if tag is None:
            return prefix + secrets.token_urlsafe(24)
        return prefix + derived_secret(self._key, scope, purpose, *parts, tag.request_id)
