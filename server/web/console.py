"""The host's console for one match (the match's host token or the admin token, as a session):

    GET  /host/<match>            the console (or a sign-in form)
    POST /host/<match>/signin     sign in with the host's or admin's token
    POST /host/<match>/act        pause, resume, extend, force the phase to end, cancel or roll back, with a reason
    POST /host/<match>/invite     a new invitation for a seat, shown once

Each action is the same application call the gRPC service makes, so it is the same audited host record.
"""

from __future__ import annotations

import uuid
from html import escape
from typing import Any

from aiohttp import web

from pictures.console import console_html
from pictures.page import describe
from pictures.seat import plain_page
from server.errors import BadRequest
from server.links import join_path
from server.matches import Matches
from server.paging import PageRequest
from server.web import sessions
from server.web.refusals import REFUSALS, refuse, status_of
from server.web.sessions import HOST
from server.web.site import Site

HISTORY_ROWS = 200  # the console's history and audit show the latest this many


def console_urls(match_id: uuid.UUID) -> dict[str, str]:
    base = sessions.path_of(HOST, match_id)
    return {
        "act": f"{base}/act",
        "invite": f"{base}/invite",
        "signin": f"{base}/signin",
        "spectate": f"/matches/{match_id}",
        "disputes": f"{base}/disputes",
    }


class HostConsole:
    def __init__(self, matches: Matches, site: Site) -> None:
        self.matches = matches
        site.get("/host/{match_id}", self.page)
        site.post("/host/{match_id}/signin", self.sign_in)
        site.post("/host/{match_id}/act", self.act)
        site.post("/host/{match_id}/invite", self.invite)

    def _sign_in_page(self, match_id: uuid.UUID, said: str = "") -> str:
        form = (
            f'<form method="post" action="{escape(console_urls(match_id)["signin"])}"><label for="token">the '
            "match's host token, or the admin token</label>"
            '<input type="password" id="token" name="token" autocomplete="off"><button>sign in</button></form>'
        )
        return plain_page("Host console: sign in", (f"<p class='bad'>{escape(said)}</p>" if said else "") + form)

    async def sign_in(self, request: web.Request) -> web.StreamResponse:
        match_id = sessions.match_id_of(request)
        token = str((await request.post()).get("token", "")).strip()
        try:
            await self.matches.seat_views.seats(match_id, token)  # the host's or admin's, or refused
        except REFUSALS as exc:
            return web.Response(text=self._sign_in_page(match_id, str(exc)), content_type="text/html", status=403)
        response = web.HTTPSeeOther(sessions.path_of(HOST, match_id))
        sessions.begin(response, request, HOST, match_id, token)
        raise response

    async def _data(self, match_id: uuid.UUID, token: str) -> dict[str, Any]:
        seats = await self.matches.seat_views.seats(match_id, token)
        state = await self.matches.queries.state(match_id, token, None)
        first = max(1, state.version - HISTORY_ROWS + 1)
        page = PageRequest(HISTORY_ROWS, PageRequest.next_token(first, more=True))
        history, _ = await self.matches.queries.history(match_id, token, page)
        audit, _ = await self.matches.queries.audit(match_id, token, None, page)
        return {
            "match_id": state.match_id,
            "game": state.game,
            "version": state.version,
            "phase": state.status.phase,
            "paused": state.paused,
            "finished": state.status.finished,
            "seats": [{"seat": s.seat, "claimed": s.claimed, "invitation_open": s.invitation_open} for s in seats],
            "audit": list(reversed(audit)),
            "disputes": [d.as_json() for d in await self.matches.disputes.listed(match_id, token)],
            "history": [
                {
                    "version": version,
                    "kind": record["kind"],
                    "words": _words(record, retracted),
                    "retracted": retracted,
                }
                for version, record, retracted in reversed(history)
            ],
        }

    async def page(self, request: web.Request, said: str = "", status: int = 200) -> web.Response:
        match_id = sessions.match_id_of(request)
        token = sessions.credential(request, HOST)
        if token is None:
            return web.Response(text=self._sign_in_page(match_id), content_type="text/html")
        try:
            data = await self._data(match_id, token)
        except REFUSALS as exc:
            return web.Response(
                text=self._sign_in_page(match_id, str(exc)), content_type="text/html", status=status_of(exc)
            )
        page = console_html(data, console_urls(match_id), sessions.form_token(token), said)
        return web.Response(text=page, content_type="text/html", status=status)

    async def act(self, request: web.Request) -> web.Response:
        match_id = sessions.match_id_of(request)
        token, fields = await sessions.posted(request, HOST)
        action, reason = fields.get("action", ""), fields.get("reason", "").strip()
        hosting = self.matches.hosting
        try:
            if action == "force":
                done = await hosting.force_phase_end(match_id, token, reason)
            elif action == "rollback":
                done = await hosting.rollback(match_id, token, _number(fields, "to"), reason)
            elif action in ("pause", "resume", "extend", "cancel"):
                seconds = float(_number(fields, "seconds")) if action == "extend" else 0.0
                done = await hosting.host_action(match_id, token, action, reason, seconds)
            else:
                raise BadRequest(f"no such host action {action!r}")
        except REFUSALS as exc:
            return await self.page(request, f"<span class='bad'>{escape(str(exc))}</span>", status_of(exc))
        said = f"<span class='good'>{escape(action)} done: the match is at version {done.version}</span>"
        return await self.page(request, said)

    async def invite(self, request: web.Request) -> web.Response:
        match_id = sessions.match_id_of(request)
        token, fields = await sessions.posted(request, HOST)
        seat = fields.get("seat", "")
        try:
            invited = await self.matches.seats.invite(match_id, seat, token)
        except REFUSALS as exc:
            return await self.page(request, f"<span class='bad'>{escape(str(exc))}</span>", status_of(exc))
        link = f"{request.scheme}://{request.host}{join_path(str(match_id), seat, invited.secret)}"
        said = (
            f"<span class='good'>a new invitation for {escape(seat)} (any earlier one stops working); send it to "
            f"the player, it is shown only now:</span><br><code id='invitation-link'>{escape(link)}</code>"
        )
        return await self.page(request, said)


def _words(record: dict[str, Any], retracted: bool) -> str:
    """A version of the history in plain words: the host's own records say what was done and why."""
    kind, reason = record.get("kind", ""), str(record.get("reason") or "")
    if kind == "host":
        action = str(record.get("action", ""))
        seconds = record.get("seconds")
        words = action + (f" by {float(seconds):g} s" if action == "extend" and seconds is not None else "")
    elif kind == "rollback":
        words = f"rolled back to version {record.get('to')}"
    elif kind == "invited":
        words, reason = f"a new invitation for {record.get('player', 'a seat')}", ""
    else:
        return describe(kind, (record.get("event") or {}).get("type", ""), record, retracted)
    return words + (f": {reason}" if reason else "") + (" (retracted by a rollback)" if retracted else "")


def _number(fields: dict[str, str], name: str) -> int:
    try:
        return int(fields.get(name, ""))
    except ValueError:
        raise refuse(400, f"{name} must be a whole number") from None
