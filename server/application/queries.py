"""The reads of matches: a state view, the history, the audit trail, a verification, the catalog's lists,
and waiting for a match to move. Every one shows the caller only what its viewer may see."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from engine.registry import get_game
from server import audit
from server.access import Access
from server.application.callers import Callers
from server.application.values import PublicMatch, StateView
from server.catalog import Summary
from server.clock import Clock
from server.errors import BadRequest, DataLoss, NotFound, PermissionDenied, Unauthenticated
from server.fanout import Changes, first_of
from server.hostkeys import HostKeys
from server.limits import Limits
from server.live import LiveMatch
from server.paging import FIRST_PAGE, PageRequest
from server.projection import CatalogProjection
from server.records import Receipt, Record, token_hash
from server.repository import LiveMatches
from server.store import UnreadableRecord
from server.visibility import visible_records, visible_results


class MatchQueries:
    def __init__(
        self,
        matches: LiveMatches,
        projection: CatalogProjection,
        callers: Callers,
        hostkeys: HostKeys,
        changes: Changes,
        clock: Clock,
        limits: Limits,
    ) -> None:
        self.matches = matches
        self.projection = projection
        self.callers = callers
        self.hostkeys = hostkeys
        self.changes = changes
        self.clock = clock
        self.limits = limits
        self.access: Access = callers.access

    async def catch_up_catalog(self) -> int:
        """Project into the catalog what was appended since it was last brought up to date."""
        return await self.projection.catch_up()

    async def state(self, match_id: uuid.UUID, token: str | None, at: int | None) -> StateView:
        live = await self.matches.load(match_id)
        viewer = await self.callers.viewer_for(live, token)
        version = live.version if at is None else at
        if not 1 <= version <= live.version:
            raise BadRequest(f"version {version} is outside this match's versions 1..{live.version}")
        return StateView(
            match_id=str(live.id),
            game=live.game.name,
            version=version,
            viewer=viewer,
            view=live.game.view(live.state_at(version), viewer),
            status=live.status(version),
            paused=live.paused_after(version),
            clock=live.clock_at(self.clock.now()),
            players=live.players,
            results=visible_results(live, version),
        )

    async def history(
        self, match_id: uuid.UUID, token: str | None, page: PageRequest = FIRST_PAGE
    ) -> tuple[list[tuple[int, Record, bool]], str]:
        """One page of the log as the caller may see it, and the next page's token ("" at the end)."""
        live = await self.matches.load(match_id)
        viewer = await self.callers.viewer_for(live, token)
        retracted = live.batches.retracted()
        first = page.start(default=1)
        last = min(live.version, first + page.size - 1)
        visible = visible_records(live, first, last, viewer)  # one running fold for the page
        rows = [(version, record, version in retracted) for version, record in visible]
        taken = page.fit(rows, lambda row: len(json.dumps(row[1])))
        return rows[:taken], page.next_token(first + taken, more=first + taken <= live.version)

    async def audit(
        self, match_id: uuid.UUID, token: str | None, at: int | None, page: PageRequest = FIRST_PAGE
    ) -> tuple[list[dict[str, Any]], str]:
        live = await self.matches.load(match_id)
        viewer = await self.callers.viewer_for(live, token)
        upto = live.version if at is None else at
        if not 1 <= upto <= live.version:
            raise BadRequest(f"version {upto} is outside this match's versions 1..{live.version}")
        # A page token is the version the next page starts at. One page walks at most
        # max_audit_records_per_page records (a page may hold fewer entries: the next token goes on from
        # there), so no caller can make one call fold a long match whole.
        first = max(1, page.start(default=1))
        window = min(upto, first + self.limits.max_audit_records_per_page - 1)
        entries = audit.trail(live, viewer, window, limit=page.size + 1, start=first)
        taken = page.fit(entries, lambda entry: len(json.dumps(entry)))
        if taken < len(entries):
            return entries[:taken], page.next_token(int(entries[taken]["version"]), more=True)
        return entries, page.next_token(window + 1, more=window < upto)

    async def verify(self, match_id: uuid.UUID, token: str | None, receipts: Sequence[Receipt] = ()) -> dict[str, Any]:
        """Re-run every recorded decision through the current engine, check the hash chain (keyed under
        this server's key) and that the log still holds every receipted version unchanged."""
        quarantined = self.matches.quarantined().get(match_id)
        if quarantined is None:
            live = await self.matches.load(match_id)
            viewer = await self.callers.require_host(live, token)
            try:
                records = await self.matches.io(self.matches.store.read, match_id, 0)  # the store, not the cache
            except UnreadableRecord as exc:  # a row went bad since the match was loaded
                self.matches.quarantine(exc, exc.readable)
            else:
                current = get_game(live.game.name).rules_version  # the match replays under its own version
                return audit.verify(match_id, records, current, self.hostkeys.chain_keys, receipts, viewer)
        quarantined = self.matches.quarantined()[match_id]
        if quarantined.prefix is not None:
            self.access.require_host(quarantined.prefix, token)  # from the store: nothing to catch up
        elif not self.access.is_admin(token):
            raise PermissionDenied("this match's first record cannot be read: only the admin may verify it")
        return audit.unreadable(quarantined.version, quarantined.reason, quarantined.prefix)

    async def list_matches(self, token: str | None, page: PageRequest = FIRST_PAGE) -> tuple[list[Summary], str]:
        """The matches the caller hosts or sits in (the admin: all; a spectator: none), oldest first, from
        the catalog: no match is loaded. The page token is the catalog position of the last one listed."""
        if not token:
            return [], ""
        await self.catch_up_catalog()  # a match this or another process has just created is listed
        after = page.start(default=0)
        catalog, io = self.matches.catalog, self.matches.io
        if self.access.is_admin(token):
            rows = await io(catalog.page, after, page.size + 1)
        else:
            digest = token_hash(token)
            key = self.access.identities.by_secret_digest(digest)
            if key is None:
                await self.hostkeys.refresh()  # a host key another process has just created
                key = self.access.identities.by_secret_digest(digest)
            if key is not None:
                if key.revoked:
                    raise Unauthenticated(f"host key {key.key_id} was revoked: {key.revoked_reason}")
                rows = await io(catalog.page, after, page.size + 1, key.key_id)
            else:
                rows = await self._seat_summary(digest, after)
        chosen = rows[: page.size]
        more = len(rows) > page.size
        return chosen, page.next_token(chosen[-1].seq if chosen else after, more=more)

    async def public_matches(
        self, finished: bool, limit: int, after_seq: int = 0, before_seq: int | None = None
    ) -> tuple[list[PublicMatch], bool]:
        """Public matches for anyone (a private one is never listed): the live ones oldest first after a
        catalog position, or the finished ones newest first before one; and whether more follow. Each
        listed match is loaded (usually from the cache) for who it awaits, its time left and its winners."""
        await self.catch_up_catalog()  # a match just created or just finished is listed where it now is
        rows = await self.matches.io(self.matches.catalog.public_page, finished, limit + 1, after_seq, before_seq)
        listed = []
        for summary in rows[:limit]:
            try:
                live = await self.matches.load(summary.match_id)
            except (NotFound, DataLoss):  # set aside meanwhile: it is not shown until it can be read
                continue
            if live.header.get("private"):
                continue
            listed.append(self._public(live, summary.seq))
        return listed, len(rows) > limit

    def _public(self, live: LiveMatch, seq: int) -> PublicMatch:
        status = live.status()
        paused = live.paused_at is not None
        time_left = None
        if not status.finished and status.deadline is not None and not paused:
            time_left = max(0.0, status.deadline - live.clock_at(self.clock.now()))
        results = visible_results(live, live.version) or {}
        winners = tuple(str(row["player"]) for row in results.get("results", []) if int(row.get("rank", 0)) == 1)
        return PublicMatch(
            match_id=str(live.id),
            game=live.game.name,
            players=live.players,
            phase=status.phase,
            awaiting=tuple(player for player in live.players if player in status.awaiting),
            time_left=time_left,
            paused=paused,
            finished=status.finished,
            winners=winners,
            seq=seq,
        )

    async def _seat_summary(self, digest: str, after: int) -> list[Summary]:
        """A seat's or a match host's token lists its own match."""
        owner = await self.matches.io(self.matches.catalog.token_owner, digest)
        live = await self.matches.load(owner) if owner is not None else None
        if live is None or digest not in live.tokens:
            raise Unauthenticated("the token is not known to this server (or was replaced)")
        summary = await self.matches.io(self.matches.catalog.get, live.id)
        return [summary] if summary is not None and summary.seq > after else []

    async def unfinished_of(self, key_id: str) -> int:
        """Unfinished matches a host key created (its quota), from the catalog."""
        await self.catch_up_catalog()
        return await self.matches.io(self.matches.catalog.unfinished_of, key_id)

    async def before_creating(
        self, caller: str, request_id: str | None, quota: int | None
    ) -> tuple[uuid.UUID | None, int]:
        """A CreateMatch's first checks in one read: the match made for this request id, if any (a retry), and
        unless one was, or `quota` is None, what the quota check compares with `quota`: a bound read without
        a catch-up while it is under the quota, else the exact count. Under load the catch-up made a host
        key's CreateMatch take twice an admin's (p50 41 against 21 ms, 8 clients playing)."""
        made, bound = await self.projection.before_creating(caller, request_id, quota is not None)
        if made is None and quota is not None and bound >= quota:
            bound = await self.unfinished_of(caller)
        return made, bound

    async def due_matches(self) -> list[uuid.UUID]:
        """The matches whose current phase has ended by now (server clock), from the catalog."""
        return await self.matches.io(self.matches.catalog.due, self.clock.now())

    async def wait_for_change(
        self, match_id: uuid.UUID, after_version: int, timeout: float, until: asyncio.Future[Any] | None = None
    ) -> None:
        """Return once the match is past `after_version`, after `timeout` seconds, or once `until` is done.
        Every waiter of a match shares one future (server/fanout.py): no task or lock per waiter."""
        with self.changes.next_change(match_id) as changed:
            live = self.matches.cached(match_id)
            if live is not None and live.version > after_version:
                return
            await first_of(changed, until, timeout)

    async def wait_for_stream(
        self, stream: uuid.UUID, is_past: Callable[[], bool], timeout: float, until: asyncio.Future[Any] | None = None
    ) -> None:
        """wait_for_change for a stream that is not a match (the arena): `is_past` says it moved on."""
        with self.changes.next_change(stream) as changed:
            if is_past():
                return
            await first_of(changed, until, timeout)
