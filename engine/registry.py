"""The games this server hosts, by the name used in the API and the CLI, and by rules version: the one
list of games (engine/README.md, "Adding a game").

A game's package `engine/<package>/` exposes GAME (its current rules) and RULES_VERSIONS,
{rules_version: Game}, with the rules earlier matches were played under: a stored match is replayed,
verified and played on under the rules version it recorded (a rules fix bumps `rules_version` and keeps
the old rules selectable). Everything else about a game is a fact on its Game (`default_seats`,
`wire_field`, `arena_formats`, ...), or is found by its package's name: `pictures/<package>.py`,
`clients/bots/<package>.py`.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from engine.contract import Game
from engine.errors import InvalidConfig

# One line per game: its name in the API -> its package (the leaf names pictures/ and clients/bots/ too).
_PACKAGES = {
    "last-gathering": "last_gathering",
    "cookoff": "cookoff",
    "mining": "mining",
}
_EXTRA: dict[str, Game[Any, Any]] = {}


def register(game: Game[Any, Any]) -> None:
    """Add a game that does not ship with the engine (tests register small fixture games)."""
    _EXTRA[game.name] = game


def unregister(name: str) -> None:
    """Forget a game `register` added (a test's fixture game, once its test is over)."""
    _EXTRA.pop(name, None)


def shipped() -> list[str]:
    """The games that ship with the engine, in the registry's order (not the ones `register` added)."""
    return [name for name, package in _PACKAGES.items() if importlib.util.find_spec(f"engine.{package}") is not None]


def available() -> list[str]:
    """Every game this process hosts: the shipped ones, then the registered ones by name."""
    return shipped() + sorted(_EXTRA)


def package_of(name: str) -> str:
    """The module leaf name of a game: engine/<it>/, pictures/<it>.py, clients/bots/<it>.py. A registered
    game's is its name with '_' for '-' (it has no such modules unless it brings them)."""
    return _PACKAGES.get(name, name.replace("-", "_"))


def seats(name: str, count: int | None = None, prefix: str = "p") -> list[str]:
    """Player names for a table of `name`: `count` players (default: the game's `default_seats`)."""
    return [f"{prefix}{i}" for i in range(get_game(name).default_seats if count is None else count)]


def get_game(name: str, rules_version: str | None = None) -> Game[Any, Any]:
    """The game's current rules, or the rules of `rules_version` (as a stored match recorded them)."""
    if name in _EXTRA:
        return _EXTRA[name]
    if name not in shipped():
        raise InvalidConfig(f"unknown game {name!r}; this server hosts: {', '.join(available())}")
    module = importlib.import_module(f"engine.{_PACKAGES[name]}")
    game: Game[Any, Any] = module.GAME
    if rules_version is None or rules_version == game.rules_version:
        return game
    versions: dict[str, Game[Any, Any]] = getattr(module, "RULES_VERSIONS", {})
    if rules_version not in versions:
        known = ", ".join(sorted({*versions, game.rules_version}))
        raise InvalidConfig(f"{name} has no rules version {rules_version!r}; this server has {known}")
    return versions[rules_version]
