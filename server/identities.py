"""Host keys and bot keys: the credentials of docs/SECURITY.md kept as hashes in one stream of the store.

The identities stream lives beside the matches (a fixed stream id), so every server process sharing a
store sees the same keys. Its records: `host_key` with action `created` (key id, name, hash of the
secret) or `revoked` (key id, reason); `bot` with action `created` (name, hash, owner, auto_accept),
`rotated` (a new hash: the old key stops working) or `revoked`. A secret is shown once, to its creator.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass, replace

from server.records import ChainedLog, Record, token_hash

# A fixed stream id, never a match: uuid5 of a name only this server uses.
IDENTITIES_STREAM = uuid.uuid5(uuid.NAMESPACE_URL, "matchserver:identities")


def is_server_stream(stream: uuid.UUID) -> bool:
    """The server's own streams (identities, the bot arena, tournaments) have version-5 ids; matches are
    uuid4, so a stream's id alone tells the catalog and the listeners what it is."""
    return stream.version == 5


# A match whose seats are held by identities (an arena match's bots) names them in its `created` record:
# seat -> bot name. The field's name is the stored format of release 16 on.
SEAT_HOLDERS = "bots"
# ...and the terms it was made under (who organised it, and what for: a challenge or a tournament).
MATCH_TERMS = "arena"

KEY_PREFIX = "mshk_"  # host keys are told apart from match tokens at a glance (never needed to decide)
BOT_KEY_PREFIX = "msbk_"


@dataclass(frozen=True)
class HostKey:
    key_id: str
    name: str
    digest: str
    created_at: float
    revoked: bool = False
    revoked_reason: str = ""


@dataclass(frozen=True)
class BotAccount:
    """A registered bot: its name is also its seat name in the matches the arena starts."""

    name: str
    digest: str  # of the current key
    owner: str  # "admin" or the host key id that registered it
    auto_accept: bool
    created_at: float
    generation: int = 1  # the key's generation: +1 per rotation
    revoked: bool = False
    revoked_reason: str = ""


def new_key_id() -> str:
    """A host key's id: public (lists, logs, records), unlike its secret, which is shown once."""
    return f"hk-{secrets.token_hex(6)}"


class Identities(ChainedLog):
    """The host keys as of the records applied so far (rebuilt by replaying the identities stream)."""

    name = "identities"

    def __init__(self) -> None:
        super().__init__()
        self.keys: dict[str, HostKey] = {}
        self._by_digest: dict[str, str] = {}
        self.bots: dict[str, BotAccount] = {}
        self._bot_by_digest: dict[str, str] = {}  # current keys only: a rotated key is forgotten
        self.requests: dict[tuple[str, str], Record] = {}  # (caller, request_id) -> the record it wrote

    def apply(self, record: Record) -> None:
        if record.get("kind") == "host_key":
            key_id = str(record["host_key_id"])
            if record["action"] == "created":
                key = HostKey(key_id, str(record["name"]), str(record["digest"]), float(record["at"]))
                self.keys[key_id] = key
                self._by_digest[key.digest] = key_id
            elif record["action"] == "revoked" and key_id in self.keys:
                self.keys[key_id] = replace(self.keys[key_id], revoked=True, revoked_reason=str(record["reason"]))
        elif record.get("kind") == "bot":
            self._apply_bot(record)
        request = record.get("request")
        if request:
            self.requests[(str(request["caller"]), str(request["id"]))] = record
        self.records.append(record)

    def _apply_bot(self, record: Record) -> None:
        name, action = str(record["bot"]), record["action"]
        if action == "created" and name in self.bots:
            return  # two nodes registered one name at once: the first record holds it
        if action == "created":
            bot = BotAccount(
                name, str(record["digest"]), str(record["owner"]), bool(record["auto_accept"]), float(record["at"])
            )
        elif name in self.bots and action == "rotated":
            bot = replace(self.bots[name], digest=str(record["digest"]), generation=self.bots[name].generation + 1)
        elif name in self.bots and action == "revoked":
            bot = replace(self.bots[name], revoked=True, revoked_reason=str(record["reason"]))
        else:
            return
        old = self.bots.get(name)
        if old is not None:
            self._bot_by_digest.pop(old.digest, None)
        self.bots[name] = bot
        self._bot_by_digest[bot.digest] = name

    def bot_by_digest(self, digest: str) -> BotAccount | None:
        """The bot whose current key this is (a revoked bot included: callers say why it fails)."""
        name = self._bot_by_digest.get(digest)
        return self.bots.get(name) if name is not None else None

    @staticmethod
    def bot_record(action: str, name: str, at: float, **fields: object) -> Record:
        return {"kind": "bot", "action": action, "bot": name, "at": at, **fields}

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
