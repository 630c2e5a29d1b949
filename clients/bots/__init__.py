"""Example bots, by game. A bot is `bot(view, player, rng) -> text | None`: it reads the player's view
(the JSON the server sends) and returns the text command to submit now, or None."""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any

Bot = Callable[[dict[str, Any], str, random.Random], str | None]

BOTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "last-gathering": ("clients.bots.last_gathering", ("random_bot", "greedy_bot")),
    "cookoff": ("clients.bots.cookoff", ("random_bot", "judge_bot")),
    "mining": ("clients.bots.mining", ("random_bot", "greedy_bot")),
}


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
