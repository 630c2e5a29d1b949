"""The front door (`/`), the bot, leaderboard and tournaments pages, over raw HTTP against a real server:
public matches listed with their phase, who is awaited and their winners, paged; a private match nowhere;
a bot's record against each rival; every name from a user escaped; a match and its tournament linked both
ways; and the door's event stream sending its sections again as a match moves."""

from __future__ import annotations

import html
import json
import re
import uuid
from typing import Any

import pytest

import pictures
from pictures.front import finished_matches_html, live_matches_html, time_text
from server.catalog import Catalog
from tests.e2e.arena.support import Arena
from tests.server.test_catalog_on_postgres import check_public_page
from tests.support.duel import seat_duel
from tests.support.live_http import EventStream, get
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

BOTS = ["ann", "bob", "cid"]
MARKUP = '<script>alert("x")</script>'


def render_svg(view: dict[str, Any]) -> str:
    """The test game's picture (pictures/ draws only the real games)."""
    text = f'<text y="20">round {view["round"]}</text>'
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40">{text}</svg>'


@pytest.fixture(autouse=True)
def duel_pictures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(pictures.RENDERERS, "duel", __name__)


def section(page: str, key: str) -> str:
    """The drawn contents of one of the page's sections (by its element id)."""
    found = re.search(rf'<div id="{key}">(.*?)</div></section>', page, re.S)
    assert found is not None, f"no section {key}"
    return found.group(1)


def rows_of(drawn: str) -> list[str]:
    """Each table row as its cells' text, '|' between cells."""
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", drawn, re.S)
    return [
        html.unescape(re.sub(r"\s*\|\s*", "|", re.sub(r"<[^>]+>", "", re.sub(r"</td>", "|", row))).strip("|"))
        for row in rows
    ]


def match_ids(page: str) -> list[str]:
    return re.findall(r'href="/matches/([0-9a-f-]{36})"', page)


def play(server: ServerThread, match_id: str, tokens: dict[str, str], picks: dict[str, int]) -> None:
    client = server.client()
    for player, number in picks.items():
        client.submit(match_id, tokens[player], text=f"pick {number}")


def finished_duel(server: ServerThread, seed: int) -> str:
    """A duel ann wins 3-0 (she picks 3 each round, bob 1)."""
    match_id, _, ann, bob = seat_duel(server.client(), seed)
    for _ in range(3):
        play(server, match_id, {"ann": ann, "bob": bob}, {"ann": 3, "bob": 1})
    return match_id


# --- the pictures: pure ---------------------------------------------------------------------------------


def test_a_live_match_row_marks_who_is_awaited_and_escapes_every_name() -> None:
    row = {"match_id": str(uuid.uuid4()), "game": "duel", "players": ["a<b>", "bob"], "phase": "round 1 <pick>"}
    drawn = live_matches_html([row | {"awaiting": ["a<b>"], "time_left": 75.0, "paused": False}])
    assert "<b>" not in drawn and "<pick>" not in drawn
    assert '<span class="nowrap awaited">a&lt;b&gt;</span>' in drawn
    assert rows_of(drawn)[1] == "duel|a<b>, bob|round 1 <pick>|a<b>|1m 15s"
    finished = finished_matches_html([row | {"winners": ["a<b>"]}])
    assert rows_of(finished)[1] == "duel|a<b>, bob|a<b>"
    assert (time_text(3725), time_text(61), time_text(9)) == ("1h 02m", "1m 01s", "9s")


# --- the server ---------------------------------------------------------------------------------------


def test_a_live_public_match_is_listed_with_its_phase_who_is_awaited_and_its_time_left(server: ServerThread) -> None:
    match_id, _, ann, _bob = seat_duel(server.client(), 1)
    play(server, match_id, {"ann": ann}, {"ann": 2})
    status, page = get(server, "/")
    assert status == 200
    rows = rows_of(section(page, "playing"))
    assert rows[1:] == ["duel|ann, bob|round 1|bob|1m 00s"], "bob is awaited; the match clock stands still"
    assert match_ids(section(page, "playing")) == [match_id]
    assert '<span class="nowrap awaited">bob</span>' in section(page, "playing")
    assert "no public match has finished yet" in section(page, "finished")


def test_a_finished_public_match_is_listed_with_its_winner(server: ServerThread) -> None:
    match_id = finished_duel(server, 2)
    _, page = get(server, "/")
    assert match_ids(section(page, "finished")) == [match_id]
    assert rows_of(section(page, "finished"))[1:] == ["duel|ann, bob|ann"]
    assert match_id not in section(page, "playing")


def test_a_private_match_appears_nowhere_and_its_page_is_404(server: ServerThread) -> None:
    arena = Arena(server)
    try:
        for bot in BOTS:
            arena.bot(bot)
        arena.play_out(arena.tournament("duel", BOTS, format="round-robin", games_per_pair=1, seed=1).tournament_id)
        client = server.client()
        hidden = client.create("duel", ["ann", "bob"], private=True).match_id
        ann, bob = client.join(hidden, "ann"), client.join(hidden, "bob")
        client.submit(hidden, ann, text="pick 3")
        shown = seat_duel(client, 3)[0]
        stream = EventStream(server, "/events")
        try:
            first = stream.next_message()
        finally:
            stream.close()
        pages = [get(server, path)[1] for path in ("/", "/bots/ann", "/bots/bob", "/leaderboard/duel", "/tournaments")]
        for text in [*pages, stream.raw]:
            assert hidden not in text, "a private match was shown"
        assert shown in pages[0] and shown in first["sections"]["playing"]
        client.submit(hidden, bob, text="pick 1")  # the first round's picks are in
        play(server, hidden, {"ann": ann, "bob": bob}, {"ann": 3, "bob": 1})
        play(server, hidden, {"ann": ann, "bob": bob}, {"ann": 3, "bob": 1})
        assert server.client().state(hidden, ann).status.finished
        assert hidden not in get(server, "/")[1], "nor once it is over"
        for path in (f"/matches/{hidden}", f"/matches/{hidden}/events"):
            assert get(server, path)[0] == 404
    finally:
        arena.close()


def test_the_lists_are_paged_and_every_match_is_on_exactly_one_page(server: ServerThread) -> None:
    client = server.client()
    made = [client.create("duel", ["ann", "bob"]).match_id for _ in range(23)]  # waiting for their players
    _, first = get(server, "/")
    listed = match_ids(section(first, "playing"))
    assert listed == made[:20], "oldest first, twenty a page"
    older = re.search(r'<p class="more"><a href="([^"]+)">older', section(first, "playing"))
    assert older is not None and "live_after=" in older.group(1)
    _, second = get(server, html.unescape(older.group(1)))
    assert match_ids(section(second, "playing")) == made[20:]
    assert '<p class="more">' not in section(second, "playing"), "the last page says nothing follows"
    assert get(server, "/?live_after=x")[0] == 400 and get(server, "/events?finished_before=-1")[0] == 400
    waiting = rows_of(section(first, "playing"))[1]
    assert waiting.startswith("duel|ann, bob|waiting for players"), waiting


def test_a_bot_page_shows_its_rating_over_time_its_matches_and_its_record_against_each_rival(
    server: ServerThread,
) -> None:
    arena = Arena(server)
    try:
        for bot in BOTS:
            arena.bot(bot)
        made = arena.tournament("duel", BOTS, format="round-robin", games_per_pair=2, seed=1)
        done = arena.play_out(made.tournament_id)
        expected: dict[str, list[int]] = {rival: [0, 0, 0] for rival in ("bob", "cid")}
        ann_matches = []
        for match in done.matches:
            ranks = json.loads(match.ranks_json or "{}")
            if "ann" not in ranks:
                continue
            ann_matches.append(match.match_id)
            rival = next(bot for bot in ranks if bot != "ann")
            mine, theirs = ranks["ann"], ranks[rival]
            expected[rival][0 if mine < theirs else 1 if mine > theirs else 2] += 1
        status, page = get(server, "/bots/ann")
        assert status == 200
        record = rows_of(section(page, "record"))[1:]
        assert record == [f"{rival}|duel|{w}|{lost}|{d}" for rival, (w, lost, d) in expected.items()]
        assert sorted(match_ids(section(page, "matches"))) == sorted(ann_matches)
        assert f'href="/tournaments/{made.tournament_id}"' in section(page, "matches")
        history = section(page, "ratings")
        assert "<svg" in history and len(rows_of(history)) == 1 + len(ann_matches), "the ordinal after each match"
        board = next(r for r in server.run(_board(server)) if r.bot == "ann")
        assert f"ordinal {board.ordinal:.2f} after {len(ann_matches)} matches" in history
        _, leaderboard = get(server, "/leaderboard/duel")
        shown = [row.split("|")[1] for row in rows_of(section(leaderboard, "board"))[1:]]
        assert shown == [r.bot for r in server.run(_board(server))]
        assert 'href="/bots/ann"' in leaderboard
        _, front = get(server, "/")
        assert 'href="/leaderboard/duel"' in section(front, "leaderboards") and 'href="/bots/ann"' in front
    finally:
        arena.close()


async def _board(server: ServerThread) -> Any:
    assert server.running is not None and server.running.arena is not None
    return server.running.arena.leaderboard("duel")


def test_an_unknown_bot_or_game_is_404(server: ServerThread) -> None:
    Arena(server).bot("ann")
    assert get(server, "/bots/ann")[0] == 200, "a registered bot that has not played yet has a page"
    for path in ("/bots/nobody", "/bots/%3Cb%3E", "/leaderboard/no-such-game", "/bots/ann/more"):
        assert get(server, path)[0] == 404, path


def test_names_with_markup_render_as_text_everywhere(server: ServerThread) -> None:
    arena = Arena(server)
    try:
        for bot in BOTS:
            arena.bot(bot)
        made = arena.tournament("duel", BOTS, format="round-robin", games_per_pair=1, seed=1, name=MARKUP)
        first = next(m.match_id for m in arena.get(made.tournament_id).matches if m.state == "playing")
        escaped = html.escape(MARKUP)
        for path in ("/", "/tournaments", "/bots/ann", f"/matches/{first}"):
            status, page = get(server, path)
            assert status == 200, path
            assert MARKUP not in page and 'alert("x")' not in page, path
            assert escaped in page, path
    finally:
        arena.close()


def test_a_tournament_match_and_its_tournament_link_to_each_other(server: ServerThread) -> None:
    arena = Arena(server)
    try:
        for bot in BOTS:
            arena.bot(bot)
        made = arena.tournament("duel", BOTS, format="round-robin", games_per_pair=1, seed=1, name="Cup")
        first = next(m.match_id for m in arena.get(made.tournament_id).matches if m.state == "playing")
        _, live = get(server, f"/matches/{first}")
        links = re.search(r'<p id="links">(.*?)</p>', live)
        assert links is not None
        assert f'<a href="/tournaments/{made.tournament_id}">tournament Cup</a>' in links.group(1)
        assert '<a href="/bots/ann">bot ann</a>' in links.group(1) or '<a href="/bots/cid">' in links.group(1)
        _, tournament = get(server, f"/tournaments/{made.tournament_id}")
        audit = section_of_tournament(tournament)
        assert re.search(f'<a href="/matches/{first}"[^>]*>{first}</a>', audit), "the audit links the match it names"
        plain = seat_duel(server.client(), 4)[0]
        _, page = get(server, f"/matches/{plain}")
        assert "/tournaments/" not in page, "a host's match has no tournament"
    finally:
        arena.close()


def section_of_tournament(page: str) -> str:
    found = re.search(r'<div id="audit">(.*?)</div></section>', page, re.S)
    assert found is not None
    return found.group(1)


def test_the_event_stream_sends_the_sections_again_as_a_match_moves(server: ServerThread) -> None:
    match_id, _, ann, bob = seat_duel(server.client(), 5)
    stream = EventStream(server, "/events")
    try:
        assert stream.status == 200
        first = stream.next_message()
        assert set(first["sections"]) >= {"playing", "finished", "tournaments", "leaderboards"}
        assert rows_of(first["sections"]["playing"])[1].split("|")[3] == "ann, bob"
        play(server, match_id, {"ann": ann}, {"ann": 1})
        while rows_of((update := stream.next_message())["sections"]["playing"])[1].split("|")[3] != "bob":
            pass
        play(server, match_id, {"bob": bob}, {"bob": 3})  # the first round's picks are in
        for _ in range(2):
            play(server, match_id, {"ann": ann, "bob": bob}, {"ann": 1, "bob": 3})
        wait_until(lambda: server.client().state(match_id, ann).status.finished, "the match is over")
        while match_id not in (update := stream.next_message())["sections"]["finished"]:
            pass
        assert rows_of(update["sections"]["finished"])[1:] == ["duel|ann, bob|bob"]
    finally:
        stream.close()


def test_the_public_listing_leaves_out_private_matches_and_pages_both_ways_on_sqlite() -> None:
    check_public_page(Catalog.in_memory())  # and on PostgreSQL: tests/server/test_catalog_on_postgres.py
