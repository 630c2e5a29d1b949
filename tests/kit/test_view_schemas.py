"""docs/schemas/: every view of a whole bot match of each game, for each player and the spectator,
validates against its schema; the schemas are strict enough to catch a view they do not describe."""

from __future__ import annotations

import copy

import pytest

from engine import registry
from engine.contract import Viewer
from engine.match import LocalMatch
from tests.kit.views import GAMES, NAMES, bot_match_views, schema_errors


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_view_of_a_bot_match_matches_its_schema(game: str) -> None:
    checked = {"player": 0, "spectator": 0}
    last: dict[str, object] = {}
    for seen in bot_match_views(game, seed=11):
        errors = schema_errors(game, seen.viewer.kind, seen.view)
        assert not errors, f"{game}, {seen.viewer} at {seen.version} events: {errors[:5]}"
        checked[seen.viewer.kind] += 1
        last = seen.view
    players = GAMES[game]
    assert checked["spectator"] > 20 and checked["player"] == players * checked["spectator"]
    finished = {"last-gathering": "results", "mining": "final", "cookoff": "result"}[game]
    assert last.get(finished), "the last view is of the finished match, with its results"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_schemas_refuse_what_a_player_or_spectator_must_not_see(game: str) -> None:
    """A host's view carries every sealed submission (and Cookoff's tree schedule): neither schema takes
    it, so a leak of hidden information into a player's or the spectator's view fails the schema test."""
    registry_game = registry.get_game(game)
    players = list(NAMES[: GAMES[game]])
    match = LocalMatch(registry_game, registry_game.default_config(players), 3)
    host_view = registry_game.view(match.state, Viewer.host())
    assert schema_errors(game, "spectator", host_view)
    player_view = registry_game.view(match.state, Viewer.of(players[0]))
    leaked = copy.deepcopy(player_view)
    leaked.update({k: v for k, v in host_view.items() if k not in player_view})
    assert leaked != player_view and schema_errors(game, "player", leaked)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_view_of_the_wrong_kind_fails_the_schema(game: str) -> None:
    """The player and spectator schemas tell the two apart (`you` is set only for a player)."""
    for seen in bot_match_views(game, seed=5):
        other = "spectator" if seen.viewer.kind == "player" else "player"
        assert schema_errors(game, other, seen.view), f"{seen.viewer}'s view passed the {other} schema"
        if seen.version > 0:
            return


def test_a_cookoff_player_sees_only_their_own_sealed_submission_schema() -> None:
    """What a schema cannot say (whose `pending` may be set) is checked on every view of the match."""
    own = 0
    for seen in bot_match_views("cookoff", seed=11):
        for name, seat in seen.view["players"].items():
            if seat["pending"] is not None:
                assert seen.viewer.is_player(name), f"{seen.viewer} sees {name}'s sealed submission"
                own += 1
    assert own > 0, "players saw their own sealed submissions"
