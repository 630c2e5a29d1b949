"""One conformance test over every registered game (OpenSpiel's habit; issue 25, item 5): a new game
passes it or says why not. Bots (or, for a game without bots, the game's own defaults at each deadline)
play each game from `initial_state` to its end, and at every step:
- every event is plain JSON (it round-trips, as the store keeps it);
- every viewer's view is plain JSON, and no viewer's view depends on another seat's pending submission
  (two different submissions leave every other viewer's view the same while the phase stays open);
- the canonical text of each command parses back to the same command, and formats back to itself;
- every awaited seat that has not submitted is shown `forms` (templates) and an `example` text that is
  canonical, parses and is accepted through `engine.match.submit`; a seat not awaited is shown neither,
  and no seat's forms or example depend on another seat's pending submission;
and `evolve` refuses an event it does not know. tests/engine/test_examples.py plays whole matches by
the examples alone."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from clients.bots import BOTS, get_bot
from engine.contract import Game, Viewer
from engine.match import LocalMatch, fold, submit
from engine.match import context as ctx_for
from engine.registry import available, get_game

MAX_STEPS = 3000  # a game that has not ended by then is reported, not waited on


def _players(game: Game[Any, Any]) -> list[str]:
    return [f"p{n}" for n in range(game.default_seats)]


def _plain(value: Any) -> bool:
    return json.loads(json.dumps(value)) == value


def _command_of(match: LocalMatch, player: str, rng: random.Random) -> Any | None:
    """The bot's command for `player` now (parsed from its text), or None."""
    name = match.game.name
    if name not in BOTS:
        return None
    bot = get_bot(name, BOTS[name][1][0])
    text = bot(match.game.view(match.state, Viewer.of(player)), player, rng)
    if text is None:
        return None
    try:
        return match.game.parse(match.state, player, text)
    except Exception:
        return None  # a bot's slip is not the game's failure: the deadline's default plays instead


def _views(game: Game[Any, Any], state: Any, players: list[str], but: str) -> dict[str, Any]:
    viewers = [Viewer.of(p) for p in players if p != but] + [Viewer.spectator()]
    return {f"{v.kind}:{v.player}": game.view(state, v) for v in viewers}


def _texts(game: Game[Any, Any], state: Any, players: list[str], but: str) -> dict[str, Any]:
    """What every other seat is told it may send: its forms and its example."""
    return {p: (game.forms(state, p), game.example(state, p)) for p in players if p != but}


def check_forms_and_examples(match: LocalMatch, players: list[str]) -> int:
    """Issue 27's turn for every seat now; returns how many examples were submitted (on a copy) and accepted."""
    game, state = match.game, match.state
    status = game.status(state)
    ctx = ctx_for(match.seed, len(match.events), match.now)
    checked = 0
    for player in [*players, "nobody"]:
        forms, text = game.forms(state, player), game.example(state, player)
        if player not in status.awaiting:
            assert forms == () and text is None, f"{game.name}: {player} is not awaited in {status.phase}"
            continue
        assert isinstance(forms, tuple) and forms and all(isinstance(f, str) and f for f in forms), forms
        if player in status.submitted:
            continue
        assert text is not None, f"{game.name}: no example for {player} in {status.phase}"
        command = game.parse(state, player, text)
        assert game.format(command) == text, f"{game.name}: {text!r} is not canonical"
        assert submit(game, state, player, command, ctx), f"{game.name}: {text!r} made no event"
        checked += 1
    return checked


def _check_no_peeking(match: LocalMatch, players: list[str], player: str, command: Any, other: Any) -> None:
    """Two different submissions by `player`: while the phase stays open, nobody else can tell them apart."""
    game, state = match.game, match.state
    ctx = ctx_for(match.seed, len(match.events), match.now)
    try:
        first = fold(game, state, submit(game, state, player, command, ctx))
        second = fold(game, state, submit(game, state, player, other, ctx))
    except Exception:
        return  # one of them is illegal here: nothing to compare
    phase = game.status(state).phase
    if game.status(first).phase != phase or game.status(second).phase != phase:
        return  # the submission closed the phase: what it revealed is the rules' to reveal
    assert _views(game, first, players, player) == _views(game, second, players, player), (
        f"{game.name}: another viewer's view depends on {player}'s pending submission in {phase}"
    )
    assert _texts(game, first, players, player) == _texts(game, second, players, player), (
        f"{game.name}: another seat's forms or example depend on {player}'s pending submission in {phase}"
    )


@pytest.mark.parametrize("name", available())
def test_every_registered_game_plays_to_its_end_in_plain_json_with_no_viewer_peeking(name: str) -> None:
    game = get_game(name)
    players = _players(game)
    match = LocalMatch(game, game.default_config(players), seed=11, now=1_000_000.0)
    rng = random.Random(5)
    examples = 0
    for _ in range(MAX_STEPS):
        examples += check_forms_and_examples(match, players)
        if match.finished:
            break
        status = game.status(match.state)
        acted = False
        for player in sorted(status.awaiting):
            if acted:
                examples += check_forms_and_examples(match, players)  # between two seats' submissions too
            command = _command_of(match, player, rng)
            if command is None:
                continue
            text = game.format(command)
            assert game.parse(match.state, player, text) == command, text
            assert game.format(game.parse(match.state, player, text)) == text  # format(parse(text)) round-trips
            other = _command_of(match, player, random.Random(rng.random()))
            if other is not None and other != command:
                _check_no_peeking(match, players, player, command, other)
            try:
                match.submit(player, command)
                acted = True
            except Exception:
                continue
            if game.status(match.state).phase != status.phase:
                break  # the phase moved on: ask again who is awaited
        if not acted:
            assert match.expire() or match.finished, f"{name}: stuck in {status.phase} with nothing due"
        for player in players:
            assert _plain(game.view(match.state, Viewer.of(player)))
        assert _plain(game.view(match.state, Viewer.spectator()))
    assert match.finished, f"{name} did not end in {MAX_STEPS} steps"
    assert examples > 0
    assert all(_plain(event) for event in match.events)
    assert _plain(game.results(match.state))


@pytest.mark.parametrize("name", available())
def test_evolve_refuses_an_event_it_does_not_know(name: str) -> None:
    game = get_game(name)
    state = game.initial_state(game.default_config(_players(game)), 3)
    with pytest.raises(Exception):  # noqa: B017, PT011 - each game names its own error; any refusal will do
        game.evolve(state, {"type": "no_such_event_in_any_game"})
