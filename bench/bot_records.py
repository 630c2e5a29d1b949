"""A match log as the server writes it, played in process by the example bots: `created`, a `joined` per
seat, then the game's batches (start, each accepted command, each deadline) with their causes, chained
under a chain key. Long logs for the memory and StateAt benchmarks and the compact-match tests come from
longer configurations (more rounds) of the real games, so every record is a real event."""

from __future__ import annotations

import random
from collections.abc import Mapping

from clients.bots import bot_names, get_bot
from engine.contract import Json, Viewer
from engine.match import LocalMatch
from engine.registry import get_game
from server.envelope import cause, created_record, game_records
from server.records import ChainKey, Record, chain, token_hash

KEY = ChainKey(b"bench-chain-key-0123456789abcdef", "bench")
START = 1_700_000_000.0


def bot_match_records(
    game_name: str, seed: int = 1, overrides: Mapping[str, Json] | None = None, think_seconds: float = 7.0
) -> list[Record]:
    """The whole log of a bot match of `game_name` (default seats, `overrides` on the default config)."""
    game = get_game(game_name)
    players = [f"p{i}" for i in range(get_game(game_name).default_seats)]
    config = game.default_config(players)
    config.update(overrides or {})
    names = bot_names(game_name)
    bots = {p: get_bot(game_name, names[i % len(names)]) for i, p in enumerate(players)}
    rng = random.Random(seed)
    ids = random.Random(-seed)  # request ids, apart from the bots' own draws

    def tagged(records: list[Record], caller: str) -> list[Record]:
        """The request id and fingerprint the server records with a client's write (every client sends one)."""
        if records:
            tag = {
                "id": f"{ids.getrandbits(128):032x}",
                "caller": caller,
                "fingerprint": f"{ids.getrandbits(128):032x}",
            }
            records[0] = {**records[0], "request": tag}
        return records

    header = created_record(
        game,
        players,
        config,
        seed,
        host_token=token_hash(f"host-{seed}"),
        invitations={p: token_hash(f"invitation-{p}-{seed}") for p in players},
        host_key=None,
        private=False,
        at=START,
    )
    match = LocalMatch(game, config, seed, now=START)
    log: list[Record] = tagged([header], "admin")
    for p in players:
        joined = {"kind": "joined", "player": p, "token": token_hash(f"seat-{p}-{seed}"), "via": "invitation"}
        log += tagged([{**joined, "at": START}], f"invitation:{p}")
    log += game_records(list(match.events), cause("server", start=True), START, start=True)
    while not match.finished:
        acted = False
        for player in sorted(game.status(match.state).awaiting):
            if match.finished:
                break
            text = bots[player](game.view(match.state, Viewer.of(player)), player, rng)
            if text is None:
                continue
            deadline = game.status(match.state).deadline
            match.now = min(match.now + think_seconds, deadline) if deadline is not None else match.now + think_seconds
            command = game.parse(match.state, player, text)
            events = match.submit(player, command)
            log += tagged(game_records(events, cause(player, command, text), match.now), f"seat:{player}")
            acted = True
        if not acted and not match.finished:
            deadline = game.status(match.state).deadline
            events = match.expire()
            log += game_records(events, cause("clock", timeout=True), deadline or match.now)
    return chain("", log, KEY)
