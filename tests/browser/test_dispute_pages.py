"""A dispute in Debian's chromium: a Cookoff player contests a harvest from the seat page, the host reviews
it on the console, tries a correction (both outcomes side by side), corrects it with its later inputs
re-applied, and the player's page (never reloaded) shows the correction; the match then plays to its end."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import WAIT_MS
from tests.support.live_http import port
from tests.support.seat_pages import Bots, claim, cookie_token, join_urls, person_move, seat_bots, send, shoot
from tests.support.server import ServerThread


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    opened = browser.new_context(viewport={"width": 1280, "height": 900})
    opened.set_default_timeout(WAIT_MS)
    yield opened
    opened.close()


def test_a_player_disputes_the_host_tries_and_corrects_and_the_seat_page_follows(
    context: Any, server: ServerThread
) -> None:
    client = server.client()
    created = client.create("cookoff", ["ann", "bob"], seed=11, config={"rounds": 2, "judge_reveal_after": [0, 1, 2]})
    match_id = created.match_id
    seat = claim(context, join_urls(created)["ann"])
    bots = seat_bots(client, created, ["bob"])
    token = cookie_token(context)
    rng = random.Random(5)
    gathered = person_move(client, match_id, "cookoff", "ann", token, rng)
    assert gathered
    send(seat, gathered)
    bots.act()  # the harvest: the ruling ann will contest
    seat.locator("#status", has_text="placement").wait_for()
    seat.evaluate("() => { window.neverReloaded = true; }")

    seat.reload()  # the dispute form lists the resolutions there were when the page was drawn
    seat.locator("#dispute-text").fill("I sent no one <b>at all</b>")
    seat.click("#dispute-send")
    seat.locator("#answer", has_text="filed").wait_for()
    seat.locator("#disputes", has_text="I sent no one <b>at all</b>").wait_for()  # her words, as text
    seat.evaluate("() => { window.neverReloaded = true; }")

    console = context.new_page()
    console.goto(f"http://127.0.0.1:{port(server)}/host/{match_id}")
    console.fill("#token", created.host_token)
    console.locator("form button").click()
    console.locator("#disputes a", has_text="review").click()
    console.locator("text=decided again under rules").wait_for()
    changed = str(console.locator("#view-changes").text_content())
    assert "ann" in changed and "bob" in changed and "spectator" in changed and "inventory" in changed
    console.locator("form:has(#dispute-try) textarea").fill("ann: I will send no workers.")
    console.locator("form:has(#dispute-try) input[name=forward]").check()
    console.click("#dispute-try")
    console.locator("table.what-if").wait_for()
    assert "actual" in str(console.locator("table.what-if").text_content())
    assert console.locator("#differences li").count() >= 1
    shoot(console, "dispute-review")
    correct = console.locator("form:has(#dispute-correct)")
    correct.locator("input[name=reason]").fill("ann wrote on the forum that she kept her workers home")
    correct.locator("textarea").fill("ann: I will send no workers.")
    correct.locator("input[name=reapply]").check()
    console.click("#dispute-correct")
    console.locator("#answer", has_text="correct done").wait_for()

    seat.locator("#disputes", has_text="corrected").wait_for()
    seat.locator("#submissions li", has_text="taken back by a rollback").wait_for()
    seat.locator("#submissions li", has_text="I will send no workers.").wait_for()
    assert seat.evaluate("() => window.neverReloaded") is True

    person = Bots(client, match_id, "cookoff", {"ann": token})
    for _ in range(400):  # both seats play on to the end (the person's moves through its own token)
        if client.state(match_id).status.finished:
            break
        if not (bots.act() or person.act()):
            break
    seat.locator("#status", has_text="the match is over").wait_for()
    assert client.verify(match_id, created.host_token).ok


def test_a_finished_matchs_seat_page_opens_without_a_command_box_or_a_script_error(
    page: Any, server: ServerThread
) -> None:
    client = server.client()
    created = client.create("cookoff", ["ann", "bob"], seed=11, config={"rounds": 2, "judge_reveal_after": [0, 1, 2]})
    tokens = {s.player: client.join(created.match_id, s.player, invitation=s.invitation) for s in created.invitations}
    bots = Bots(client, created.match_id, "cookoff", tokens)
    while not client.state(created.match_id).status.finished and bots.act():
        pass
    assert client.state(created.match_id).status.finished
    page.goto(f"http://127.0.0.1:{port(server)}/seat/{created.match_id}")
    page.fill("#token", tokens["ann"])
    page.locator("form button").click()
    page.locator("#status", has_text="the match is over").wait_for()
    page.locator("#live-state", has_text="following").wait_for()  # its script ran to the end
    assert page.locator("#command").count() == 0  # the page fixture fails the test on any script error
