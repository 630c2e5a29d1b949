"""Play a match with bots over gRPC: each seat is a remote client that reads its own view and submits."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import grpc

from clients.bots import Bot
from clients.client import MatchClient, State


@dataclass
class BotSeat:
    player: str
    token: str
    bot: Bot
    rng: random.Random


def play(
    client: MatchClient,
    match_id: str,
    host_token: str,
    seats: Mapping[str, BotSeat],
    log: Callable[[str], None] = lambda line: None,
    max_steps: int = 100_000,
) -> State:
    """Run the bots until the match is finished. A phase in which no bot has anything more to submit
    (they all wait for the deadline) is ended by the host, as a host waiting for a deadline would."""
    for _ in range(max_steps):
        progressed = False
        for seat in seats.values():
            state = client.state(match_id, seat.token)
            if state.status.finished:
                return client.state(match_id, host_token)
            if seat.player not in state.status.awaiting:
                continue
            text = seat.bot(state.view, seat.player, seat.rng)
            if text is None:
                continue
            try:
                client.submit(match_id, seat.token, text=text)
            except grpc.RpcError as exc:
                if exc.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED):
                    log(f"{seat.player}: {text!r} refused: {exc.details()}")  # e.g. the phase just ended
                    continue
                raise
            log(f"{seat.player}: {text}")
            progressed = True
        if not progressed:
            state = client.state(match_id, host_token)
            if state.status.finished:
                return state
            log(f"-- {state.status.phase}: the bots wait for the deadline; the host ends the phase")
            try:
                client.force_phase_end(match_id, host_token, "play-bots: every bot has submitted")
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.ABORTED:
                    raise
                time.sleep(0.05)
    raise RuntimeError(f"the match did not finish in {max_steps} steps")
