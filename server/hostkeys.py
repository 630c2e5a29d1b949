"""The identities stream (server/identities.py) kept current, and the admin's host keys: created, listed,
revoked. A replaced or revoked credential's open streams end at once, here or on another node."""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from server.access import Access
from server.clock import Clock
from server.errors import BadRequest, DataLoss, FailedPrecondition, NotFound
from server.identities import IDENTITIES_STREAM, HostKey, new_key_id
from server.records import BrokenChain, ChainedLog, ChainKey, Record, chain
from server.repository import LiveMatches
from server.requests import RequestTag, Secrets, same_body, tagged
from server.store import VersionConflict
from server.streams import StreamRegistry
from server.unit_of_work import Again, retried

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class KeyView:
    """A host key as its admin sees it: the key, and how many of its matches are unfinished (its quota)."""

    key: HostKey
    live_matches: int


class HostKeys:
    # Unfinished matches a host key created, from the catalog (set at wiring: the queries count them).
    unfinished_of: Callable[[str], Awaitable[int]] | None = None

    def __init__(
        self,
        matches: LiveMatches,
        access: Access,
        streams: StreamRegistry,
        chain_key: ChainKey,
        secrets: Secrets,
        clock: Clock,
    ) -> None:
        self.matches = matches
        self.access = access
        self.streams = streams
        self.chain_key = chain_key
        self.secrets = secrets
        self.clock = clock

    @property
    def chain_keys(self) -> dict[str, bytes]:
        return {self.chain_key.key_id: self.chain_key.secret}

    def checked(self, stream: ChainedLog, record: Record) -> bool:
        """Whether a record read back from a server stream links to it (else it is logged, once, and it and
        what follows are not applied: writes there answer DATA_LOSS)."""
        try:
            stream.check(record, self.chain_keys)
        except BrokenChain as exc:
            log.error("%s", exc)
            return False
        return True

    async def refresh(self) -> None:
        """Apply identity records written since the last look (by this or another process)."""
        identities = self.access.identities
        if identities.broken is not None:
            return  # nothing past a record that does not hold is applied (logged when found)
        after = identities.version
        read = await self.matches.io(self.matches.store.read, IDENTITIES_STREAM, after)
        for version, record in enumerate(read, start=after + 1):
            if identities.version < version:  # idempotent by version: two refreshes may overlap
                if not self.checked(identities, record):
                    return
                identities.apply(record)

    async def on_remote_append(self, version: int) -> None:
        """Another node wrote to the identities stream: catch up, and end the streams of what it revoked."""
        identities = self.access.identities
        if identities.version >= version:
            return
        revoked = {key.key_id for key in identities.keys.values() if key.revoked}
        bot_keys = {bot.name: bot.digest for bot in identities.bots.values() if not bot.revoked}
        await self.refresh()
        for key in identities.keys.values():  # as on the node that revoked it: its streams end now
            if key.revoked and key.key_id not in revoked:
                self.credentials_replaced([key.digest], f"host key {key.key_id} was revoked")
        for name, digest in bot_keys.items():  # a bot key rotated or revoked there
            bot = identities.bots[name]
            if bot.revoked or not hmac.compare_digest(bot.digest, digest):
                self.credentials_replaced([digest], f"bot {name}'s key was rotated or revoked")

    def credentials_replaced(self, digests: list[str] | tuple[str, ...], why: str) -> None:
        """A replaced or revoked credential's open streams end now (UNAUTHENTICATED, saying why)."""
        for digest in digests:
            self.streams.end_credential(digest, why)

    async def append(self, record: Record) -> None:
        """Append one record to the identities stream, after whatever another process wrote first."""

        async def attempt() -> None:
            async with self.matches.locks[IDENTITIES_STREAM]:
                await self.refresh()
                if self.access.identities.broken is not None:
                    raise DataLoss(str(self.access.identities.broken))
                stamped = chain(self.access.identities.last_hash, [record], self.chain_key)
                try:
                    await self.matches.writer.append(IDENTITIES_STREAM, self.access.identities.version, stamped)
                except VersionConflict:
                    raise Again from None  # another server process changed the identities first
                self.access.identities.apply(stamped[0])

        await retried(attempt, "the host keys kept changing under this write; nothing was written: retry")

    async def viewed(self, key: HostKey) -> KeyView:
        count = await self.unfinished_of(key.key_id) if self.unfinished_of is not None else 0
        return KeyView(key, count)

    async def create(self, token: str | None, name: str, tag: RequestTag | None = None) -> tuple[KeyView, str]:
        """A new host key; the secret is returned once (a retry with the request id gets it again)."""
        self.access.require_admin(token)
        if not name.strip():
            raise BadRequest("a host key needs a name (who it is for)")
        await self.refresh()
        identities = self.access.identities
        if tag is not None and (earlier := identities.requests.get(("admin", tag.request_id))) is not None:
            same_body(earlier["request"], tag)
            key_id = str(earlier["host_key_id"])
            return await self.viewed(identities.keys[key_id]), self.secrets.new(tag, "identities", "host-key", key_id)
        key_id = new_key_id()
        secret = self.secrets.new(tag, "identities", "host-key", key_id)
        record = identities.created_record(key_id, name, secret, self.clock.now())
        await self.append(tagged([record], tag, "admin")[0])
        return await self.viewed(identities.keys[key_id]), secret

    async def list(self, token: str | None) -> list[KeyView]:
        self.access.require_admin(token)
        await self.refresh()
        return [await self.viewed(key) for key in self.access.identities.keys.values()]

    async def revoke(self, token: str | None, key_id: str, reason: str) -> KeyView:
        """The key can no longer create matches or act as host; its open streams end. Host tokens it
        already issued keep working (they are the matches' own credentials)."""
        self.access.require_admin(token)
        await self.refresh()
        key = self.access.identities.keys.get(key_id)
        if key is None:
            raise NotFound(f"no host key {key_id!r}")
        if key.revoked:
            raise FailedPrecondition(f"host key {key_id} is already revoked")
        await self.append(self.access.identities.revoked_record(key_id, reason or "revoked", self.clock.now()))
        self.credentials_replaced([key.digest], f"host key {key_id} was revoked")
        return await self.viewed(self.access.identities.keys[key_id])
