"""Play a match with bots over gRPC: each seat is a remote client that reads its own view and submits."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import grpc

from clients.bots import Bot
from clients.client import MatchClient, State, Subscription


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
    (they all wait for the deadline) is ended by the host, as a host waiting for a deadline would.
    After each round the loop waits on the host's stream for the match to move; that stream resumes
    by itself when the server ends it (a restart, the stream's age)."""
    updates = client.subscribe(
        match_id,
        host_token,
        from_version=client.state(match_id, host_token).version,
        on_resume=lambda version, why: log(f"-- the stream resumed after version {version}: {why}"),
    )
    try:
        for _ in range(max_steps):
            before = client.state(match_id, host_token)
            if before.status.finished:
                return before
            if not _bots_submit(client, match_id, seats, log):
                log(f"-- {before.status.phase}: the bots wait for the deadline; the host ends the phase")
                try:
                    client.force_phase_end(match_id, host_token, "play-bots: every bot has submitted")
                except grpc.RpcError as exc:
                    if exc.code() != grpc.StatusCode.ABORTED:  # ABORTED: another writer moved it first
                        raise
            _wait_past(updates, before.version)
    finally:
        updates.cancel()
    raise RuntimeError(f"the match did not finish in {max_steps} steps")


def _bots_submit(client: MatchClient, match_id: str, seats: Mapping[str, BotSeat], log: Callable[[str], None]) -> bool:
    """Each awaited bot submits what it chooses; whether any submission was accepted."""
    progressed = False
    for seat in seats.values():
        state = client.state(match_id, seat.token)
        if state.status.finished:
            return True
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
    return progressed


def _wait_past(updates: Subscription, version: int) -> None:
    """Block until the stream shows a version after `version` (every round writes, or another writer did)."""
    for update in updates:
        if update.event.version > version:
            return
