"""Host keys: the credentials that may create matches, kept as hashes in one stream of the event store.

The identities stream lives beside the matches (a fixed stream id), so every server process sharing a
store sees the same keys. Its records: `host_key` with action `created` (key id, name, hash of the
secret) or `revoked` (key id, reason). The secret itself is shown once, to the admin who created it.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass, replace

from server.records import Record, token_hash

# A fixed stream id, never a match: uuid5 of a name only this server uses.
IDENTITIES_STREAM = uuid.uuid5(uuid.NAMESPACE_URL, "matchserver:identities")
KEY_PREFIX = "mshk_"  # host keys are told apart from match tokens at a glance (never needed to decide)


@dataclass(frozen=True)
class HostKey:
    key_id: str
    name: str
    digest: str
    created_at: float
    revoked: bool = False
    revoked_reason: str = ""


def new_key_id() -> str:
    """A host key's id: public (lists, logs, records), unlike its secret, which is shown once."""
    return f"hk-{secrets.token_hex(6)}"


class Identities:
    """The host keys as of the records applied so far (rebuilt by replaying the identities stream)."""

    def __init__(self) -> None:
        self.records: list[Record] = []
        self.keys: dict[str, HostKey] = {}
        self._by_digest: dict[str, str] = {}
        self.requests: dict[tuple[str, str], Record] = {}  # (caller, request_id) -> the record it wrote

    @property
    def version(self) -> int:
        return len(self.records)

    @property
    def last_hash(self) -> str:
        return str(self.records[-1]["hash"]) if self.records else ""

    def apply(self, record: Record) -> None:
        if record.get("kind") == "host_key":
            key_id = str(record["host_key_id"])
            if record["action"] == "created":
                key = HostKey(key_id, str(record["name"]), str(record["digest"]), float(record["at"]))
                self.keys[key_id] = key
                self._by_digest[key.digest] = key_id
            elif record["action"] == "revoked" and key_id in self.keys:
                self.keys[key_id] = replace(self.keys[key_id], revoked=True, revoked_reason=str(record["reason"]))
        request = record.get("request")
        if request:
            self.requests[(str(request["caller"]), str(request["id"]))] = record
        self.records.append(record)

    def by_secret_digest(self, digest: str) -> HostKey | None:
        key_id = self._by_digest.get(digest)
        return self.keys.get(key_id) if key_id is not None else None

    def created_record(self, key_id: str, name: str, secret: str, at: float) -> Record:
        return {
            "kind": "host_key",
            "action": "created",
            "host_key_id": key_id,
            "name": name,
            "digest": token_hash(secret),
            "at": at,
        }

    @staticmethod
    def revoked_record(key_id: str, reason: str, at: float) -> Record:
        return {"kind": "host_key", "action": "revoked", "host_key_id": key_id, "reason": reason, "at": at}
