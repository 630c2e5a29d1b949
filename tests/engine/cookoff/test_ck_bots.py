"""The example bots play whole matches in process, every submission accepted."""

from __future__ import annotations

import random

import pytest
from ck_helpers import A, B

from clients.bots.cookoff import judge_bot, random_bot
from engine.contract import Viewer
from engine.cookoff import GAME
from engine.match import LocalMatch

SHORT = {"gathering": 2, "placement": 2, "sabotage": 2, "moves": 2, "removal": 2, "final_choice": 2}


def play(seed: int, bots: dict[str, object], short: bool = False) -> LocalMatch:
    cfg = GAME.default_config([A, B])
    if short:
        cfg["times"], cfg["reserve"] = SHORT, 5
    m = LocalMatch(GAME, cfg, seed)
    rng = random.Random(seed)
    while not m.finished:
        awaiting = sorted(GAME.status(m.state).awaiting)
        assert awaiting
        for player in awaiting:
            text = bots[player](GAME.view(m.state, Viewer.of(player)), player, rng)  # type: ignore[operator]
            assert text is not None
            m.submit_text(player, text)  # raises if a bot's command is refused
        if short:
            m.advance(1)
    return m


@pytest.mark.parametrize("seed", range(6))
def test_bots_play_whole_matches_with_every_submission_accepted(seed: int) -> None:
    for bots in ({A: random_bot, B: random_bot}, {A: judge_bot, B: random_bot}, {A: judge_bot, B: judge_bot}):
        m = play(seed, bots)
        result = GAME.results(m.state)
        assert result["winner"] in (A, B) and len(result["judges"]) == 3


def test_bots_play_on_short_clocks() -> None:
    m = play(11, {A: judge_bot, B: random_bot}, short=True)
    assert m.finished and GAME.results(m.state)["decision"] != "time"


def test_bots_return_nothing_once_they_have_submitted() -> None:
    m = LocalMatch(GAME, GAME.default_config([A, B]), 1)
    rng = random.Random(1)
    m.submit_text(A, random_bot(GAME.view(m.state, Viewer.of(A)), A, rng) or "")
    assert random_bot(GAME.view(m.state, Viewer.of(A)), A, rng) is None
    assert judge_bot(GAME.view(m.state, Viewer.of(A)), A, rng) is None


def test_the_judge_bot_beats_the_random_bot_in_most_matches() -> None:
    wins = sum(GAME.results(play(seed, {A: judge_bot, B: random_bot}).state)["winner"] == A for seed in range(10))
    assert wins >= 6
