"""A match's seats: claimed with an invitation or filled by the host, and invitations issued."""

from __future__ import annotations

import uuid

from engine.contract import Viewer
from server import decisions, waiting
from server.application.callers import replayed
from server.application.commands import CommandRoom
from server.application.values import Joined, receipt_at
from server.decisions import refuse_held_seats, start_records
from server.errors import PermissionDenied, Unauthenticated
from server.live import LiveMatch
from server.records import token_hash
from server.requests import RequestTag, tagged
from server.seats import seat_digests


class SeatCommands(CommandRoom):
    async def join(
        self,
        match_id: uuid.UUID,
        player: str,
        token: str | None,
        invitation: str = "",
        reissue: bool = False,
        tag: RequestTag | None = None,
    ) -> Joined:
        """Claim a seat with its invitation, or (host or admin) fill it; returns the seat's new token."""

        async def act(live: LiveMatch) -> Joined:
            refuse_held_seats(live)
            if not invitation:
                if not token:
                    raise Unauthenticated("joining needs the seat's invitation, or the host's or admin's token")
                if not (await self.callers.viewer_for(live, token)).is_host:
                    raise PermissionDenied(
                        "joining needs the seat's invitation; only the host or admin fills a seat without one "
                        "(one token acts for one seat)"
                    )
            # An invitation's retry is recognised by its body, which holds the invitation itself.
            caller = f"invitation:{player}" if invitation else self.access.caller_of(live, token)
            again = replayed(live, caller, tag, Viewer.of(player))
            new_token = self.secrets.new(tag, str(live.id), "seat", player, caller)
            if again is not None:
                return Joined(new_token, again.version, receipt_at(live, again.version))
            digest = token_hash(new_token)
            joined = decisions.decide_join(
                live,
                player,
                digest,
                self.uow.now(live),
                invitation=token_hash(invitation) if invitation else None,
                by=self.callers.by(token),
                reissue=reissue,
            )
            replaced = seat_digests(live.tokens, player)
            await self.uow.append(live, tagged([joined], tag, caller))
            self.access.token_owner[digest] = match_id
            self.hostkeys.credentials_replaced(replaced, f"{player}'s seat was given a new token")
            joined_at = live.version  # what the join answers (a retry answers the same)
            now = self.uow.now(live)
            if live.waiting and live.paused_at is None and waiting.due_to_start(live, now):
                await self.uow.append(live, start_records(live, now))  # the last seat is claimed: it opens
            return Joined(new_token, joined_at, receipt_at(live, joined_at))

        return await self.uow.write(match_id, act)

    async def invite(
        self, match_id: uuid.UUID, player: str, token: str | None, tag: RequestTag | None = None
    ) -> Joined:
        """Host or admin: a new invitation for a seat (any earlier one stops working)."""

        async def act(live: LiveMatch) -> Joined:
            refuse_held_seats(live)
            _, caller, again = await self.callers.as_host(live, token, tag)
            secret = self.secrets.new(tag, str(live.id), "invited", player, caller)
            if again is not None:
                return Joined(secret, again.version, receipt_at(live, again.version))
            invited = decisions.decide_invite(live, player, token_hash(secret), self.uow.now(live))
            await self.uow.append(live, tagged([invited], tag, caller))
            return Joined(secret, live.version, receipt_at(live, live.version))

        return await self.uow.write(match_id, act)
