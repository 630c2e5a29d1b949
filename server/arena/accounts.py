"""Bot accounts: who registers a bot, its key (shown once, kept as a hash in the identities stream beside
the host keys), rotation and revocation, and who a caller of the arena is."""

from __future__ import annotations

import hmac
import re
from collections.abc import Sequence

from server.access import UnknownToken
from server.arena.platform import MatchPlatform
from server.errors import BadRequest, FailedPrecondition, NotFound, PermissionDenied, ResourceExhausted
from server.identities import BotAccount
from server.records import token_hash
from server.requests import RequestTag, same_body

BOT_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}")


class BotAccounts:
    def __init__(self, platform: MatchPlatform, max_bots_per_host_key: int = 100) -> None:
        self.platform = platform
        self.max_bots_per_host_key = max_bots_per_host_key  # ArenaSettings; the admin has no quota

    async def creator(self, token: str | None) -> str:
        """The admin or a host key (refreshing the keys once: another node may have just made it)."""
        try:
            return self.platform.access.creator(token)
        except UnknownToken:
            await self.platform.refresh_identities()
            return self.platform.access.creator(token)

    async def bot_of(self, token: str | None) -> BotAccount:
        try:
            return self.platform.access.bot(token)
        except UnknownToken:
            await self.platform.refresh_identities()
            return self.platform.access.bot(token)

    async def caller(self, token: str | None) -> str:
        """admin, a host key id, or bot:NAME."""
        if token and self.platform.access.identities.bot_by_digest(token_hash(token)) is not None:
            return f"bot:{(await self.bot_of(token)).name}"
        return await self.creator(token)

    def registered(self, names: Sequence[str]) -> list[BotAccount]:
        """The named bots, each once and none revoked: the bots of one match or tournament."""
        if len(names) < 2:
            raise BadRequest("name at least 2 bots")
        if len(set(names)) != len(names):
            raise BadRequest("each bot may be named once (a bot holds at most one seat per match)")
        found = []
        for name in names:
            bot = self.platform.access.identities.bots.get(name)
            if bot is None:
                raise NotFound(f"no bot {name!r} is registered (matchctl bot create {name})")
            if bot.revoked:
                raise FailedPrecondition(f"bot {name} was revoked: {bot.revoked_reason}")
            found.append(bot)
        return found

    async def create(
        self, token: str | None, name: str, auto_accept: bool, tag: RequestTag | None
    ) -> tuple[BotAccount, str]:
        owner = await self.creator(token)
        if BOT_NAME.fullmatch(name) is None:
            raise BadRequest(f"bot name {name!r}: 1-32 characters of a-z, 0-9 and -, starting with a letter")
        identities = self.platform.access.identities
        await self.platform.refresh_identities()
        if tag is not None:
            earlier = identities.requests.get((owner, tag.request_id))
            if earlier is not None:
                same_body(earlier["request"], tag)
                bot_name = str(earlier["bot"])
                return identities.bots[bot_name], self.platform.new_secret(tag, "identities", "bot-key", bot_name)
        if name in identities.bots:
            raise FailedPrecondition(f"a bot named {name} is already registered")
        owned = sum(bot.owner == owner for bot in identities.bots.values())
        if owner != "admin" and owned >= self.max_bots_per_host_key:
            raise ResourceExhausted(
                f"host key {owner} has registered {owned} bots: max_bots_per_host_key is {self.max_bots_per_host_key}"
            )
        secret = self.platform.new_secret(tag, "identities", "bot-key", name)
        record = identities.bot_record(
            "created", name, self.platform.clock.now(), digest=token_hash(secret), owner=owner, auto_accept=auto_accept
        )
        if tag is not None:
            record["request"] = tag.record(owner)
        await self.platform.append_identity(record)
        if not hmac.compare_digest(identities.bots[name].digest, token_hash(secret)):  # another node had the name
            raise FailedPrecondition(f"a bot named {name} is already registered")
        return identities.bots[name], secret

    async def listed(self, token: str | None) -> list[BotAccount]:
        owner = await self.creator(token)
        await self.platform.refresh_identities()
        bots = self.platform.access.identities.bots.values()
        return [bot for bot in bots if owner == "admin" or bot.owner == owner]

    async def _own(self, token: str | None, name: str) -> BotAccount:
        owner = await self.creator(token)
        await self.platform.refresh_identities()
        bot = self.platform.access.identities.bots.get(name)
        if bot is None:
            raise NotFound(f"no bot {name!r}")
        if owner != "admin" and bot.owner != owner:
            raise PermissionDenied(f"bot {name} was registered by another host key")
        if bot.revoked:
            raise FailedPrecondition(f"bot {name} is revoked")
        return bot

    async def rotate(self, token: str | None, name: str, reason: str) -> tuple[BotAccount, str]:
        bot = await self._own(token, name)
        secret = self.platform.new_secret(None, "identities", "bot-key", name)
        identities = self.platform.access.identities
        at = self.platform.clock.now()
        await self.platform.append_identity(
            identities.bot_record("rotated", name, at, digest=token_hash(secret), reason=reason or "rotated")
        )
        self.platform.end_credential(bot.digest, f"bot {name}'s key was rotated")
        return identities.bots[name], secret

    async def revoke(self, token: str | None, name: str, reason: str) -> BotAccount:
        bot = await self._own(token, name)
        identities = self.platform.access.identities
        at = self.platform.clock.now()
        await self.platform.append_identity(identities.bot_record("revoked", name, at, reason=reason or "revoked"))
        self.platform.end_credential(bot.digest, f"bot {name} was revoked")
        return identities.bots[name]
