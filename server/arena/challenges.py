"""Challenges: a bot (or a host key, or the admin) asks bots to play; the match starts once every bot has
accepted, in the same write as its arena records; an unanswered challenge expires."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.registry import get_game
from server.arena.log import Challenge, new_server_stream_id
from server.arena.settings import Step
from server.arena.streams import ArenaRoom
from server.errors import FailedPrecondition, NotFound, PermissionDenied, ResourceExhausted
from server.limits import parse_config_json
from server.records import Record
from server.requests import RequestTag


class Challenges(ArenaRoom):
    def _terms_checked(self, game: str, bots: Sequence[str], config_json: str) -> dict[str, Any]:
        """The configuration overrides, checked by building the match's first records (not written)."""
        self.accounts.registered(bots)
        overrides = parse_config_json(config_json, self.platform.limits)
        self.platform.prepare_match(game, {bot: bot for bot in bots}, overrides, "admin", {})
        return overrides

    async def create(
        self, token: str | None, game: str, bots: Sequence[str], config_json: str, tag: RequestTag | None
    ) -> Challenge:
        who = await self.accounts.caller(token)
        bots = list(bots)
        if who.startswith("bot:") and who[4:] not in bots:
            raise PermissionDenied(f"a bot challenges others to play with it: name {who[4:]} among the bots")
        overrides = self._terms_checked(game, bots, config_json)
        secret = sorted(set(get_game(game).secret_config_keys) & set(overrides))
        if who.startswith("bot:") and secret:
            # The challenged bots never see these terms, so a bot must not choose them for its own match.
            raise PermissionDenied(
                f"a bot's challenge may not set {', '.join(secret)}: the bots it challenges cannot see them"
            )
        if not who.startswith("bot:") and who != "admin":  # a host key: every match it makes counts
            self.platform.access.check_quota(who, await self.platform.unfinished_of(who))

        async def plan() -> Step | None:
            earlier = self.arena.requested("challenge", who, tag)
            if earlier is not None:
                return Step([], {}, [], str(earlier["challenge"]))
            self._check_challenger(who, bots)
            identities = self.platform.access.identities
            accepted = [b for b in bots if identities.bots[b].auto_accept or who == f"bot:{b}"]
            challenge_id = str(new_server_stream_id())
            now = self.platform.clock.now()
            record: Record = {
                "kind": "challenge",
                "challenge": challenge_id,
                "game": game,
                "bots": bots,
                "config": overrides,
                "by": who,
                "expires_at": now + self.settings.challenge_ttl,
                "accepted": accepted,
                "at": now,
            }
            if tag is not None:
                record["request"] = tag.record(who)
            step = Step([record], {}, [], challenge_id)
            if len(accepted) == len(bots):
                self._start_challenge(step, challenge_id, game, bots, overrides, who)
            return step

        made = await self.arena.commit(plan)
        if not who.startswith("bot:"):
            self.platform.access.created(who)  # a host key's creation, for its per-minute quota
        return self.log.challenges[str(made)]

    def _check_challenger(self, who: str, bots: Sequence[str]) -> None:
        """The challenger's limits: open challenges per bot and in all; a bot's own matches and rate."""
        settings, now = self.settings, self.platform.clock.now()
        mine = [c for c in self.log.challenges.values() if c.by == who]
        open_ = [c for c in mine if c.state == "open"]
        limit = settings.max_open_challenges_per_bot
        for bot in bots:
            if sum(bot in c.bots for c in open_) >= limit:
                raise ResourceExhausted(
                    f"bot {bot} already has {limit} open challenges from you: max_open_challenges_per_bot is {limit}"
                )
        if len(open_) >= settings.max_open_challenges_per_challenger:
            raise ResourceExhausted(
                f"you have {len(open_)} open challenges: max_open_challenges_per_challenger is "
                f"{settings.max_open_challenges_per_challenger}"
            )
        if not who.startswith("bot:"):
            return
        live = [c for c in mine if c.state == "started" and self.log.is_unfinished(c.match_id)]
        if len(live) >= settings.max_live_matches_per_bot:
            raise ResourceExhausted(
                f"{who[4:]}'s challenges have {len(live)} unfinished matches: max_live_matches_per_bot is "
                f"{settings.max_live_matches_per_bot}"
            )
        recent = [c for c in mine if c.expires_at - settings.challenge_ttl > now - 60.0]
        if len(recent) >= settings.max_challenges_per_minute_per_bot:
            raise ResourceExhausted(
                f"{who[4:]} made {len(recent)} challenges in the last minute: max_challenges_per_minute_per_bot "
                f"is {settings.max_challenges_per_minute_per_bot}"
            )

    def _start_challenge(
        self, step: Step, challenge_id: str, game: str, bots: Sequence[str], overrides: dict[str, Any], by: str
    ) -> None:
        organiser = "admin" if by.startswith("bot:") else by
        arena = {"challenge": challenge_id}
        live, records = self.platform.prepare_match(game, {bot: bot for bot in bots}, overrides, organiser, arena)
        step.matches.append((live, records))
        step.arena.append(
            {
                "kind": "seated",
                "match": str(live.id),
                "game": game,
                "seats": {bot: bot for bot in bots},
                "challenge": challenge_id,
                "tournament": None,
                "at": self.platform.clock.now(),
            }
        )

    async def answer(self, token: str | None, challenge_id: str, accept: bool) -> Challenge:
        bot = await self.accounts.bot_of(token)

        async def plan() -> Step | None:
            challenge = self.log.challenges.get(challenge_id)
            if challenge is None or bot.name not in challenge.bots:
                raise NotFound(f"no challenge {challenge_id!r} addressed to bot {bot.name}")
            if challenge.state != "open":
                if accept and bot.name in challenge.accepted:
                    return None  # answered already: a retry
                raise FailedPrecondition(f"challenge {challenge_id} is {challenge.state}")
            if accept and bot.name in challenge.accepted:
                return None
            now = self.platform.clock.now()
            step = Step(
                [{"kind": "answer", "challenge": challenge_id, "bot": bot.name, "accept": accept, "at": now}], {}, []
            )
            if accept and challenge.waiting_on() == [bot.name]:
                self._start_challenge(
                    step, challenge_id, challenge.game, challenge.bots, challenge.config, challenge.by
                )
            return step

        await self.arena.commit(plan)
        return self.log.challenges[challenge_id]

    def _due_challenges(self) -> list[Challenge]:
        now = self.platform.clock.now()
        return [c for c in self.log.challenges.values() if c.state == "open" and c.expires_at <= now]

    async def expire(self) -> int:
        if not self._due_challenges():  # most ticks: nothing to write, so no commit (and no store read)
            return 0

        async def plan() -> Step | None:
            due, now = self._due_challenges(), self.platform.clock.now()
            if not due:
                return None
            return Step([{"kind": "expired", "challenge": c.challenge_id, "at": now} for c in due], {}, [], len(due))

        return int(await self.arena.commit(plan) or 0)
