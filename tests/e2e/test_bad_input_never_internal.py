"""Bad input of every kind, thrown at each game through a real server: it is refused with a clear
status (never INTERNAL or UNKNOWN), and a refused command appends nothing."""

from __future__ import annotations

import random

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from engine.registry import get_game, shipped
from matchserver.v1 import matchserver_pb2 as pb
from tests.support.server import ServerThread

SEATS = {game: list("abcdefgh"[: get_game(game).default_seats]) for game in shipped()}  # seats a, b, c, ...
WORDS = (  # noqa: SIM905 (the games' words read better as one text than as a list)
    "bid place rotate on frame with sheep end early junction cross bend straight L T + - I A1 D4 E5 Z9 B3 "
    "I will send workers worker to the Oran Cheri tree place a berry sabotage and not move remove dish "
    "choose start move upgrade bully b c p s t r y g 0 1 2 3 4 5 -1 99 1e9 ; . , \n"
).split(" ")
ALLOWED = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED}


def random_text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9)))


def fill(message: Message, rng: random.Random, depth: int = 0) -> None:
    """Random values in random fields: strings from the game's own words, ints of any sign and size."""
    for field in message.DESCRIPTOR.fields:
        if rng.random() < 0.3:
            continue
        repeated = field.is_repeated
        for _ in range(rng.randint(0, 3) if repeated else 1):
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                if depth > 3:
                    continue
                child = getattr(message, field.name).add() if repeated else getattr(message, field.name)
                if field.containing_oneof is None or rng.random() < 0.5:
                    fill(child, rng, depth + 1)
                    if not repeated:
                        child.SetInParent()
            else:
                value: object
                if field.type == FieldDescriptor.TYPE_STRING:
                    value = rng.choice([*WORDS, "", "F2", "Cheri", "A1", "north", "💥"])
                elif field.type == FieldDescriptor.TYPE_BOOL:
                    value = rng.random() < 0.5
                else:
                    value = rng.choice([0, 1, 2, 3, 5, -1, -(2**31), 2**31 - 1])
                if repeated:
                    getattr(message, field.name).append(value)
                else:
                    setattr(message, field.name, value)


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(SEATS))
def test_random_text_and_typed_commands_are_refused_cleanly(server: ServerThread, game: str) -> None:
    client = server.client()
    created = client.create(game, SEATS[game], seed=3)
    tokens = [client.join(created.match_id, player) for player in SEATS[game]]
    rng = random.Random(f"{game}-fuzz")
    refused = accepted = 0
    for attempt in range(240):
        token = rng.choice(tokens)
        before = client.state(created.match_id, created.host_token).version
        typed = None
        text = None
        if attempt % 2:
            typed = pb.GameCommand()
            fill(typed, rng)
        else:
            text = random_text(rng)
        try:
            client.submit(created.match_id, token, text=text, typed=typed)
        except grpc.RpcError as exc:
            error = exc
        else:
            accepted += 1
            continue
        assert error.code() in ALLOWED, (text, typed, error.code(), error.details())
        assert error.details(), (text, typed)
        assert "could not be applied" not in error.details(), (text, typed)  # an engine crash, not a refusal
        assert client.state(created.match_id, created.host_token).version == before
        refused += 1
    assert refused > 100  # the inputs were mostly bad, and were refused, not crashed on
