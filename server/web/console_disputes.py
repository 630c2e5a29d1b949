"""The host's console for a match's disputes (the console's session):

    GET  /host/<match>/disputes/<n>          the review: the ruling's trace and rules, inputs, decided again
    POST /host/<match>/disputes/<n>/try      a what-if beside the actual outcome (nothing is written)
    POST /host/<match>/disputes/<n>/decide   uphold, or correct (replacements, reapply), with a reason

The same application calls as over gRPC (server/application/disputes.py)."""

from __future__ import annotations

import uuid
from html import escape
from typing import Any

from aiohttp import web

from pictures.disputes import review_html
from pictures.seat import plain_page
from server.matches import Matches
from server.web import sessions
from server.web.refusals import REFUSALS, refuse, status_of
from server.web.sessions import HOST
from server.web.site import Site


def replacements_of(text: str) -> dict[str, str]:
    """'SEAT: TEXT' lines (blank lines skipped)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        seat, colon, words = line.partition(":")
        if not colon or not seat.strip() or not words.strip():
            raise refuse(400, f"a replacement is 'SEAT: TEXT', one per line, not {line.strip()!r}")
        out[seat.strip()] = words.strip()
    return out


class DisputeConsole:
    def __init__(self, matches: Matches, site: Site) -> None:
        self.matches = matches
        site.get("/host/{match_id}/disputes/{number}", self.review)
        site.post("/host/{match_id}/disputes/{number}/try", self.try_correction)
        site.post("/host/{match_id}/disputes/{number}/decide", self.decide)

    @staticmethod
    def _dispute_id(request: web.Request) -> tuple[uuid.UUID, str]:
        match_id = sessions.match_id_of(request)
        number = request.match_info["number"]
        if not number.isdigit():
            raise refuse(404, "no such dispute")
        return match_id, f"{match_id}.{int(number)}"

    async def review(self, request: web.Request, tried: dict[str, Any] | None = None, said: str = "") -> web.Response:
        match_id, dispute_id = self._dispute_id(request)
        token = sessions.credential(request, HOST)
        if token is None:
            raise web.HTTPSeeOther(sessions.path_of(HOST, match_id))
        try:
            shown = await self.matches.disputes.review(dispute_id, token)
        except REFUSALS as exc:
            raise refuse(status_of(exc), str(exc)) from None
        base = f"{sessions.path_of(HOST, match_id)}/disputes/{dispute_id.rsplit('.', 1)[1]}"
        urls = {"try": f"{base}/try", "decide": f"{base}/decide"}
        back = f'<p><a href="{escape(sessions.path_of(HOST, match_id))}">back to the console</a></p>'
        body = back + (f'<p id="answer">{said}</p>' if said else "")
        body += review_html(shown, urls, sessions.form_token(token), tried)
        return web.Response(text=plain_page(f"Dispute {dispute_id}", body, wide=True), content_type="text/html")

    async def try_correction(self, request: web.Request) -> web.Response:
        _, dispute_id = self._dispute_id(request)
        token, fields = await sessions.posted(request, HOST)
        try:
            tried = await self.matches.disputes.try_correction(
                dispute_id,
                token,
                replacements_of(fields.get("replace", "")),
                fields.get("rules_version", "").strip() or None,
                fields.get("forward") == "1",
            )
        except REFUSALS as exc:
            return await self.review(request, said=f"<span class='bad'>{escape(str(exc))}</span>")
        return await self.review(request, tried=tried)

    async def decide(self, request: web.Request) -> web.Response:
        _, dispute_id = self._dispute_id(request)
        token, fields = await sessions.posted(request, HOST)
        decision, reason = fields.get("decision", ""), fields.get("reason", "")
        disputes = self.matches.disputes
        try:
            if decision == "uphold":
                done = await disputes.uphold(dispute_id, token, reason)
            elif decision == "correct":
                replaced = replacements_of(fields.get("replace", ""))
                done = await disputes.correct(dispute_id, token, reason, replaced, fields.get("reapply") == "1")
            else:
                raise refuse(400, "decide with uphold or correct")
        except REFUSALS as exc:
            return await self.review(request, said=f"<span class='bad'>{escape(str(exc))}</span>")
        said = (
            f"<span class='good'>dispute {escape(dispute_id)}: {escape(decision)} done at version {done.version}</span>"
        )
        return await self.review(request, said=said)
