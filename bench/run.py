"""Benchmarks (never timed tests): `make bench` or `python -m bench.run [--quick]`.

Measures, on this machine: store appends per second (SQLite file, one record per save and ten per
save), submissions per second through a real server on loopback with concurrent clients (duel fixture
game, whose rules cost almost nothing, so this measures the platform), StateAt latency, and the time the
example bots spend thinking over a whole in-process match of each game.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path

from engine import registry
from server.app import Settings
from server.store import EventStore
from tests.support import duel
from tests.support.server import ServerThread


def bench_store(folder: Path, saves: int) -> dict[str, float]:
    out = {}
    for per_save in (1, 10):
        store = EventStore(f"sqlite:{folder / f'store{per_save}.db'}")
        match = uuid.uuid4()
        started = time.perf_counter()
        for index in range(saves):
            store.append(match, index * per_save, [{"kind": "game", "n": index}] * per_save)
        elapsed = time.perf_counter() - started
        out[f"sqlite records/s, {per_save} per save"] = saves * per_save / elapsed
        store.close()
    return out


def bench_server(folder: Path, matches: int, clients: int) -> dict[str, float]:
    registry.register(duel.GAME)
    server = ServerThread(Settings(address="127.0.0.1:0", var_dir=str(folder / "var"))).start()
    latencies: list[float] = []
    lock = threading.Lock()

    def play(count: int) -> None:
        client = server.client()
        for _ in range(count):
            created = client.create("duel", ["ann", "bob"], seed=1)
            tokens = [client.join(created.match_id, p) for p in ("ann", "bob")]
            for _round in range(3):
                for token in tokens:
                    started = time.perf_counter()
                    client.submit(created.match_id, token, text="pick 2")
                    with lock:
                        latencies.append(time.perf_counter() - started)
        client.close()

    threads = [threading.Thread(target=play, args=(matches // clients,)) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    client = server.client()
    match_id = client.list_matches()[0].match_id
    state_latencies = []
    for version in range(1, 13):
        t = time.perf_counter()
        client.state(match_id, at=version)
        state_latencies.append(time.perf_counter() - t)
    server.stop()
    latencies.sort()
    return {
        f"submits/s ({clients} clients)": len(latencies) / elapsed,
        "submit p50 ms": statistics.median(latencies) * 1000,
        "submit p99 ms": latencies[int(len(latencies) * 0.99) - 1] * 1000,
        "StateAt p50 ms": statistics.median(state_latencies) * 1000,
    }


def bench_games(folder: Path) -> dict[str, float]:
    """A whole bot match of each game over gRPC, then a cold rebuild from the SQLite file after a restart."""
    import random

    from clients.bots import bot_names, get_bot
    from clients.cli import DEFAULT_SEATS
    from clients.play import BotSeat, play

    out: dict[str, float] = {}
    for game in ("last-gathering", "cookoff", "mining"):
        settings = Settings(address="127.0.0.1:0", var_dir=str(folder / game))
        server = ServerThread(settings).start()
        client = server.client()
        players = [f"p{i}" for i in range(DEFAULT_SEATS[game])]
        created = client.create(game, players, seed=1)
        names = bot_names(game)
        seats = {
            p: BotSeat(p, client.join(created.match_id, p), get_bot(game, names[i % 2]), random.Random(i))
            for i, p in enumerate(players)
        }
        started = time.perf_counter()
        final = play(client, created.match_id, created.host_token, seats)
        out[f"{game}: whole bot match over gRPC, s"] = time.perf_counter() - started
        out[f"{game}: records"] = final.version
        client.close()
        server.stop()
        started = time.perf_counter()
        server = ServerThread(Settings(address="127.0.0.1:0", var_dir=str(folder / game))).start()  # rebuilds all
        out[f"{game}: restart, rebuilding the match from SQLite, ms"] = (time.perf_counter() - started) * 1000
        client = server.client()
        started = time.perf_counter()
        client.state(created.match_id, created.host_token, at=final.version // 2)
        out[f"{game}: StateAt mid-match, host view, ms"] = (time.perf_counter() - started) * 1000
        client.close()
        server.stop()
    return out


def bench_bot_thinking() -> dict[str, float]:
    """Seconds the example bots spend deciding over a whole in-process match of each game (no server)."""
    import random

    from clients.bots import bot_names, get_bot
    from clients.cli import DEFAULT_SEATS
    from engine.contract import Viewer
    from engine.match import LocalMatch

    out: dict[str, float] = {}
    for game_name, seats in DEFAULT_SEATS.items():
        game = registry.get_game(game_name)
        players = [f"p{i}" for i in range(seats)]
        bots = {p: get_bot(game_name, bot_names(game_name)[i % 2]) for i, p in enumerate(players)}
        match = LocalMatch(game, game.default_config(players), seed=3)
        rng = random.Random(3)
        thinking = 0.0
        while not match.finished:
            acted = False
            for player in sorted(game.status(match.state).awaiting):
                view = game.view(match.state, Viewer.of(player))
                started = time.perf_counter()
                text = bots[player](view, player, rng)
                thinking += time.perf_counter() - started
                if text is not None and not match.finished:
                    match.submit_text(player, text)
                    acted = True
            if not acted and not match.finished:
                match.expire()
        out[f"{game_name}: bot thinking over a whole match, ms"] = thinking * 1000
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        results = bench_store(Path(folder), 200 if args.quick else 2000)
        results.update(bench_server(Path(folder), 16 if args.quick else 96, 8))
        results.update(bench_games(Path(folder)))
    results.update(bench_bot_thinking())
    for name, value in results.items():
        print(f"{name:56s} {value:10.1f}")


if __name__ == "__main__":
    main()
