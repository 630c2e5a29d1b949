"""Who calls, for one match: the credential resolved to a viewer (catching up first where another server
process may have just issued it), the host's writes, and a retried request's original outcome."""

from __future__ import annotations

from engine import codec
from engine.contract import Viewer
from server.access import Access, UnknownToken
from server.application.values import Accepted, Created, receipt_at, receipt_of
from server.errors import PermissionDenied, Unauthenticated
from server.hostkeys import HostKeys
from server.live import LiveMatch
from server.records import Record, token_hash
from server.repository import LiveMatches
from server.requests import RequestTag, Secrets, same_body
from server.visibility import visible_record


class Callers:
    def __init__(self, matches: LiveMatches, access: Access, hostkeys: HostKeys, secrets: Secrets) -> None:
        self.matches = matches
        self.access = access
        self.hostkeys = hostkeys
        self.secrets = secrets

    async def viewer_for(self, live: LiveMatch, token: str | None) -> Viewer:
        """Who the caller is for this match (server/access.py). A token this copy does not know may have
        been issued by another process on a shared store since it was read (catch up once), or belong to
        a match not in memory (the catalog knows every token's match)."""
        try:
            return self.access.viewer_for(live, token)
        except UnknownToken:
            if self.matches.refresh_every is not None:
                await self.matches.catch_up(live)
                await self.hostkeys.refresh()
                try:
                    return self.access.viewer_for(live, token)
                except UnknownToken:
                    pass
            owner = await self.matches.io(self.matches.catalog.token_owner, token_hash(token or ""))
            if owner == live.id:
                raise Unauthenticated("this token was replaced by a newer one for the same seat") from None
            if owner is not None:
                raise PermissionDenied("this token belongs to another match") from None
            raise

    async def require_host(self, live: LiveMatch, token: str | None) -> Viewer:
        """The host's view for a host's write; a registered policy may say who corrects a match of its own
        instead (server/policy.py: the arena's organiser, as a spectator) or refuse the correction."""
        if token and self.access.is_corrector(live, token):
            viewer = self.access.policies.corrects(live)
            if viewer is not None:
                return viewer
        return self.access.host_only(await self.viewer_for(live, token) if token else None)

    def by(self, token: str | None) -> str:
        """Who a host record names: the admin, or the match's host."""
        return "admin" if self.access.is_admin(token) else "host"

    async def as_host(
        self, live: LiveMatch, token: str | None, tag: RequestTag | None
    ) -> tuple[Viewer, str, Accepted | None]:
        """A host's write: (viewer, caller, the original outcome if this request was already made)."""
        viewer = await self.require_host(live, token)
        caller = self.access.caller_of(live, token)
        return viewer, caller, replayed(live, caller, tag, viewer)

    def created_again(self, live: LiveMatch, tag: RequestTag, body_checked: bool = False) -> Created:
        """A retried CreateMatch or Fork: the same match, and the same secrets (derived from the request id)."""
        if not body_checked:
            same_body(live.header["request"], tag)
        host_token = self.secrets.new(tag, str(live.id), "host")
        invitations = {player: self.secrets.new(tag, str(live.id), "invitation", player) for player in live.players}
        return Created(live, host_token, invitations)


def accepted(
    live: LiveMatch, viewer: Viewer, written: list[tuple[int, Record]], text: str = "", shown: bool = True
) -> Accepted:
    """What a write answers: the records it appended as the caller may see them (none unless `shown`), and
    a receipt (from the last record written, which the writer holds as stored: no decoding it again)."""
    rows = [(version, visible_record(live, version, viewer, record)) for version, record in written] if shown else []
    last = written[-1] if written and written[-1][0] == live.version else None
    receipt = receipt_at(live, live.version) if last is None else receipt_of(last[0], last[1])
    return Accepted(live.version, rows, live.status(), receipt, live.paused_after(live.version), text)


def replayed(live: LiveMatch, caller: str, tag: RequestTag | None, viewer: Viewer) -> Accepted | None:
    """The original outcome of a request this caller already made, as the caller may see it now."""
    if tag is None:
        return None
    first = live.requests.get((caller, tag.request_id))
    if first is None:
        return None
    same_body(live.records[first - 1]["request"], tag)
    last = live.batches.end_from(first)
    rows = [(version, visible_record(live, version, viewer)) for version in range(first, last + 1)]
    return Accepted(last, rows, live.status(), receipt_at(live, last), live.paused_after(last), _words(live, first))


def _words(live: LiveMatch, version: int) -> str:
    """A submission's command (recorded in its batch's cause) in the game's canonical words; "" for others."""
    command = (live.records[version - 1].get("cause") or {}).get("command")
    if command is None:
        return ""
    return live.game.format(codec.from_json(live.game.command_types, command))
