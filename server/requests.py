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
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from server.errors import BadRequest
from server.limits import Limits, check_request_id


@dataclass(frozen=True)
class RequestTag:
    request_id: str
    fingerprint: str

    def record(self, caller: str) -> dict[str, Any]:
        return {"id": self.request_id, "caller": caller, "fingerprint": self.fingerprint}


def request_tag(request: Message, limits: Limits) -> RequestTag | None:
    """The request's tag, or None when it has no request_id; a malformed id is INVALID_ARGUMENT."""
    request_id = str(getattr(request, "request_id", ""))
    if not request_id:
        return None
    check_request_id(request_id, limits)
    body = type(request)()
    body.CopyFrom(request)
    body.ClearField("request_id")  # type: ignore[arg-type]
    fingerprint = hashlib.sha256(body.SerializeToString(deterministic=True)).hexdigest()[:32]
    return RequestTag(request_id, fingerprint)


def same_body(recorded: dict[str, Any], tag: RequestTag) -> None:
    if not hmac.compare_digest(str(recorded.get("fingerprint", "")), tag.fingerprint):
        raise BadRequest(
            f"request_id {tag.request_id!r} was already used for a different request; use a new id for a new request"
        )


def derived_secret(key: bytes, *parts: str) -> str:
    """A secret only this server (holding `key`) can compute again from the same parts."""
    mac = hmac.new(key, "|".join(("matchserver-secret", *parts)).encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:24]).decode().rstrip("=")
