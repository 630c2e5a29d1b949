"""Who is calling: the credentials of docs/SECURITY.md resolved to a viewer, a creator or a caller.

Holds the indexes a credential is looked up in (the admin token, the host keys of the identities stream,
which match each token belongs to, which matches each host key created) and the per-key quotas. It
decides; it never writes: the application (server/application/) appends what a decision needs.
"""

from __future__ import annotations

import hmac
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass

from engine.contract import Viewer
from server.errors import PermissionDenied, ResourceExhausted, Unauthenticated
from server.identities import BotAccount, HostKey, Identities
from server.live import LiveMatch
from server.policy import Policies
from server.records import token_hash


class UnknownToken(Unauthenticated):
    """A token this process has not seen: on a shared store, another process may have just issued it."""


@dataclass(frozen=True)
class HostQuotas:
    """Per host key (named settings; the admin token has no quota)."""

    max_live_matches_per_host_key: int = 100
    max_creations_per_minute_per_host_key: int = 60
    # Forks of one match, whoever forks it (a fork is a match of the origin's host key, in its quotas too).
    max_forks_per_match: int = 20


class Access:
    def __init__(self, admin_token: str | None, quotas: HostQuotas) -> None:
        self.admin_token = admin_token
        self.quotas = quotas
        self.identities = Identities()
        # token hash -> its match (replaced tokens too), for matches in memory; the catalog has them all
        self.token_owner: dict[str, uuid.UUID] = {}
        self.creations: defaultdict[str, list[float]] = defaultdict(list)  # host key -> monotonic times
        # Rules of the rooms that make matches of their own, registered at wiring (server/policy.py).
        self.policies = Policies()

    def index(self, live: LiveMatch) -> None:
        """Remember whose tokens a match holds and which host key created it."""
        for digest in live.tokens:
            self.token_owner[digest] = live.id

    def created(self, creator: str) -> None:
        """Count a creation (a match, a challenge, a fork, a tournament) for the per-minute quota."""
        if creator != "admin":
            self.creations[creator].append(time.monotonic())

    def is_admin(self, token: str | None) -> bool:
        return bool(token and self.admin_token and hmac.compare_digest(token.encode(), self.admin_token.encode()))

    def host_key(self, token: str | None) -> HostKey | None:
        """The host key this token is, if it is one (revoked keys included: callers say why they fail)."""
        return self.identities.by_secret_digest(token_hash(token)) if token else None

    def viewer_for(self, live: LiveMatch, token: str | None) -> Viewer:
        """Who the caller is for this match; None is an explicit spectator (`authorization: Spectator`)."""
        if not token:
            if live.header.get("private"):
                raise PermissionDenied("this match is private: only its host and players may watch it")
            return Viewer.spectator()
        if self.is_admin(token):
            return self.policies.watches(live)
        digest = token_hash(token)
        if digest in live.tokens:
            role, player = live.tokens[digest]
            return Viewer.host() if role == "host" else Viewer.of(player or "")
        bot = self.identities.bot_by_digest(digest)
        if bot is not None:
            return self._bot_seat(live, bot)
        key = self.identities.by_secret_digest(digest)
        if key is not None:
            if key.revoked:
                raise Unauthenticated(f"host key {key.key_id} was revoked: {key.revoked_reason}")
            if live.header.get("host_key") == key.key_id:
                return self.policies.watches(live)
            raise PermissionDenied(f"host key {key.key_id} did not create this match")
        owner = self.token_owner.get(digest)
        if owner == live.id:
            raise Unauthenticated("this token was replaced by a newer one for the same seat")
        if owner is not None:
            raise PermissionDenied("this token belongs to another match")
        raise UnknownToken("the token is not known to this server")

    @staticmethod
    def _bot_seat(live: LiveMatch, bot: BotAccount) -> Viewer:
        if bot.revoked:
            raise Unauthenticated(f"bot {bot.name} was revoked: {bot.revoked_reason}")
        for seat, name in live.seat_holders.items():
            if name == bot.name:
                return Viewer.of(seat)
        raise PermissionDenied(f"bot {bot.name} holds no seat in this match")

    def bot(self, token: str | None) -> BotAccount:
        """The bot this bot key belongs to (for the calls of the room that seats bots)."""
        if not token:
            raise Unauthenticated("this needs a bot key (authorization: Bearer msbk_...)")
        bot = self.identities.bot_by_digest(token_hash(token))
        if bot is None:
            raise UnknownToken("this needs a bot key; the key given is not a current bot key")
        if bot.revoked:
            raise Unauthenticated(f"bot {bot.name} was revoked: {bot.revoked_reason}")
        return bot

    def is_corrector(self, live: LiveMatch, token: str | None) -> bool:
        """The admin, or the host key that made the match (a bot match's organiser corrects it so)."""
        if self.is_admin(token):
            return True
        key = self.host_key(token)
        return key is not None and not key.revoked and live.header.get("host_key") == key.key_id

    def creator(self, token: str | None) -> str:
        """Who may create a match: "admin", or the id of a live host key."""
        if not token:
            raise Unauthenticated("creating a match needs the admin token or a host key (authorization: Bearer ...)")
        if self.is_admin(token):
            return "admin"
        key = self.host_key(token)
        if key is None:
            raise UnknownToken("creating a match needs the admin token or a host key; this is neither")
        if key.revoked:
            raise Unauthenticated(f"host key {key.key_id} was revoked: {key.revoked_reason}")
        return key.key_id

    def check_quota(self, key_id: str, live_count: int) -> None:
        """`live_count`: the key's unfinished matches (from the catalog)."""
        if key_id == "admin":
            return
        quotas = self.quotas
        cutoff = time.monotonic() - 60.0
        recent = [at for at in self.creations[key_id] if at > cutoff]
        self.creations[key_id] = recent
        if len(recent) >= quotas.max_creations_per_minute_per_host_key:
            raise ResourceExhausted(
                f"host key {key_id} created {len(recent)} matches in the last minute: "
                f"max_creations_per_minute_per_host_key is {quotas.max_creations_per_minute_per_host_key}"
            )
        if live_count >= quotas.max_live_matches_per_host_key:
            raise ResourceExhausted(
                f"host key {key_id} has {live_count} unfinished matches: "
                f"max_live_matches_per_host_key is {quotas.max_live_matches_per_host_key}"
            )

    def require_host(self, live: LiveMatch, token: str | None) -> Viewer:
        return self.host_only(self.viewer_for(live, token) if token else None)

    @staticmethod
    def host_only(viewer: Viewer | None) -> Viewer:
        """The viewer, if it is the match's host (None: the call named no token)."""
        if viewer is None:
            raise Unauthenticated("this needs the host's token (authorization metadata)")
        if not viewer.is_host:
            raise PermissionDenied("only the host of this match may do that")
        return viewer

    def caller_of(self, live: LiveMatch, token: str | None) -> str:
        """Whose request this is, for request ids (the token was already checked by viewer_for)."""
        if self.is_admin(token):
            return "admin"
        digest = token_hash(token or "")
        if digest in live.tokens:
            role, player = live.tokens[digest]
            return "host" if role == "host" else f"seat:{player}"
        bot = self.identities.bot_by_digest(digest)
        if bot is not None:
            return f"bot:{bot.name}"
        key = self.identities.by_secret_digest(digest)
        return f"key:{key.key_id}" if key is not None else "spectator"

    def require_admin(self, token: str | None) -> None:
        if not token:
            raise Unauthenticated("this needs the admin token (authorization: Bearer ...)")
        if not self.is_admin(token):
            raise PermissionDenied("only the server's admin manages host keys")
