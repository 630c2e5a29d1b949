"""A tournament's live page (`/tournaments/<id>`): pictures/standings.py drawing plain data (escaped, shared
ranks, links to each match), the server's page and event stream over raw HTTP, and a real browser following
a round robin of the test game "duel" as its matches finish, then opening a match from its link."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

import pictures
from matchserver.v1 import arena_pb2 as apb
from pictures.standings import sections, tournament_html
from server.streams import StreamLimits
from tests.browser.conftest import SCREENSHOTS
from tests.e2e.arena.support import Arena, auth
from tests.support.live_http import EventStream, get, port, start
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

BOTS = ["ann", "bob", "cid"]
MATCH_ID = "0b6e1c1e-5d1a-4c33-9c0e-3f1d5a7c2b10"


# --- the picture: pure, from plain data ---------------------------------------------------------------


def data(**changes: Any) -> dict[str, Any]:
    """A round robin of three bots after its first match: ann beat `<b>`; cid had the bye."""
    base: dict[str, Any] = {
        "id": "6f1c0a52-93c4-5d0e-8f7e-2b1d3c4e5f60",
        "name": "Spring cup",
        "game": "duel",
        "format": "round-robin",
        "organiser": "admin",
        "state": "running",
        "finished": 1,
        "counted": 3,
        "standings": [
            {"rank": 1, "bot": "ann", "points": 1.0, "played": 1, "wins": 1, "byes": 1},
            {"rank": 2, "bot": "<b>", "points": 0.0, "played": 1, "wins": 0, "byes": 1},
            {"rank": 2, "bot": "cid", "points": 0.0, "played": 0, "wins": 0, "byes": 1},
        ],
        "matches": [
            {
                "index": 1,
                "round": 1,
                "seats": ["ann", "<b>"],
                "match_id": MATCH_ID,
                "state": "finished",
                "ranks": {"<b>": 2, "ann": 1},
                "notes": ["rolled back to version 3 while it was played: <i>oops</i>"],
            },
            {"index": 2, "round": 2, "seats": ["<b>", "cid"], "match_id": "", "state": "scheduled", "ranks": None},
        ],
        "audit": ["created by admin: duel, round-robin, 3 bots", "#1 finished: ann 1st, <b> 2nd"],
    }
    return base | changes


def test_every_string_from_users_is_escaped() -> None:
    page = tournament_html(data(name="<script>alert(1)</script>"), "/tournaments/x/events")
    assert "<b>" not in page and "&lt;b&gt;" in page
    assert "<i>oops</i>" not in page and "&lt;i&gt;oops&lt;/i&gt;" in page
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<script>") == 1, "only the page's own script"


def test_a_started_match_links_to_its_page_and_a_scheduled_one_does_not() -> None:
    drawn = sections(data())["matches"]
    assert re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', drawn) == [(f"/matches/{MATCH_ID}", "#1")]
    text = re.sub(r"<[^>]+>", "|", drawn)
    assert "ann| v |&lt;b&gt;" in text and "&lt;b&gt;| v |cid" in text, "seats in order"
    assert "ann 1st|, |&lt;b&gt; 2nd" in text, "ranks of a finished match, best first"


def test_bots_on_equal_points_share_a_rank() -> None:
    rows = re.findall(
        r'<tr[^>]*><td class="num">([^<]+)</td><td class="bot">([^<]+)</td>', sections(data())["standings"]
    )
    assert rows == [("1", "ann"), ("2=", "&lt;b&gt;"), ("2=", "cid")]


def test_progress_counts_the_matches_that_count() -> None:
    assert "1 of 3 matches finished" in sections(data())["progress"]
    assert "the tournament is over" in sections(data(state="finished", finished=3))["progress"]


# --- the server: raw HTTP -----------------------------------------------------------------------------


def render_svg(view: dict[str, Any]) -> str:
    """The test game's picture (pictures/ draws only the real games): its round and scores."""
    scores = " · ".join(f"{player} {score}" for player, score in view["scores"].items())
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="360" height="60">'
        f'<text x="10" y="35" font-size="18">round {view["round"]}: {scores}</text></svg>'
    )


@pytest.fixture(autouse=True)
def duel_pictures(monkeypatch: pytest.MonkeyPatch) -> None:
    """A match page of the test game draws with render_svg above (the server runs in this process)."""
    monkeypatch.setitem(pictures.RENDERERS, "duel", __name__)


def round_robin(server: ServerThread, name: str = "Spring <cup>") -> tuple[Arena, apb.Tournament]:
    """Three bots in a round robin of duels: one match a round, the third bot has the bye."""
    arena = Arena(server)
    for bot in BOTS:
        arena.bot(bot)
    return arena, arena.tournament("duel", BOTS, format="round-robin", games_per_pair=1, seed=1, name=name)


def playing(arena: Arena, tournament_id: str) -> list[str]:
    return [m.match_id for m in arena.get(tournament_id).matches if m.state == "playing"]


def test_the_page_and_its_stream_follow_a_match_and_show_no_seed(server: ServerThread) -> None:
    arena, made = round_robin(server)
    try:
        status, page = get(server, f"/tournaments/{made.tournament_id}")
        assert status == 200 and "Spring &lt;cup&gt;" in page and "0 of 3 matches finished" in page
        first = playing(arena, made.tournament_id)[0]
        assert f'href="/matches/{first}"' in page
        stream = EventStream(server, f"/tournaments/{made.tournament_id}/events")
        try:
            assert stream.status == 200
            assert "0 of 3 matches finished" in stream.next_message()["sections"]["progress"]
            arena.finish_by_defaults(first)
            while "1 of 3 matches finished" not in (update := stream.next_message())["sections"]["progress"]:
                pass
        finally:
            stream.close()
        winner = next(row.bot for row in arena.get(made.tournament_id).standings if row.points == 1)
        assert f'<td class="bot">{winner}</td><td class="num points">1</td>' in update["sections"]["standings"]
        header = json.loads(server.client().history(first, server.admin_token)[0].json)
        seed = str(header.get("seed") or header["event"]["seed"])
        assert len(seed) > 6, "a seed long enough not to turn up by chance"
        for shown in (page, stream.raw, get(server, f"/tournaments/{made.tournament_id}")[1]):
            assert seed not in shown, "a match's seed reached the tournament's page"
    finally:
        arena.close()


def test_a_void_and_its_reason_reach_the_page_escaped(server: ServerThread) -> None:
    arena, made = round_robin(server)
    try:
        first = playing(arena, made.tournament_id)[0]
        arena.finish_by_defaults(first)
        wait_until(lambda: first not in playing(arena, made.tournament_id), "the tournament records the end")
        void = apb.VoidTournamentMatchRequest(
            tournament_id=made.tournament_id, match_id=first, reason="bot <b>broke</b>", rematch=True
        )
        arena.stub.VoidTournamentMatch(void, metadata=auth(arena.admin))
        _, page = get(server, f"/tournaments/{made.tournament_id}")
        assert "voided by admin: bot &lt;b&gt;broke&lt;/b&gt;" in page and "<b>broke" not in page
        assert "rematch of #0" in page and "0 of 3 matches finished" in page, "a voided match does not count"
    finally:
        arena.close()


def test_unknown_and_malformed_tournament_ids_answer_404(server: ServerThread) -> None:
    arena, made = round_robin(server)
    try:
        match_id = playing(arena, made.tournament_id)[0]
        for path in (
            f"/tournaments/{uuid.uuid4()}",
            f"/tournaments/{uuid.uuid4()}/events",
            "/tournaments/not-a-tournament",
            f"/tournaments/{match_id}",  # a match is not a tournament
            f"/tournaments/{made.tournament_id}/other",
            f"/tournaments/{made.tournament_id}/events/more",
        ):
            assert get(server, path)[0] == 404, path
        assert get(server, f"/matches/{made.tournament_id}")[0] == 404, "nor is a tournament a match"
        assert get(server, "/tournaments")[0] == 200, "the list of tournaments (the front door's)"
    finally:
        arena.close()


def test_tournament_streams_count_in_max_page_streams(tmp_path: Path) -> None:
    server = start(tmp_path, streams=StreamLimits(max_page_streams=1))
    arena, made = round_robin(server)
    try:
        match_path = f"/matches/{playing(arena, made.tournament_id)[0]}/events"
        tournament_path = f"/tournaments/{made.tournament_id}/events"
        opened = EventStream(server, tournament_path)
        assert opened.status == 200
        status, body = get(server, match_path)
        assert status == 503 and "StreamLimits.max_page_streams=1" in body
        assert get(server, f"/tournaments/{made.tournament_id}")[0] == 200, "the page itself is not a stream"
        opened.close()
        wait_until(lambda: EventStream(server, tournament_path).status == 200, "a place is free again")
    finally:
        arena.close()
        server.stop()


# --- a real browser -----------------------------------------------------------------------------------


def test_the_page_works_under_its_own_content_security_policy(browser: Any, server: ServerThread) -> None:
    arena, made = round_robin(server)
    context = browser.new_context(viewport={"width": 1400, "height": 900})  # the policy in force
    try:
        strict = context.new_page()
        blocked: list[str] = []
        strict.on("console", lambda message: blocked.append(message.text) if message.type == "error" else None)
        strict.goto(f"http://127.0.0.1:{port(server)}/tournaments/{made.tournament_id}")
        strict.locator("#live-state", has_text="following").wait_for(timeout=30_000)
        arena.finish_by_defaults(playing(arena, made.tournament_id)[0])
        strict.locator("#progress", has_text="1 of 3 matches finished").wait_for(timeout=30_000)
        assert not blocked
    finally:
        context.close()
        arena.close()


def test_the_browser_follows_the_standings_and_opens_a_match(page: Any, server: ServerThread) -> None:
    arena, made = round_robin(server)
    try:
        page.goto(f"http://127.0.0.1:{port(server)}/tournaments/{made.tournament_id}")
        page.wait_for_function("document.getElementById('live-state').textContent === 'following'")
        assert page.inner_text("h1") == "Spring <cup>"
        assert [cell.strip() for cell in page.locator("#standings td:first-child").all_inner_texts()] == ["1="] * 3
        for finished in (1, 2):
            match_id = playing(arena, made.tournament_id)[0]
            arena.finish_by_defaults(match_id)
            page.locator("#progress", has_text=f"{finished} of 3 matches finished").wait_for()
            expected = [(row.bot, f"{row.points:g}") for row in arena.get(made.tournament_id).standings]
            shown = [
                (row.locator("td.bot").inner_text(), row.locator("td.points").inner_text())
                for row in page.locator("#standings tbody tr").all()
            ]
            assert shown == expected, "the standings as the arena has them, without a reload"
        page.locator("#matches a", has_text="#2").wait_for()  # the last round has started (indices from 0)
        audit = page.locator("#audit li").all_inner_texts()
        assert audit == list(arena.get(made.tournament_id).audit) and len(set(audit)) == len(audit)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "tournament.png"), full_page=True)
        first = arena.get(made.tournament_id).matches[0].match_id
        page.locator("#matches a", has_text="#0").click()
        page.wait_for_url(f"**/matches/{first}")
        page.locator("#picture svg").wait_for()
        assert f"duel match {first}" in page.inner_text("h1")
    finally:
        arena.close()
