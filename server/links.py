"""Where a seat's invitation opens in a browser: the pages' own address (Settings.page_url) and the path
server/web/seat.py serves. One place, so the gRPC answers, matchctl and the console print the same link."""

from __future__ import annotations

from urllib.parse import quote


def join_path(match_id: str, seat: str, code: str) -> str:
    return f"/join/{match_id}/{quote(seat, safe='')}/{quote(code, safe='')}"


def join_link(page_url: str, match_id: str, seat: str, code: str) -> str:
    """The invitation's link, or "" when the server serves no pages."""
    return f"{page_url.rstrip('/')}{join_path(match_id, seat, code)}" if page_url else ""
