"""The example bots play whole matches in process; every submission is accepted."""

from __future__ import annotations

import random

import pytest
from mn_helpers import new_match

from clients.bots.mining import greedy_bot, random_bot
from engine.contract import Viewer
from engine.mining import GAME

PLAYERS = ("A", "B", "C", "D", "E")


def _play(bots: dict[str, object], seed: int, players: tuple[str, ...] = PLAYERS):
    match = new_match(players, seed=seed)
    rng = random.Random(seed)
    while not match.finished:
        submitted = False
        for player in sorted(GAME.status(match.state).awaiting):
            text = bots[player](GAME.view(match.state, Viewer.of(player)), player, rng)  # type: ignore[operator]
            if text is not None:
                match.submit_text(player, text)  # raises if refused
                submitted = True
                if match.finished:
                    break
        if not submitted and not match.finished:
            match.expire()
    return match


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_and_greedy_bots_play_whole_matches_with_every_submission_accepted(seed):
    bots = {p: (random_bot if i % 2 else greedy_bot) for i, p in enumerate(PLAYERS)}
    match = _play(bots, seed)
    assert GAME.results(match.state)["results"][0]["rank"] == 1
    assert not any(e["type"] == "round_resolved" and e["defaulted"] for e in match.events)


@pytest.mark.parametrize("count", [2, 8])
def test_bots_play_with_two_and_eight_players(count):
    players = tuple(f"P{i}" for i in range(count))
    match = _play({p: greedy_bot if i % 2 else random_bot for i, p in enumerate(players)}, 9, players)
    assert match.finished


def test_bots_submit_nothing_once_their_submission_is_in():
    match = new_match(("A", "B"))
    rng = random.Random(1)
    match.submit_text("A", random_bot(GAME.view(match.state, Viewer.of("A")), "A", rng) or "")
    assert random_bot(GAME.view(match.state, Viewer.of("A")), "A", rng) is None
    assert greedy_bot(GAME.view(match.state, Viewer.of("A")), "A", rng) is None


def test_greedy_bot_differs_from_random_bot():
    greedy = _play(dict.fromkeys(PLAYERS, greedy_bot), 5)
    rand = _play(dict.fromkeys(PLAYERS, random_bot), 5)
    assert GAME.results(greedy.state) != GAME.results(rand.state)
    orders = [e for e in greedy.events if e["type"] == "orders_submitted"]
    assert any(e["upgrades"] for e in orders)
