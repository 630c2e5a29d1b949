"""Every view of a whole bot match, played in process (engine.match.LocalMatch) by the example bots of
clients/bots/, and the view schemas of docs/schemas/ that each must satisfy."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from clients.bots import bot_names, get_bot
from engine import registry
from engine.contract import Viewer
from engine.errors import GameError
from engine.match import LocalMatch

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"
GAMES = {name: registry.get_game(name).default_seats for name in registry.shipped()}
NAMES = ("ann", "bob", "cat", "dan", "eve")


@dataclass(frozen=True)
class SeenView:
    version: int  # events in force when it was seen
    viewer: Viewer
    view: dict[str, Any]


@cache
def validator(game: str, viewer_kind: str) -> jsonschema.protocols.Validator:
    schema = json.loads((SCHEMAS / f"{game}.{viewer_kind}.json").read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def schema_errors(game: str, viewer_kind: str, view: dict[str, Any]) -> list[str]:
    found = validator(game, viewer_kind).iter_errors(view)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:200]}" for e in found]


def bot_match_views(game_name: str, seed: int) -> Iterator[SeenView]:
    """Each player's and the spectator's view after every batch of a whole match of the example bots.
    A phase in which no bot submits anything more ends at its deadline (LocalMatch.expire)."""
    game = registry.get_game(game_name)
    players = list(NAMES[: GAMES[game_name]])
    match = LocalMatch(game, game.default_config(players), seed)
    rng = random.Random(seed)
    names = bot_names(game_name)
    bots = {p: get_bot(game_name, names[i % len(names)]) for i, p in enumerate(players)}
    viewers = [Viewer.of(p) for p in players] + [Viewer.spectator()]

    def seen() -> Iterator[SeenView]:
        for viewer in viewers:
            yield SeenView(len(match.events), viewer, game.view(match.state, viewer))

    yield from seen()
    for _ in range(10_000):
        if match.finished:
            return
        moved = False
        for player in players:
            status = game.status(match.state)
            if status.finished or player not in status.awaiting or (status.binding and player in status.submitted):
                continue
            text = bots[player](game.view(match.state, Viewer.of(player)), player, rng)
            if text is None:
                continue
            try:
                match.submit_text(player, text)
            except GameError:
                continue  # a refused submission writes nothing: no new view
            moved = True
            yield from seen()
        if not moved:
            match.expire()
            yield from seen()
    raise AssertionError(f"the {game_name} bot match did not finish")
