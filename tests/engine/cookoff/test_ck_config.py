"""Match configuration: defaults, host overrides, validation."""

from __future__ import annotations

import json

import pytest
from ck_helpers import A, B, config

from engine.cookoff import GAME
from engine.errors import InvalidConfig
from engine.registry import get_game


def test_the_registry_serves_the_cookoff_game() -> None:
    assert get_game("cookoff") is GAME and GAME.name == "cookoff"


def test_default_config_is_json_plain_and_carries_every_table_and_time() -> None:
    cfg = GAME.default_config([A, B])
    assert json.loads(json.dumps(cfg)) == cfg
    assert {"players", "dmo", "berries", "flame", "judges", "times", "reserve", "schedule"} <= set(cfg)
    assert len(cfg["berries"]) == 30 and cfg["flame"][2][2] == 3
    GAME.initial_state(cfg, 1)


def test_ckp1_the_dmo_defaults_to_the_second_player_and_the_host_may_name_either() -> None:
    """CK-P1: the DMO (last tiebreak) defaults to the second player named."""
    assert GAME.default_config([A, B])["dmo"] == B
    assert GAME.initial_state(config(dmo=A), 1).config.dmo == A
    with pytest.raises(InvalidConfig, match="dmo"):
        GAME.initial_state(config(dmo="carol"), 1)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("players", ["a", "b", "c"], "duel"),
        ("players", ["a", "a"], "distinct"),
        ("flame", [[1, 2, 3]], "5x5"),
        ("judges", [{"family": "taste", "want": "sweet"}] * 3, "bad judge"),
        ("judges", [{"family": "size", "want": "huge"}] * 3, "bad judge"),
        ("reserve", -1, "reserve"),
        ("times", {"gathering": 60}, "times.placement"),
        ("schedule", [[{"berry": "Oran", "quantity": 3}] * 6] * 15, "distinct"),
        ("judge_reveal_after", [0, 10, 5], "non-decreasing"),
    ],
)
def test_invalid_configurations_are_refused_with_a_clear_message(key: str, value: object, message: str) -> None:
    cfg = config()
    cfg[key] = value
    if key == "players":
        cfg["dmo"] = value[0]  # type: ignore[index]
    with pytest.raises(InvalidConfig, match=message):
        GAME.initial_state(cfg, 1)


def test_a_host_may_load_another_flame_map_and_berry_table() -> None:
    """CK-2 / CK-1 as configuration: the host's values are used."""
    cfg = config()
    cfg["flame"] = [[5] * 5 for _ in range(5)]
    state = GAME.initial_state(cfg, 1)
    assert set(state.config.flame) == {5}
