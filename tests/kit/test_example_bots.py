"""clients/examples/: each example bot plays every seat of a match on a real server to its end, and every
phase ends through a seat's own accepted submission (never a deadline or the host)."""

from __future__ import annotations

import ast

import pytest

from tests.kit.seats import EXAMPLES, PLAYERS, batches, play_with_example_bots
from tests.kit.views import schema_errors
from tests.support.server import ServerThread


def test_each_example_bot_imports_only_the_generated_stubs_and_the_standard_library() -> None:
    import sys

    # arena_bot.py is the arena's example: it plays with clients.bots through clients.botloop, by design.
    bots = sorted(bot for bot in EXAMPLES.glob("*_bot.py") if bot.name != "arena_bot.py")
    assert [b.name for b in bots] == ["cookoff_bot.py", "last_gathering_bot.py", "mining_bot.py"]
    for bot in bots:
        tree = ast.parse(bot.read_text())
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        others = {m for m in imported if m.split(".")[0] not in sys.stdlib_module_names | {"grpc"}}
        assert others <= {"matchserver.v1"}, f"{bot.name} imports {others}"
        assert len(bot.read_text().splitlines()) <= 80, f"{bot.name} is no longer a short example"


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_an_example_bot_plays_every_seat_to_the_end_and_each_phase_ends_by_a_submission(
    server: ServerThread, game: str
) -> None:
    """`server`'s clock (tests/conftest.py) never moves here: no deadline passes, so only submissions end phases."""
    played = play_with_example_bots(server, game, seed=21)
    client = server.client()
    seats = set(PLAYERS[game])
    final = client.state(played.match_id, played.host_token)
    assert final.status.finished and final.results["results"]
    for player, output in played.outputs.items():
        assert output.rstrip().endswith(f"{player}: the match is over"), output[-500:]
        assert "refused" not in output, f"{player}'s bot had a submission refused:\n{output}"

    phases_ended = 0
    submitters: set[str] = set()
    game_batches = batches(client, played.match_id, played.host_token)
    assert [cause.get("actor") == "server" for cause, _ in game_batches].count(True) == 1
    assert game_batches[0][0].get("actor") == "server"  # the game's opening records
    start = client.state(played.match_id, played.host_token, at=game_batches[0][1][-1])
    for cause, versions in game_batches[1:]:
        actor = cause.get("actor")
        assert actor in seats and cause.get("text") and not cause.get("timeout"), f"batch {versions}: {cause}"
        submitters.add(actor)
        before = client.state(played.match_id, played.host_token, at=versions[0] - 1)
        after = client.state(played.match_id, played.host_token, at=versions[-1])
        if after.status.phase == before.status.phase and not after.status.finished:
            continue
        # This batch, caused by `actor`'s accepted submission, ended the phase: everyone it awaited had
        # submitted during it (each bot's own submission is what let the phase end).
        phases_ended += 1
        awaited = set(start.status.awaiting)
        assert awaited and awaited <= submitters, f"{before.status.phase}: awaited {awaited}, submitted {submitters}"
        submitters, start = set(), after
    assert phases_ended >= {"last-gathering": 16, "cookoff": 75, "mining": 8}[game]

    for player, token in played.tokens.items():  # the views over the wire match the schemas too
        view = client.state(played.match_id, token).view
        assert not schema_errors(game, "player", view), player
    assert not schema_errors(game, "spectator", client.state(played.match_id, None).view)
