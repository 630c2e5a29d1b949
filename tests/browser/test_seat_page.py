"""The seat page in Debian's chromium: a person opens their invitation link, claims the seat and plays a
whole match from the page (typing what the game's example bot would send on their own view) while example
bots play the other seats over gRPC. A real server on loopback with a ManualClock: no deadline passes by
itself, so every phase is passed by the players' own submissions."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from clients.bots import bot_names, get_bot
from clients.client import MatchClient
from server.clock import ManualClock
from tests.browser.conftest import WAIT_MS
from tests.support.seat_pages import (
    Bots,
    claim,
    cookie_token,
    join_urls,
    seat_bots,
    seen_status,
    send,
    shoot,
    type_command,
    wait_version,
)
from tests.support.server import ServerThread

# The page's own submit, twice at once with one request id (the page's script and its CSRF token).
TWICE = """async text => {
  const id = document.getElementById("request-id").value;
  const post = () => fetch(SUBMIT_URL, { method: "POST", credentials: "same-origin", body: JSON.stringify(
    { text, request_id: id }), headers: { "Content-Type": "application/json", "Accept": "application/json",
    "X-CSRF-Token": CSRF } }).then(r => r.json());
  return Promise.all([post(), post()]);
}"""
COOKOFF_PHASES = ("berry gathering", "placement", "sabotage", "moves", "dish removal", "final dish choice")


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    opened = browser.new_context(viewport={"width": 1280, "height": 900})
    opened.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    opened.on("weberror", lambda error: errors.append(str(error.error)))
    yield opened
    opened.close()
    assert not errors, f"the page raised: {errors}"


def cookoff_person(view: dict[str, Any], seat: str, rng: random.Random) -> str | None:
    """The judge bot's move for the person, who also takes a dish off every round they have one (the bot's
    last-round removal) so that the final dish choice comes to them."""
    if view["phase"] == "removal":
        view = {**view, "round": view["rounds"]}
    return get_bot("cookoff", "judge_bot")(view, seat, rng)


def play_out(
    client: MatchClient,
    match_id: str,
    page: Any,
    token: str,
    seat: str,
    bots: Bots,
    move: Any,
    rng: random.Random,
    stop_after: int = 0,
) -> int:
    """Bots and the person in turn until the match is over (or the person has sent `stop_after` commands);
    returns how many commands the person sent."""
    sent = 0
    for _ in range(400):
        state = client.state(match_id, token)
        if state.status.finished or (stop_after and sent == stop_after):
            return sent
        if bots.act():
            continue
        text = move(state.view, seat, rng)
        assert text, f"nobody can act at version {state.version}: {state.status}"
        wait_version(page, state.version)
        send(page, text)
        sent += 1
    raise AssertionError("the match did not end")


def test_a_person_plays_a_whole_cookoff_match_from_the_seat_page(context: Any, server: ServerThread) -> None:
    client = server.client()
    config = {"rounds": 2, "judge_reveal_after": [0, 1, 2]}
    created = client.create("cookoff", ["ann", "bot"], seed=11, config=config)
    match_id = created.match_id
    page = claim(context, join_urls(created)["ann"])
    token = cookie_token(context)
    bots = seat_bots(client, created, ["bot"])
    sent = play_out(client, match_id, page, token, "ann", bots, cookoff_person, random.Random(3))
    page.locator("#status", has_text="the match is over").wait_for()
    shown = " | ".join(seen_status(page))
    for phase in COOKOFF_PHASES:
        assert phase in shown, f"the page never showed {phase!r}: {shown}"
    assert sent >= 11
    assert page.locator("#status .results li", has_text="ann (you)").count() == 1
    shoot(page, "seat-cookoff-finished")
    assert page.evaluate("document.body.dataset.canAct") == "false"


def page_submissions(client: MatchClient, match_id: str, token: str) -> list[dict[str, Any]]:
    """The seat's own commands in the match's log."""
    records = [json.loads(event.json) for event in client.history(match_id, token)]
    return [r for r in records if r.get("kind") == "game" and (r.get("cause") or {}).get("actor") == "ann"]


def first_bot(game: str) -> Any:
    return get_bot(game, bot_names(game)[0])


def test_a_person_plays_a_whole_mining_match_from_the_seat_page_with_four_bots(
    context: Any, server: ServerThread
) -> None:
    client = server.client()
    seats = ["ann", "b1", "b2", "b3", "b4"]
    created = client.create("mining", seats, seed=5, config={"rounds": 3})
    page = claim(context, join_urls(created)["ann"])
    token = cookie_token(context)
    bots = seat_bots(client, created, seats[1:])
    sent = play_out(client, created.match_id, page, token, "ann", bots, first_bot("mining"), random.Random(4))
    page.locator("#status", has_text="the match is over").wait_for()
    assert sent == 1 + 3  # the set-up and each round's orders
    shown = " | ".join(seen_status(page))
    assert "round 3" in shown, shown
    assert page.locator("#submissions li").count() == sent


def test_a_last_gathering_seat_places_a_tile_from_the_page(context: Any, server: ServerThread) -> None:
    client = server.client()
    created = client.create("last-gathering", ["ann", "b1", "b2"], seed=5)
    match_id = created.match_id
    page = claim(context, join_urls(created)["ann"])
    token = cookie_token(context)
    bots, move, rng = seat_bots(client, created, ["b1", "b2"]), first_bot("last-gathering"), random.Random(2)
    for _ in range(100):  # the person first in each step, so the step waits for the bots after them
        state = client.state(match_id, token)
        text = move(state.view, "ann", rng)
        if not text:
            assert bots.act(), f"nobody can act at version {state.version}: {state.status}"
            continue
        wait_version(page, state.version)
        if "place " in text:
            break
        send(page, text)
    else:
        raise AssertionError("no placement came to the person")
    tiles = page.locator('#picture g.board[data-player="ann"] rect.tile')
    before = tiles.count()
    answer = send(page, text)
    receipt = answer.split("receipt: version ")[1].split(",")[0]
    placed = page.locator("#submissions li", has_text=f"receipt: version {receipt},")
    placed.wait_for()
    assert text in str(placed.text_content())
    page.locator('#picture g.board[data-player="ann"] g.pending').wait_for()  # sealed: shown to its seat only
    chain_head = answer.rsplit(", ", 1)[1].rstrip(")")
    assert chain_head in str(placed.text_content())  # the receipt the submit answered, whole
    while bots.act():  # the others end the step: the placement resolves and the board shows the tile
        pass
    wait_version(page, client.state(match_id, token).version)
    assert tiles.count() == before + 1


def test_the_seat_page_says_waiting_for_players_until_every_seat_is_filled(context: Any, server: ServerThread) -> None:
    client = server.client()
    created = client.create("cookoff", ["ann", "bot"], seed=11)
    page = claim(context, join_urls(created)["ann"])
    page.locator("#status", has_text="waiting for players").wait_for()
    page.locator("#status", has_text="still to join: bot").wait_for()
    assert page.locator("#countdown").count() == 0  # no clock runs yet
    assert page.locator("#send").is_disabled()
    page.fill("#text", "I will send no workers.")
    page.locator("#understood", has_text="not understood: the match has not started").wait_for()
    seat_bots(client, created, ["bot"])
    page.locator("#status", has_text="berry gathering").wait_for()  # live: the page was not reloaded
    assert "waiting for players" not in str(page.locator("#status").text_content())
    assert page.locator("#countdown").count() == 1
    page.wait_for_function("() => !document.getElementById('send').disabled")
    assert "waiting for players" in seen_status(page)[0]


def test_a_double_click_on_submit_acts_once(context: Any, server: ServerThread) -> None:
    client = server.client()
    created = client.create("cookoff", ["ann", "bot"], seed=11)
    match_id = created.match_id
    page = claim(context, join_urls(created)["ann"])
    seat_bots(client, created, ["bot"])
    before = client.state(match_id).version
    wait_version(page, before)
    type_command(page, "I will send no workers.")
    page.dblclick("#send")
    page.locator("#answer", has_text="accepted:").wait_for()
    wait_version(page, before + 1)
    assert client.state(match_id).version == before + 1
    assert len(page_submissions(client, match_id, cookie_token(context))) == 1
    assert page.locator("#submissions li").count() == 1


def test_the_same_request_id_posted_twice_at_once_acts_once(context: Any, server: ServerThread) -> None:
    """Past the button: two posts of one request id (a double click the page did not stop) act once."""
    client = server.client()
    created = client.create("cookoff", ["ann", "bot"], seed=11)
    match_id = created.match_id
    page = claim(context, join_urls(created)["ann"])
    seat_bots(client, created, ["bot"])
    before = client.state(match_id).version
    wait_version(page, before)
    answers = page.evaluate(TWICE, "I will send no workers.")
    assert [a["ok"] for a in answers] == [True, True], answers
    assert answers[0]["message"] == answers[1]["message"]  # the second is the first's answer, replayed
    assert client.state(match_id).version == before + 1
    assert len(page_submissions(client, match_id, cookie_token(context))) == 1


@pytest.mark.parametrize(
    ("game", "seats", "config", "moves"),
    [
        ("cookoff", ["ann", "bot"], {"rounds": 3, "judge_reveal_after": [0, 1, 2]}, 8),
        ("mining", ["ann", "b1", "b2", "b3", "b4"], {"rounds": 3}, 2),
        ("last-gathering", ["ann", "b1", "b2"], {}, 6),
    ],
)
def test_screenshots_of_the_invitation_and_seat_pages(
    context: Any, server: ServerThread, game: str, seats: list[str], config: dict[str, Any], moves: int
) -> None:
    client = server.client()
    created = client.create(game, seats, seed=5, config=config)
    invitation = context.new_page()
    invitation.goto(join_urls(created)["ann"])
    if game == "cookoff":
        shoot(invitation, "invitation")
    invitation.close()
    page = claim(context, join_urls(created)["ann"])
    bots = seat_bots(client, created, seats[1:])
    move = cookoff_person if game == "cookoff" else first_bot(game)
    token = cookie_token(context)
    sent = play_out(client, created.match_id, page, token, "ann", bots, move, random.Random(4), stop_after=moves)
    assert sent == moves
    page.set_viewport_size({"width": 1280, "height": 800})
    type_command(page, str(move(client.state(created.match_id, token).view, "ann", random.Random(4))))
    shoot(page, f"seat-{game}")


def test_a_deadline_that_passes_moves_the_seat_page_on_by_itself(context: Any, server: ServerThread) -> None:
    """Ann never submits: the match clock (a ManualClock) is moved past her base time and her reserve, the
    server's ticker applies the deadline (in Cookoff, running out of reserve loses) and the page follows
    without a reload, down to the result."""
    client = server.client()
    created = client.create("cookoff", ["ann", "bot"], seed=11)
    page = claim(context, join_urls(created)["ann"])
    assert seat_bots(client, created, ["bot"]).act()
    page.locator("#status", has_text="still awaited: ann").wait_for()
    left = float(str(page.locator("#countdown").get_attribute("data-seconds")))
    reserve = client.state(created.match_id, cookie_token(context)).view["players"]["ann"]["reserve"]
    assert isinstance(server.settings.clock, ManualClock)
    server.settings.clock.advance(left + reserve + 1)
    page.locator("#status", has_text="the match is over").wait_for()
    assert page.locator("#status .results li").all_text_contents() == ["1. bot, score 0", "2. ann (you), score 0"]
    assert page.locator("#submissions li").count() == 0
