"""The front door in a real browser: it lists a running tournament and follows it, without a reload, as its
matches finish, under its own content security policy; and screenshots of the front door, a bot's page and
a leaderboard at 375 and 1280 px wide (var/screenshots/), to be looked at."""

from __future__ import annotations

from typing import Any

import pytest

import pictures
from tests.browser.conftest import SCREENSHOTS
from tests.e2e.arena.support import Arena
from tests.support.duel import seat_duel
from tests.support.live_http import port
from tests.support.server import ServerThread

BOTS = ["ann", "bob", "cid"]
WIDTHS = (375, 1280)


def render_svg(view: dict[str, Any]) -> str:
    """The test game's picture (pictures/ draws only the real games)."""
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40"><text y="20">{view["round"]}</text></svg>'


@pytest.fixture(autouse=True)
def duel_pictures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(pictures.RENDERERS, "duel", __name__)


def playing(arena: Arena, tournament_id: str) -> list[str]:
    return [m.match_id for m in arena.get(tournament_id).matches if m.state == "playing"]


def test_the_front_door_follows_a_running_tournament_as_its_matches_finish(browser: Any, server: ServerThread) -> None:
    arena = Arena(server)
    for bot in BOTS:
        arena.bot(bot)
    made = arena.tournament("duel", BOTS, format="round-robin", games_per_pair=1, seed=1, name="Spring cup")
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # the page's own policy in force
    try:
        door = context.new_page()
        errors: list[str] = []
        door.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        door.on("pageerror", lambda error: errors.append(str(error)))
        door.goto(f"http://127.0.0.1:{port(server)}/")
        door.locator("#live-state", has_text="following").wait_for(timeout=30_000)
        row = door.locator("#tournaments tr", has_text="Spring cup")
        assert row.locator("td").nth(4).inner_text() == "0 of 3"
        assert row.locator(".state").inner_text() == "running"
        door.evaluate("window.notReloaded = true")
        for finished in (1, 2, 3):
            match_id = playing(arena, made.tournament_id)[0]
            door.locator(f'#playing a[href="/matches/{match_id}"]').wait_for(timeout=30_000)
            arena.finish_by_defaults(match_id)
            door.locator("#tournaments tr", has_text="Spring cup").locator("td", has_text=f"{finished} of 3").wait_for(
                timeout=30_000
            )
            door.locator(f'#finished a[href="/matches/{match_id}"]').wait_for(timeout=30_000)
        door.locator("#tournaments .state", has_text="finished").wait_for(timeout=30_000)
        door.locator("#leaderboards a", has_text="ann").wait_for(timeout=30_000)
        assert door.evaluate("window.notReloaded === true"), "the page was updated in place, not reloaded"
        assert door.locator("#playing", has_text="no public match is being played").count() == 1
        assert not errors
        door.locator("#tournaments a", has_text="Spring cup").click()
        door.wait_for_url(f"**/tournaments/{made.tournament_id}")
        assert door.inner_text("h1") == "Spring cup"
    finally:
        context.close()
        arena.close()


def test_screenshots_of_the_front_door_a_bot_page_and_a_leaderboard(page: Any, server: ServerThread) -> None:
    arena = Arena(server)
    try:
        for bot in [*BOTS, "a-bot-with-a-rather-long-name-31"]:
            arena.bot(bot)
        done = arena.tournament("duel", [*BOTS, "a-bot-with-a-rather-long-name-31"], format="round-robin", seed=2)
        arena.play_out(done.tournament_id)
        arena.tournament("duel", BOTS, format="round-robin", seed=3, name="A second cup, still running")
        client = server.client()
        match_id, _, ann, _ = seat_duel(client, 7)
        client.submit(match_id, ann, text="pick 2")
        client.create("duel", ["long-player-name-number-one", "long-player-name-number-two"])
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        base = f"http://127.0.0.1:{port(server)}"
        for name, path in (("front-door", "/"), ("bot", "/bots/ann"), ("leaderboard", "/leaderboard/duel")):
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": 900})
                page.goto(base + path)
                if path == "/":
                    page.locator("#live-state", has_text="following").wait_for()
                else:
                    page.locator("details").first.evaluate("d => { d.open = true }") if path.startswith(
                        "/bots"
                    ) else None
                overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
                assert overflow <= 0, f"{path} at {width} px is wider than the screen by {overflow} px"
                cut = page.evaluate(
                    "[...document.querySelectorAll('.scroll')].filter(e => e.scrollWidth > e.clientWidth).length"
                )
                assert cut == 0, f"{path} at {width} px: {cut} tables need scrolling sideways"
                page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)
    finally:
        arena.close()
