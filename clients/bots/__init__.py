"""Example bots, by game. A bot is `bot(view, player, rng) -> text | None`: it reads the player's view
(the JSON the server sends) and returns the text command to submit now, or None.

A game's bots are `clients/bots/<package>.py` (engine.registry.package_of), which names them in `NAMES`.
"""

from __future__ import annotations

import importlib
import importlib.util
import random
from collections.abc import Callable
from typing import Any

from engine import registry

Bot = Callable[[dict[str, Any], str, random.Random], str | None]


def _bots() -> dict[str, tuple[str, tuple[str, ...]]]:
    """{game: (module, bot names)} for every shipped game that has a bots module."""
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    for name in registry.shipped():
        module = f"clients.bots.{registry.package_of(name)}"
        if importlib.util.find_spec(module) is not None:
            names: tuple[str, ...] = importlib.import_module(module).NAMES
            found[name] = (module, names)
    return found


BOTS = _bots()


def bot_names(game: str) -> tuple[str, ...]:
    if game not in BOTS:
        raise KeyError(f"no bots for {game!r}; bots exist for: {', '.join(BOTS)}")
    return BOTS[game][1]


def get_bot(game: str, name: str) -> Bot:
    module_name, names = BOTS[game]
    if name not in names:
        raise KeyError(f"no bot {name!r} for {game}; choose from {', '.join(names)}")
    bot: Bot = getattr(importlib.import_module(module_name), name)
    return bot
