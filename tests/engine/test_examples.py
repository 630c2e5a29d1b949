"""Issue 27's shell-script bot: a seat that sends `example` every turn, and nothing else, plays every game
to its end. Every rules version a stored match may still play on under is played by the default table on
several seeds, with the seats' examples alone (no deadline passes), and while the phase stays open no
seat's `forms` or `example` depends on another seat's sealed submission. tests/engine/test_conformance.py
checks the examples at every decision point of bot-played matches."""

from __future__ import annotations

import importlib
import random
from itertools import pairwise
from typing import Any

import pytest

from clients.bots import BOTS, get_bot
from engine.contract import Game, Viewer
from engine.match import LocalMatch, fold, submit
from engine.match import context as ctx_for
from engine.registry import available, get_game, package_of, shipped

MAX_STEPS = 2000  # submissions; the longest game (cookoff, 15 rounds of 5 phases, 2 seats) takes 150
SEEDS = (1, 2, 3)
OTHER_TEXTS = {"duel": ("pick 2", "pick 3")}  # a game without bots: other legal texts to seal


def _versions() -> list[tuple[str, str]]:
    """(game, rules version) for every game this process hosts and every rules version it keeps."""
    out = []
    for name in available():
        versions = {get_game(name).rules_version}
        if name in shipped():
            versions |= set(importlib.import_module(f"engine.{package_of(name)}").RULES_VERSIONS)
        out += [(name, version) for version in sorted(versions)]
    return out


def _match(name: str, version: str, seed: int) -> LocalMatch:
    game = get_game(name, version)
    players = [f"p{n}" for n in range(game.default_seats)]
    return LocalMatch(game, game.default_config(players), seed=seed, now=1_000_000.0)


def _play_one_example(match: LocalMatch) -> bool:
    """The first awaited seat without a submission sends its example; False when no seat has one."""
    game = match.game
    status = game.status(match.state)
    for player in sorted(status.awaiting - status.submitted) or sorted(status.awaiting):
        text = game.example(match.state, player)
        if text is not None:
            match.submit_text(player, text)
            return True
    return False


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("name", "version"), _versions())
def test_a_match_played_only_by_the_examples_ends_with_no_deadline_passing(name: str, version: str, seed: int) -> None:
    match = _match(name, version, seed)
    for _ in range(MAX_STEPS):
        if match.finished:
            break
        phase = match.game.status(match.state).phase
        assert _play_one_example(match), f"{name} v{version}: nobody has an example in {phase}"
    assert match.finished, f"{name} v{version} (seed {seed}) did not end in {MAX_STEPS} submissions of examples"
    assert all(match.game.example(match.state, p) is None for p in match.game.players(match.state))
    assert all(match.game.forms(match.state, p) == () for p in match.game.players(match.state))


def _sealed(match: LocalMatch, player: str, rng: random.Random) -> list[Any]:
    """Commands `player` could seal now: its example, its bots' choices, the game's other texts."""
    game, state = match.game, match.state
    texts = [game.example(state, player), *OTHER_TEXTS.get(game.name, ())]
    if game.name in BOTS:
        view = game.view(state, Viewer.of(player))
        texts += [get_bot(game.name, bot)(view, player, rng) for bot in BOTS[game.name][1]]
    commands = []
    for text in texts:
        try:
            command = game.parse(state, player, text) if text is not None else None
        except Exception:
            continue  # a bot's slip
        if command is not None and command not in commands:
            commands.append(command)
    return commands


def _told(game: Game[Any, Any], state: Any, players: tuple[str, ...], but: str) -> dict[str, Any]:
    return {p: (game.forms(state, p), game.example(state, p)) for p in players if p != but}


def _check_sealed_submissions_stay_unseen(match: LocalMatch, rng: random.Random) -> int:
    """Every two different submissions a seat could seal now leave every other seat's forms and example the
    same while the phase stays open; returns how many pairs were compared."""
    game, state = match.game, match.state
    status, players = game.status(state), game.players(state)
    ctx = ctx_for(match.seed, len(match.events), match.now)
    compared = 0
    for player in sorted(status.awaiting - status.submitted):
        after = []
        for command in _sealed(match, player, rng):
            try:
                folded = fold(game, state, submit(game, state, player, command, ctx))
            except Exception:
                continue  # illegal here
            if game.status(folded).phase == status.phase:
                after.append(folded)
        for first, second in pairwise(after):
            assert _told(game, first, players, player) == _told(game, second, players, player), (
                f"{game.name}: another seat's forms or example depend on {player}'s sealed submission in {status.phase}"
            )
            compared += 1
    return compared


@pytest.mark.parametrize("name", available())
def test_no_seat_is_told_another_seats_sealed_submission(name: str) -> None:
    match = _match(name, get_game(name).rules_version, 7)
    rng = random.Random(3)
    compared = 0
    for _ in range(MAX_STEPS):
        if match.finished:
            break
        compared += _check_sealed_submissions_stay_unseen(match, rng)
        assert _play_one_example(match)
    assert match.finished
    assert compared > 0, f"{name}: no two sealed submissions were ever compared"
