"""A stored match is replayed under the rules version it recorded (engine/registry.py)."""

from __future__ import annotations

import pytest

from engine.errors import InvalidConfig
from engine.registry import available, get_game


def test_each_game_gives_its_current_rules_for_its_own_version_or_none() -> None:
    for name in available():
        game = get_game(name)
        assert get_game(name, None) is game and get_game(name, game.rules_version) is game


def test_an_unknown_rules_version_is_refused_naming_the_ones_this_server_has() -> None:
    game = get_game("mining")
    with pytest.raises(InvalidConfig, match=f"has no rules version '0'; this server has .*{game.rules_version}"):
        get_game("mining", "0")
