"""The seat page in Debian's chromium: a person opens their invitation link, claims the seat and plays a
whole match from the page (typing what the game's example bot would send on their own view) while example
bots play the other seats over gRPC. A real server on loopback with a ManualClock: no deadline passes by
itself, so every phase is passed by the players' own submissions."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clients.bots import get_bot
from clients.client import MatchClient
from tests.browser.conftest import WAIT_MS
from tests.support.live_http import start
from tests.support.seat_pages import (
    Bots,
    claim,
    cookie_token,
    join_urls,
    seat_bots,
    seen_status,
    send,
    wait_version,
)
from tests.support.server import ServerThread

COOKOFF_PHASES = ("berry gathering", "placement", "sabotage", "moves", "dish removal", "final dish choice")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerThread]:
    running = start(tmp_path)
    yield running
    running.stop()


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
    client: MatchClient, match_id: str, page: Any, token: str, seat: str, bots: Bots, move: Any, rng: random.Random
) -> int:
    """Bots and the person in turn until the match is over; returns how many commands the person sent."""
    sent = 0
    for _ in range(400):
        state = client.state(match_id, token)
        if state.status.finished:
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
    assert page.evaluate("document.body.dataset.canAct") == "false"
