"""Sessions of the seat's and host's pages: the credential in a cookie, and a token on every POST.

The cookie holds the seat's (or host's) own token, so a session survives a restart and works on every
server process: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Secure
under TLS, and scoped by its path to one match's pages (/seat/<match> or /host/<match>). Every POST carries
a per-session token derived from the credential (an HMAC keyed by it), which no other site can compute,
besides the Site's Origin check. Server errors become the HTTP status that says what was wrong."""

from __future__ import annotations

import hashlib
import hmac
import uuid

from aiohttp import web

from server.web.refusals import refuse

SEAT = "seat"  # the cookie of a seat's pages
HOST = "host"  # the cookie of a host's console
MAX_AGE = 60 * 24 * 3600  # seconds: a match of turns a day lasts weeks


def match_id_of(request: web.Request) -> uuid.UUID:
    try:
        return uuid.UUID(request.match_info["match_id"])
    except ValueError:
        raise refuse(404, "no such match") from None


def path_of(kind: str, match_id: uuid.UUID) -> str:
    return f"/{kind}/{match_id}"


def begin(response: web.StreamResponse, request: web.Request, kind: str, match_id: uuid.UUID, token: str) -> None:
    response.set_cookie(
        kind,
        token,
        path=path_of(kind, match_id),
        max_age=MAX_AGE,
        httponly=True,
        samesite="Strict",
        secure=request.secure,
    )


def end(response: web.StreamResponse, kind: str, match_id: uuid.UUID) -> None:
    response.del_cookie(kind, path=path_of(kind, match_id))


def credential(request: web.Request, kind: str) -> str | None:
    return request.cookies.get(kind) or None


def form_token(credential: str) -> str:
    """The session's token for its forms: no other site knows the credential, so none can compute it."""
    return hmac.new(credential.encode(), b"matchserver page form", hashlib.sha256).hexdigest()[:32]


async def posted(request: web.Request, kind: str) -> tuple[str, dict[str, str]]:
    """A POST of a signed-in page: its credential and its fields, once its form token is checked."""
    token = credential(request, kind)
    if token is None:
        raise refuse(403, "not signed in: open your invitation link or sign in with your token")
    if request.content_type == "application/json":
        try:
            body = await request.json()
        except ValueError:
            raise refuse(400, "the body is not JSON") from None
        fields = {str(k): str(v) for k, v in body.items()} if isinstance(body, dict) else {}
    else:
        fields = {str(k): str(v) for k, v in (await request.post()).items()}
    given = fields.get("csrf") or request.headers.get("X-CSRF-Token") or ""
    if not hmac.compare_digest(given.encode(), form_token(token).encode()):
        raise refuse(403, "this form is not from your session (reload the page): nothing was done")
    return token, fields
