"""`matchctl state MATCH --as PLAYER` answers a board for every seat of every registered game in every
phase (engine/registry.py, the test games included), and a player's board shows what they decide with."""

from __future__ import annotations

import random
import re

import grpc
import pytest

from clients.bots import BOTS, get_bot
from clients.credentials import Credentials
from engine import registry
from tests.clients.matchctl_cli import matchctl
from tests.support.server import ServerThread

NAMES = ("ann", "bob", "cat", "dan", "eve", "fay")
# What a player decides with, as each game's board says it (a game without a board shows "your part:").
SHOWS = {
    "cookoff": ("trees:", "judges:", "inventory:", "pot:"),
    "last-gathering": ("step:", "garnets:", "to submit:", "board:"),
    "mining": ("board:", "your miners:", "to submit:"),
}


def phase_kind(phase: str) -> str:
    """A phase with its numbers left out: `round 3: placement` and `round 1: placement` are one kind."""
    return re.sub(r"\d+", "N", phase)


def owes(status: object, seat: str) -> bool:
    return not status.finished and seat in status.awaiting and seat not in status.submitted  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.parametrize("game", registry.available())
def test_state_as_each_seat_answers_a_board_in_every_phase_of_every_game(server: ServerThread, game: str) -> None:
    """The match is played by the game's example bots (the host ends a phase where no bot has more to
    say; a game without bots is played by the host alone), and at the first phase of each kind every
    seat asks for its state."""
    client = server.client()
    players = list(NAMES[: registry.get_game(game).default_seats])
    created = client.create(game, players, seed=5)
    match_id, host = created.match_id, created.host_token
    tokens = {p: client.join(match_id, p) for p in players}
    creds = Credentials()
    for player, token in tokens.items():
        creds.set_player(server.address, match_id, player, token)  # as `matchctl join` keeps them
    bot = get_bot(game, BOTS[game][1][0]) if game in BOTS else None
    rng = random.Random(5)
    kinds: list[str] = []
    for _ in range(10_000):
        state = client.state(match_id, host)
        kind = "finished" if state.status.finished else phase_kind(state.status.phase)
        if kind not in kinds:
            kinds.append(kind)
            for player in players:
                ran = matchctl(server, "state", match_id, "--as", player)
                assert ran.code == 0 and not ran.err, f"{game}, {state.status.phase}, {player}: {ran.err}"
                assert f"as player:{player}" in ran.out and "your part:" in ran.out, ran.out
                for shown in SHOWS.get(game, ()):
                    assert shown in ran.out, f"{game}, {state.status.phase}: no {shown!r} in\n{ran.out}"
        if state.status.finished:
            break
        moved = False
        for player in players if bot is not None else ():
            seat = client.state(match_id, tokens[player])
            if not owes(seat.status, player):
                continue
            text = bot(seat.view, player, rng)  # type: ignore[misc]
            if text is None:
                continue
            try:
                client.submit(match_id, tokens[player], text=text)
            except grpc.RpcError as exc:
                if exc.code() not in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT):
                    raise
                continue
            moved = True
        if not moved:
            client.force_phase_end(match_id, host, "the test ends the phase")
    assert kinds[-1] == "finished", kinds
    assert len(kinds) >= 2, kinds  # at least one phase played, and the end
