"""The players' pages: an invitation link, and the seat's page to play from.

    GET  /join/<match>/<seat>/<code>   the match and the seat the invitation opens (a GET never spends it)
    POST /join/<match>/<seat>/<code>   claim the seat: a session cookie for /seat/<match>, then the seat page
    GET  /seat/<match>                 the seat's page (or a sign-in form for the seat's token)
    POST /seat/<match>/signin          sign in with a seat token
    GET  /seat/<match>/events          text/event-stream: the page's sections whenever the match moves
    POST /seat/<match>/check           what a text would be as the seat's command now (nothing is written)
    POST /seat/<match>/submit          submit it, with a request id (a double click acts once)

The seat is the session's, never the URL's: a cookie acts for the seat whose token it holds and no other.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import uuid
from dataclasses import asdict
from html import escape
from typing import Any

from aiohttp import web

from pictures import RENDERERS, render_svg
from pictures.seat import plain_page, seat_html, seat_sections
from server.application.seat_views import SeatView
from server.limits import check_request_id
from server.links import join_path
from server.matches import Matches
from server.requests import RequestTag
from server.web import sessions
from server.web.events import KEEPALIVE
from server.web.refusals import REFUSALS, refuse, status_of
from server.web.sessions import SEAT
from server.web.site import Site


def seat_urls(match_id: uuid.UUID) -> dict[str, str]:
    base = sessions.path_of(SEAT, match_id)
    return {
        "page": base,
        "events": f"{base}/events",
        "check": f"{base}/check",
        "submit": f"{base}/submit",
        "signin": f"{base}/signin",
        "dispute": f"{base}/dispute",
        "spectate": f"/matches/{match_id}",
    }


def _svg(view: SeatView) -> str:
    if view.state.game not in RENDERERS:
        return '<p class="note">this game has no pictures; its view is below</p>'
    return render_svg(view.state.game, view.state.view)


def _ranks(view: SeatView) -> list[dict[str, Any]] | None:
    """The finished match's places, best first ({"results": [{"player", "rank", "score"}]}, engine/contract.py)."""
    if not view.state.status.finished or not view.state.results:
        return None
    rows = [r for r in view.state.results.get("results") or [] if isinstance(r, dict) and "rank" in r]
    return sorted(
        ({"player": str(r.get("player")), "rank": int(r["rank"]), "score": r.get("score")} for r in rows),
        key=lambda r: (r["rank"], r["player"]),
    )


def seat_data(view: SeatView, svg: str) -> dict[str, Any]:
    status = view.state.status
    return {
        "match_id": view.state.match_id,
        "game": view.state.game,
        "seat": view.seat,
        "players": list(view.state.players),
        "version": view.state.version,
        "phase": status.phase,
        "paused": view.state.paused,
        "finished": status.finished,
        "waiting": view.waiting,
        "cancelled": view.cancelled,
        "unseated": list(view.unseated),
        "awaiting": list(view.awaiting),
        "deadline_in": view.deadline_in,
        "reserve": view.reserve,
        "forms": list(view.forms),
        "example": view.example,
        "ends_early": view.ends_early,
        "can_act": view.turn_version is not None,
        "results": _ranks(view),
        "submissions": [
            {
                "version": s.version,
                "text": s.text,
                "receipt_version": s.receipt.version,
                "receipt_hash": s.receipt.chain_head,
                "retracted": s.retracted,
            }
            for s in view.submissions
        ],
        "svg": svg,
        "resolutions": [list(r) for r in view.resolutions],
        "disputes": list(view.disputes),
        "asked_again": list(view.asked_again),
    }


class SeatPages:
    def __init__(self, matches: Matches, site: Site) -> None:
        self.matches = matches
        self.site = site
        site.get("/join/{match_id}/{seat}/{code}", self.invitation)
        site.post("/join/{match_id}/{seat}/{code}", self.claim)
        site.get("/seat/{match_id}", self.page)
        site.post("/seat/{match_id}/signin", self.sign_in)
        site.get("/seat/{match_id}/events", self.events)
        site.post("/seat/{match_id}/check", self.check)
        site.post("/seat/{match_id}/submit", self.submit)
        site.post("/seat/{match_id}/dispute", self.dispute)

    # --- invitations -----------------------------------------------------------------------------

    async def invitation(self, request: web.Request) -> web.Response:
        match_id, seat, code = sessions.match_id_of(request), request.match_info["seat"], request.match_info["code"]
        try:
            shown = await self.matches.seat_views.invitation(match_id, seat, code)
        except REFUSALS as exc:
            raise refuse(404 if status_of(exc) in (403, 404) else status_of(exc), str(exc)) from None
        about = (
            f"<p>{escape(shown.game)} match <code>{escape(shown.match_id)}</code>, players "
            f"{escape(', '.join(shown.players))}.</p>"
        )
        if not shown.valid:
            body = (
                about + "<p class='bad'>This invitation was used, replaced, or its seat has acted: "
                "ask the host for a new one.</p>"
            )
            return web.Response(text=plain_page(f"The seat {seat}", body), content_type="text/html", status=410)
        action = escape(join_path(shown.match_id, seat, code))
        body = (
            about + f"<p>This invitation opens the seat <strong>{escape(seat)}</strong>. Claiming it signs this "
            "browser in as that seat. Keep the link to yourself: until the seat first acts it can be claimed "
            "again, which signs out the browser that claimed it before.</p>"
            f'<form method="post" action="{action}"><button>claim the seat {escape(seat)}</button></form>'
        )
        return web.Response(text=plain_page(f"Join as {seat}", body), content_type="text/html")

    async def claim(self, request: web.Request) -> web.StreamResponse:
        match_id, seat, code = sessions.match_id_of(request), request.match_info["seat"], request.match_info["code"]
        tag = RequestTag(hashlib.sha256(code.encode()).hexdigest()[:32], "page-claim")  # a double click joins once
        try:
            joined = await self.matches.seats.join(match_id, seat, None, invitation=code, tag=tag)
        except REFUSALS as exc:
            page = plain_page(f"The seat {seat}", f"<p class='bad'>{escape(str(exc))}</p>")
            return web.Response(text=page, content_type="text/html", status=status_of(exc))
        response = web.HTTPSeeOther(sessions.path_of(SEAT, match_id))
        sessions.begin(response, request, SEAT, match_id, joined.secret)
        raise response

    async def sign_in(self, request: web.Request) -> web.StreamResponse:
        match_id = sessions.match_id_of(request)
        token = str((await request.post()).get("token", "")).strip()
        try:
            await self.matches.seat_views.seat(match_id, token)
        except REFUSALS as exc:
            page = plain_page("Sign in", f"<p class='bad'>{escape(str(exc))}</p>{self._sign_in_form(match_id)}")
            return web.Response(text=page, content_type="text/html", status=403)
        response = web.HTTPSeeOther(sessions.path_of(SEAT, match_id))
        sessions.begin(response, request, SEAT, match_id, token)
        raise response

    @staticmethod
    def _sign_in_form(match_id: uuid.UUID) -> str:
        return (
            f'<form method="post" action="{escape(seat_urls(match_id)["signin"])}"><label for="token">your seat '
            'token</label><input type="password" id="token" name="token" autocomplete="off">'
            "<button>sign in</button></form>"
        )

    # --- the seat's page ----------------------------------------------------------------------------

    async def _view(
        self, match_id: uuid.UUID, token: str, resolutions: bool = False
    ) -> tuple[SeatView, dict[str, Any]]:
        try:
            view = await self.matches.seat_views.seat(match_id, token, resolutions)
        except REFUSALS as exc:
            status = status_of(exc)
            raise refuse(404 if status == 404 else status, str(exc)) from None
        return view, seat_data(view, await asyncio.to_thread(_svg, view))

    async def page(self, request: web.Request, said: str = "", status: int = 200, typed: str = "") -> web.Response:
        match_id = sessions.match_id_of(request)
        token = sessions.credential(request, SEAT)
        if token is None:
            body = "<p>Open the invitation link the host sent you, or sign in with your seat token.</p>"
            page = plain_page("Sign in to your seat", body + self._sign_in_form(match_id))
            return web.Response(text=page, content_type="text/html")
        _, data = await self._view(match_id, token, resolutions=True)
        page = seat_html(data, seat_urls(match_id), sessions.form_token(token), secrets.token_hex(12), said, typed)
        return web.Response(text=page, content_type="text/html", status=status)

    async def events(self, request: web.Request) -> web.StreamResponse:
        match_id = sessions.match_id_of(request)
        token = sessions.credential(request, SEAT)
        if token is None:
            raise refuse(403, "not signed in")
        view, data = await self._view(match_id, token)
        async with self.site.events.open(request) as stream:
            while True:
                update = {k: data[k] for k in ("version", "can_act", "ends_early", "deadline_in")}
                await stream.send(str(view.state.version), {**update, "sections": seat_sections(data)})
                seen = view.state.version
                while seen == view.state.version:
                    await self.matches.queries.wait_for_change(match_id, seen, KEEPALIVE, until=stream.ended)
                    if stream.ended.done():
                        return stream.response
                    try:
                        view, data = await self._view(match_id, token)
                    except web.HTTPException:  # the token was replaced, or the match became unreadable
                        return stream.response
                    if seen == view.state.version:
                        await stream.still_here()

    async def check(self, request: web.Request) -> web.Response:
        match_id = sessions.match_id_of(request)
        token, fields = await sessions.posted(request, SEAT)
        try:
            understood = await self.matches.seat_views.understand(match_id, token, fields.get("text", ""))
        except REFUSALS as exc:
            return web.json_response({"ok": False, "words": str(exc)}, status=status_of(exc))
        return web.json_response(asdict(understood))

    async def submit(self, request: web.Request) -> web.Response:
        match_id = sessions.match_id_of(request)
        token, fields = await sessions.posted(request, SEAT)
        text, request_id = fields.get("text", "").strip(), fields.get("request_id", "")
        wants_json = "application/json" in request.headers.get("Accept", "")
        try:
            if request_id:
                check_request_id(request_id, self.matches.limits)
            tag = RequestTag(request_id, hashlib.sha256(text.encode()).hexdigest()[:32]) if request_id else None
            done = await self.matches.commands.submit(match_id, token, "", text, None, None, tag)
        except REFUSALS as exc:
            if wants_json:
                return web.json_response({"ok": False, "message": str(exc)}, status=status_of(exc))
            return await self.page(request, said=str(exc), status=status_of(exc), typed=text)
        message = f"accepted: {done.text} (receipt: version {done.receipt.version}, {done.receipt.chain_head})"
        if wants_json:
            return web.json_response({"ok": True, "message": message, "version": done.version})
        raise web.HTTPSeeOther(sessions.path_of(SEAT, match_id))

    async def dispute(self, request: web.Request) -> web.Response:
        """File a dispute against a resolution the seat saw (the page's form)."""
        match_id = sessions.match_id_of(request)
        token, fields = await sessions.posted(request, SEAT)
        try:
            at = int(fields.get("at_version", ""))
        except ValueError:
            raise refuse(400, "at_version must be the version of a resolution") from None
        try:
            filed = await self.matches.disputes.file(match_id, token, at, fields.get("text", ""))
        except REFUSALS as exc:
            return await self.page(request, said=str(exc), status=status_of(exc))
        return await self.page(request, said=f"dispute {filed.dispute.id} filed: the host will review it")
