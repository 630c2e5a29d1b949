"""The games this server hosts, by the name used in the API and the CLI."""

from __future__ import annotations

import importlib
import importlib.util

from engine.contract import Game
from engine.errors import InvalidConfig

_MODULES = {
    "last-gathering": "engine.last_gathering",
    "cookoff": "engine.cookoff",
    "mining": "engine.mining",
}
_EXTRA: dict[str, Game] = {}


def register(game: Game) -> None:
    """Add a game that does not ship with the engine (tests register small fixture games)."""
    _EXTRA[game.name] = game


def available() -> list[str]:
    names = [name for name, module in _MODULES.items() if importlib.util.find_spec(module) is not None]
    return names + sorted(_EXTRA)


def get_game(name: str) -> Game:
    if name in _EXTRA:
        return _EXTRA[name]
    if name not in _MODULES or name not in available():
        raise InvalidConfig(f"unknown game {name!r}; this server hosts: {', '.join(available())}")
    game: Game = importlib.import_module(_MODULES[name]).GAME
    return game
