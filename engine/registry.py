"""The games this server hosts, by the name used in the API and the CLI, and by rules version.

A game module exposes GAME (its current rules) and may expose RULES_VERSIONS, {rules_version: Game}, with
the rules earlier matches were played under: a stored match is replayed, verified and played on under
the rules version it recorded (a rules fix bumps `rules_version` and keeps the old rules selectable).
"""

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


def get_game(name: str, rules_version: str | None = None) -> Game:
    """The game's current rules, or the rules of `rules_version` (as a stored match recorded them)."""
    if name in _EXTRA:
        return _EXTRA[name]
    if name not in _MODULES or name not in available():
        raise InvalidConfig(f"unknown game {name!r}; this server hosts: {', '.join(available())}")
    module = importlib.import_module(_MODULES[name])
    game: Game = module.GAME
    if rules_version is None or rules_version == game.rules_version:
        return game
    versions: dict[str, Game] = getattr(module, "RULES_VERSIONS", {})
    if rules_version not in versions:
        known = ", ".join(sorted({*versions, game.rules_version}))
        raise InvalidConfig(f"{name} has no rules version {rules_version!r}; this server has {known}")
    return versions[rules_version]
