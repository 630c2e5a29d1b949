"""A match recorded by the server, written out with `matchctl transcript`, replays in process with
`matchctl simulate` to the same results: missed phases, random defaults and clock gaps included."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from clients import cli
from clients.bots import Bot, bot_names, get_bot
from clients.play import BotSeat, play
from engine.registry import get_game, seats, shipped
from engine.transcript import script_header, simulate
from server.clock import ManualClock
from tests.support.duel import seat_duel
from tests.support.server import ServerThread

SEATS = {game: seats(game) for game in shipped()}


def slow_and_forgetful(bot: Bot, clock: ManualClock, rng: random.Random, forgets: bool) -> Bot:
    """A bot that takes 7 s to think and, when `forgets`, misses some phases whole (defaults apply)."""
    decided: dict[tuple[Any, ...], bool] = {}

    def wrapped(view: dict[str, Any], player: str, bot_rng: random.Random) -> str | None:
        clock.advance(7)
        phase = (view.get("phase"), view.get("round"), view.get("step"), view.get("frame_round"))
        if forgets and decided.setdefault(phase, rng.random() < 0.15):
            return None
        return bot(view, player, bot_rng)

    return wrapped


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(SEATS))
def test_a_server_match_written_as_a_transcript_replays_to_the_same_results(
    game: str, server: ServerThread, clock: ManualClock, capsys: pytest.CaptureFixture[str]
) -> None:
    client = server.client()
    created = client.create(game, SEATS[game], seed=12)
    rng = random.Random(4)
    names = bot_names(game)
    seats = {
        player: BotSeat(
            player,
            client.join(created.match_id, player),
            slow_and_forgetful(get_bot(game, names[i % 2]), clock, rng, forgets=game != "cookoff"),
            random.Random(i),
        )
        for i, player in enumerate(SEATS[game])
    }
    final = play(client, created.match_id, created.host_token, seats)
    assert final.status.finished
    cli.Credentials().set_host(server.address, created.match_id, created.host_token)
    assert cli.main(["--server", server.address, "transcript", created.match_id]) == 0
    lines = capsys.readouterr().out.splitlines()
    if game != "cookoff":
        assert "---" in lines  # the forgotten phases were ended, and their defaults drawn
    assert any(line.startswith("@ +") for line in lines)
    seed, players = script_header(lines)
    replayed = simulate(get_game(game), players, seed, lines)
    assert replayed["finished"] is True
    assert json.loads(json.dumps(replayed["results"])) == final.results["results"]


def test_a_transcript_replays_a_plain_rollback_but_refuses_a_match_reopened_with_a_new_seed(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    client = server.client()
    match_id, host, ann, _bob = seat_duel(client, seed=8)
    joined = client.state(match_id, host).version
    client.submit(match_id, ann, text="pick 3")
    client.rollback(match_id, host, joined, "ann mistyped")  # the same seed goes on: a transcript replays it
    client.host_action(match_id, host, "resume", "go on")
    client.submit(match_id, ann, text="pick 1")
    while not client.state(match_id, host).status.finished:  # bob's picks, and then both, are seeded defaults
        client.force_phase_end(match_id, host, "nobody else is here")
    argv = ["--server", server.address, "transcript", match_id, f"--token={host}"]
    assert cli.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    seed, players = script_header(lines)
    replayed = simulate(get_game("duel"), players, seed, lines)
    assert replayed["finished"] is True
    assert json.loads(json.dumps(replayed["results"])) == client.state(match_id, host).results["results"]

    reopened = client.rollback(match_id, host, joined, "replay it", reopen=True).version
    for token in (host, ann):
        with pytest.raises(SystemExit) as refused:
            cli.main(["--server", server.address, "transcript", match_id, f"--token={token}"])
        said = str(refused.value.code)
        assert f"reopened with a new seed at version {reopened}" in said and "cannot replay" in said
        assert capsys.readouterr().out == ""  # no transcript that would replay to another match


def test_a_transcript_of_a_fork_is_refused_naming_its_origin(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=8)
    client.submit(match_id, ann, text="pick 3")
    at = client.submit(match_id, bob, text="pick 1").version
    fork = client.fork(match_id, host, at, "what if")
    client.submit(fork.match_id, client.join(fork.match_id, "ann"), text="pick 1")
    with pytest.raises(SystemExit) as refused:  # it would replay round 2's pick as round 1's
        cli.main(["--server", server.address, "transcript", fork.match_id, f"--token={fork.host_token}"])
    assert f"fork of {match_id} at version {at}" in str(refused.value.code)
    assert capsys.readouterr().out == ""
    assert (
        cli.main(["--server", server.address, "transcript", match_id, f"--token={host}"]) == 0
    )  # the origin's is fine
    assert capsys.readouterr().out.splitlines()[1:] == ["ann: pick 3", "bob: pick 1"]
