"""The host's corrections of a match: end a phase now, pause, resume, extend, settle, cancel or start it,
roll it back, or fork it (the rules are server/decisions.py's)."""

from __future__ import annotations

import uuid

from server import decisions
from server.application.callers import accepted, replayed
from server.application.commands import CommandRoom, new_seed
from server.application.values import Accepted, Created
from server.decisions import check_expected
from server.envelope import cause
from server.errors import FailedPrecondition
from server.live import LiveMatch
from server.records import token_hash
from server.requests import RequestTag, tagged


class HostCommands(CommandRoom):
    async def force_phase_end(
        self,
        match_id: uuid.UUID,
        token: str | None,
        reason: str,
        expected_version: int | None = None,
        tag: RequestTag | None = None,
    ) -> Accepted:
        async def act(live: LiveMatch) -> Accepted:
            viewer, caller, again = await self.callers.as_host(live, token, tag)
            if again is not None:
                return again
            check_expected(live, expected_version)
            decisions.check_open(live)
            if live.waiting:
                raise FailedPrecondition(
                    f"the match has not started ({live.status().phase}): start it with the host action start"
                )
            why = cause("host", timeout=True, forced=True, reason=reason)
            written = await self.commands.timeout(live, self.uow.now(live), why, tag, caller)
            return accepted(live, viewer, written)

        return await self.uow.write(match_id, act)

    async def rollback(
        self,
        match_id: uuid.UUID,
        token: str | None,
        to: int,
        reason: str,
        reopen: bool = False,
        tag: RequestTag | None = None,
    ) -> Accepted:
        """Retract everything after version `to` (kept in the log, marked) and pause the match there
        (server/decisions.py decide_rollback)."""

        async def act(live: LiveMatch) -> Accepted:
            viewer, caller, again = await self.callers.as_host(live, token, tag)
            if again is not None:
                return again
            record = decisions.decide_rollback(
                live, to, reason, self.callers.by(token), self.clock.now(), reopen=reopen, new_seed=new_seed()
            )
            written = await self.uow.append(live, tagged([record], tag, caller))
            return accepted(live, viewer, written)

        return await self.uow.write(match_id, act)

    async def host_action(
        self,
        match_id: uuid.UUID,
        token: str | None,
        action: str,
        reason: str,
        seconds: float = 0.0,
        expected_version: int | None = None,
        tag: RequestTag | None = None,
    ) -> Accepted:
        """Pause, resume, extend, settle, cancel or start (server/decisions.py decide_host_action)."""

        async def act(live: LiveMatch) -> Accepted:
            viewer, caller, again = await self.callers.as_host(live, token, tag)
            if again is not None:
                return again
            check_expected(live, expected_version)
            records = decisions.decide_host_action(
                live, action, self.callers.by(token), reason, seconds, self.clock.now(), self.limits
            )
            written = await self.uow.append(live, tagged(records, tag, caller))
            return accepted(live, viewer, written)

        return await self.uow.write(match_id, act)

    async def fork(
        self, match_id: uuid.UUID, token: str | None, at: int, reason: str = "", tag: RequestTag | None = None
    ) -> Created:
        """A new match as this one stood at `at`; the origin's log records who forked it, where and why."""

        async def act(source: LiveMatch) -> Created:
            forker = self.access.policies.forks(source) if token and self.access.is_corrector(source, token) else None
            viewer = forker if forker is not None else await self.callers.require_host(source, token)
            caller = self.access.caller_of(source, token)
            again = replayed(source, caller, tag, viewer)
            if again is not None:
                forked = uuid.UUID(str(source.records[again.version - 1]["fork"]))
                assert tag is not None  # a replay needs a request id
                return self.callers.created_again(await self.matches.load(forked), tag, body_checked=True)
            key = source.header.get("host_key")
            if key and not source.waiting:  # a fork is a new match of the origin's host key: its quotas
                self.access.check_quota(str(key), await self.queries.unfinished_of(str(key)))
            live = LiveMatch(uuid.uuid4(), source.game)
            host_token = self.secrets.new(tag, str(live.id), "host")
            invitations = {p: self.secrets.new(tag, str(live.id), "invitation", p) for p in source.players}
            by = "admin" if self.access.is_admin(token) else viewer.kind
            fork = decisions.decide_fork(
                source,
                at,
                str(live.id),
                host_token=token_hash(host_token),
                invitations={p: token_hash(code) for p, code in invitations.items()},
                by=by,
                reason=reason,
                server_now=self.clock.now(),
                new_seed=new_seed(),
                max_forks=self.access.quotas.max_forks_per_match,
            )
            if key:
                self.access.created(str(key))
            await self.uow.append(live, fork.records)
            self.matches.remember(live)
            self.access.token_owner[token_hash(host_token)] = live.id
            await self.uow.append(source, tagged([fork.note], tag, caller))
            return Created(live, host_token, invitations)

        return await self.uow.write(match_id, act)
