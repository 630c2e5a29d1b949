"""The host's console in Debian's chromium, beside a seat page open in another browser: the host signs in
with the match's host token, pauses, resumes, extends and rolls back, and the seat page shows each as it
happens (through its event stream: it is never reloaded); a new invitation from the console opens a seat
page in a third browser. A real server on loopback with a ManualClock, so the countdown moves only when
the host moves it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import WAIT_MS
from tests.support.live_http import port
from tests.support.seat_pages import claim, join_urls, seat_bots, send, shoot, wait_version
from tests.support.server import ServerThread


@pytest.fixture
def contexts(browser: Any) -> Iterator[Any]:
    """New browser contexts (each its own cookies: a person, the host, another person), closed after."""
    opened: list[Any] = []
    errors: list[str] = []

    def new(width: int = 1280) -> Any:
        context = browser.new_context(viewport={"width": width, "height": 900})
        context.set_default_timeout(WAIT_MS)
        context.on("weberror", lambda error: errors.append(str(error.error)))
        opened.append(context)
        return context

    yield new
    for context in opened:
        context.close()
    assert not errors, f"a page raised: {errors}"


def sign_in(context: Any, server: ServerThread, match_id: str, token: str) -> Any:
    console = context.new_page()
    console.goto(f"http://127.0.0.1:{port(server)}/host/{match_id}")
    console.fill("#token", token)
    console.locator("form button").click()
    console.locator("h1", has_text="Host console").wait_for()
    assert console.url.endswith(f"/host/{match_id}")
    return console


def act(console: Any, action: str, reason: str, **fields: str) -> None:
    """Fill one of the console's action forms and press its button; wait for the console's answer."""
    form = console.locator(f"form:has(#act-{action})")
    form.locator("input[name=reason]").fill(reason)
    for name, value in fields.items():
        form.locator(f"input[name={name}]").fill(value)
    console.click(f"#act-{action}")
    console.locator("#answer", has_text=f"{action} done").wait_for()


def countdown(seat: Any) -> float:
    return float(seat.locator("#countdown").get_attribute("data-seconds"))


def test_the_host_pauses_resumes_extends_and_rolls_back_and_the_seat_page_shows_each(
    contexts: Any, server: ServerThread
) -> None:
    client = server.client()
    created = client.create("cookoff", ["ann", "bot"], seed=11)
    match_id = created.match_id
    seat = claim(contexts(), join_urls(created)["ann"])
    seat_bots(client, created, ["bot"])  # seated, and waiting: the bot never acts here
    before_move = client.state(match_id).version
    wait_version(seat, before_move)
    send(seat, "I will send no workers.")
    seat.locator("#submissions li", has_text="I will send no workers.").wait_for()
    seat.evaluate("() => { window.neverReloaded = true; }")
    left = countdown(seat)

    console = sign_in(contexts(), server, match_id, created.host_token)
    assert console.locator("#match-state").text_content() == "running"

    act(console, "pause", "ann's connection is down")
    seat.locator("#status", has_text="paused by the host").wait_for()
    assert seat.locator("#countdown").count() == 0  # the clock is stopped
    assert console.locator("#match-state").text_content() == "paused"
    console.locator("#audit", has_text="ann's connection is down").wait_for()

    act(console, "resume", "ann is back")
    seat.locator("#countdown").wait_for()
    assert "paused" not in str(seat.locator("#status").text_content())
    assert countdown(seat) == left  # a ManualClock: no time passed while paused

    act(console, "extend", "a holiday", seconds="45")
    seat.wait_for_function(f"() => Number(document.getElementById('countdown').dataset.seconds) === {left + 45}")

    act(console, "rollback", "ann's move is taken back", to=str(before_move))
    seat.locator("#submissions li", has_text="taken back by a rollback").wait_for()
    seat.locator("#status", has_text="paused by the host").wait_for()  # a rollback leaves the match paused
    assert seat.evaluate("() => window.neverReloaded") is True
    history = str(console.locator("#history").text_content())
    assert "pause: ann's connection is down (retracted by a rollback)" in history
    assert "rolled back to version" in history

    console.locator('form:has(input[name=seat][value="bot"]) button').click()  # a new invitation for bot
    link = console.locator("#invitation-link")
    link.wait_for()
    shoot(console, "console")
    other = claim(contexts(), str(link.text_content()))
    other.locator("h1", has_text="bot · cookoff").wait_for()
    other.locator("#status", has_text="paused by the host").wait_for()
    assert seat.evaluate("() => window.neverReloaded") is True


def test_a_wrong_token_does_not_sign_in_to_the_console(contexts: Any, server: ServerThread) -> None:
    client = server.client()
    created = client.create("cookoff", ["ann", "bot"], seed=11)
    context = contexts()
    seat = claim(context, join_urls(created)["ann"])
    console = context.new_page()
    console.goto(f"http://127.0.0.1:{port(server)}/host/{created.match_id}")
    console.fill("#token", "not the host's token")
    console.locator("form button").click()
    console.locator(".bad").wait_for()
    assert console.locator("#act-pause").count() == 0
    assert not [c for c in context.cookies() if c["name"] == "host"]
    seat.locator("#status", has_text="waiting for players").wait_for()
