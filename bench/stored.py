"""Cost by number of stored matches: start-up, idle CPU, memory and one client's submit latency at
100 / 1,000 / 10,000 stored matches, each beside what it is compared with (a raw read of every row).

Stores are generated quickly: a few matches are played through a real server (a whole bot match of each
game, three finished duels, one duel waiting for its second round with a deadline a year away), then
their records are written again under new match ids with EventStore.append_many in big batches, with the
same chain key, so every copy verifies (about 80 records a match on average).
The catalog rows of the copies are written with them (what the server would have projected), so no start
has anything to upgrade; the second start is the one measured: process start to the first answered
ListMatches. The one-time upgrade of a store without a catalog is measured apart ("upgrade")."""

from __future__ import annotations

import random
import shutil
import sqlite3
import statistics
import tempfile
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path

import grpc

from bench import echo
from bench.figures import Figure
from bench.procs import cpu_seconds, kill, rss_mb, spawn_server, start_server, wait_listening
from bench.submit import _seat
from clients.client import MatchClient
from engine import registry
from matchserver.v1 import matchserver_pb2 as pb
from server.catalog import Summary
from server.identities import is_server_stream
from server.store import EventStore, Record

FINISHED, LIVE = 3, 1  # the template: three finished duels, one half-played, and a bot match of each game
GAMES = tuple(registry.shipped())
BATCH = 500  # matches a save
FIRST_START_TIMEOUT = 90.0  # the first start may upgrade the store: exempt, but bounded
START_TIMEOUT = 60.0
PROBES = 20  # stored matches read once cold, once warm
TABLE = "stored_events"


def play_template(folder: Path) -> list[list[Record]]:
    """Play the template matches through a real server; their records, as stored."""
    var = folder / "template"
    server = start_server(var)
    try:
        with MatchClient(server.address, host_credential=server.admin_token()) as client:
            for index in range(FINISHED + LIVE):
                submits = _seat(client)
                for match_id, token, text in submits if index < FINISHED else submits[:3]:
                    client.submit(match_id, token, text=text)
            for game in GAMES:
                play_bots(client, game)
    finally:
        server.stop()
    store = EventStore(f"sqlite:{var / 'matches.db'}")
    try:
        return [store.read(match_id) for match_id in store.match_ids() if not is_server_stream(match_id)]
    finally:
        store.close()


def play_bots(client: MatchClient, game: str) -> None:
    """A whole match of `game` between the example bots, over gRPC."""
    from clients.bots import bot_names, get_bot
    from clients.play import BotSeat, play

    players = registry.seats(game)
    created = client.create(game, players, seed=1)
    names = bot_names(game)
    seats = {
        player: BotSeat(player, client.join(created.match_id, player), get_bot(game, names[i % 2]), random.Random(i))
        for i, player in enumerate(players)
    }
    play(client, created.match_id, created.host_token, seats)


def generate(
    template: Path, records: list[list[Record]], var: Path, matches: int, with_catalog: bool = True
) -> list[str]:
    """A var folder with `matches` copies of the template's matches under new ids (same keys and tokens);
    the new ids."""
    var.mkdir(parents=True)
    for name in ("chain.key", "admin.token"):
        shutil.copy2(template / name, var / name)
    summaries = template_summaries(template, records)
    store = EventStore(f"sqlite:{var / 'matches.db'}")
    catalog = store.catalog() if with_catalog else None
    ids = [uuid.uuid4() for _ in range(matches)]
    try:
        for start in range(0, matches, BATCH):
            batch = ids[start : start + BATCH]
            store.append_many([(match_id, 0, records[(start + i) % len(records)]) for i, match_id in enumerate(batch)])
            # The catalog rows the server would have projected for these copies, so the first start has
            # nothing to upgrade (an upgrade is exempt from the start-up target and measured apart).
            if catalog is not None:
                before = store.last_position() - sum(
                    len(records[(start + i) % len(records)]) for i in range(len(batch))
                )
                copies = [
                    replace(summaries[(start + i) % len(records)], match_id=m, seq=before + i + 1)
                    for i, m in enumerate(batch)
                ]  # a seq in creation order (the server's is the first record's position)
                catalog.apply(copies, [], store.last_position())
    finally:
        store.close()
    if catalog is None:  # as a store from before the catalog: no read-model tables at all
        with sqlite3.connect(var / "matches.db") as connection:
            for table in ("ms_matches", "ms_tokens", "ms_tracking"):
                connection.execute(f"DROP TABLE IF EXISTS {table}")
    return [str(match_id) for match_id in ids]


def template_summaries(template: Path, records: list[list[Record]]) -> list[Summary]:
    """The catalog's summary of each template match (in the order of `records`), as its server wrote it."""
    store = EventStore(f"sqlite:{template / 'matches.db'}")
    try:
        catalog = store.catalog()
        by_first_hash = {store.read(s.match_id)[0]["hash"]: s for s in catalog.page(0, 1000)}
        return [by_first_hash[match[0]["hash"]] for match in records]
    finally:
        store.close()


def raw_read(path: Path) -> tuple[float, int]:
    """Seconds to SELECT every row of the stored events table with sqlite3 (the floor of a full load)."""
    started = time.perf_counter()
    rows = 0
    with sqlite3.connect(path) as db:
        for _row in db.execute(f"select originator_id, originator_version, state from {TABLE}"):
            rows += 1
    return time.perf_counter() - started, rows


@dataclass(frozen=True)
class Start:
    seconds: float  # process start to the first answered ListMatches (or the timeout)
    answered: bool
    idle_cores: float  # over the idle window; while still starting when it did not answer
    rss_mb: float
    submit_p50_ms: float | None
    # A spectator's State of a stored match nobody has asked for since the start (loaded on first use),
    # and of the same matches again (in memory): what a match costs the node that takes it over.
    first_read_ms: float | None = None
    warm_read_ms: float | None = None


def list_one(address: str, admin: str, deadline: float) -> bool:
    """Call ListMatches until it answers (the server may listen before it serves); False past deadline."""
    with grpc.insecure_channel(address) as channel:
        call = channel.unary_unary(
            "/matchserver.v1.MatchService/ListMatches",
            request_serializer=pb.ListMatchesRequest.SerializeToString,
            response_deserializer=pb.ListMatchesResponse.FromString,
        )
        while time.perf_counter() < deadline:
            try:
                call(pb.ListMatchesRequest(page_size=1), metadata=[("authorization", f"Bearer {admin}")], timeout=5)
                return True
            except grpc.RpcError:
                time.sleep(0.005)
    return False


def reads(client: MatchClient, match_ids: list[str]) -> float:
    """Median milliseconds of a spectator's State of each match."""
    latencies = []
    for match_id in match_ids:
        began = time.perf_counter()
        client.state(match_id)
        latencies.append(time.perf_counter() - began)
    return statistics.median(latencies) * 1000


def measure_start(var: Path, timeout: float, idle: float, submits: int, probe: list[str]) -> Start:
    admin = (var / "admin.token").read_text().strip()
    started = time.perf_counter()
    process = spawn_server(var)
    address = wait_listening(process, timeout)
    if address is None or not list_one(address, admin, started + timeout):
        cores = cpu_seconds(process.pid) / (time.perf_counter() - started)
        rss = rss_mb(process.pid)
        kill(process)
        return Start(timeout, False, cores, rss, None)
    seconds = time.perf_counter() - started
    try:
        time.sleep(1.0)  # let the first ticks pass
        before = cpu_seconds(process.pid)
        time.sleep(idle)
        cores = (cpu_seconds(process.pid) - before) / idle
        rss = rss_mb(process.pid)
        latencies: list[float] = []
        with MatchClient(address, host_credential=admin) as client:
            first = reads(client, probe) if probe else None
            warm = reads(client, probe) if probe else None
            while len(latencies) < submits:
                for match_id, token, text in _seat(client):
                    began = time.perf_counter()
                    client.submit(match_id, token, text=text)
                    latencies.append(time.perf_counter() - began)
        return Start(seconds, True, cores, rss, statistics.median(latencies) * 1000, first, warm)
    finally:
        process.terminate()
        process.wait(30)
        if process.stdout is not None:
            process.stdout.close()


def sizes(quick: bool) -> tuple[int, ...]:
    return (100,) if quick else (100, 1_000, 10_000)


def run(quick: bool) -> list[Figure]:
    idle = 2.0 if quick else 5.0
    submits = 12 if quick else 30
    echo_p50 = None
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        records = play_template(base)
        for count in sizes(quick):
            var = base / f"stored-{count}"
            began = time.perf_counter()
            match_ids = generate(base / "template", records, var, count)
            generated = time.perf_counter() - began
            floor, rows = raw_read(var / "matches.db")
            first = measure_start(var, FIRST_START_TIMEOUT, 0.5, 1, [])
            if first.answered:
                probe = random.Random(count).sample(match_ids, PROBES)
                second = measure_start(var, START_TIMEOUT, idle, submits, probe)
                note = f"second start (the first, {first.seconds:.1f} s, may upgrade); {rows:,} records"
                note += f" generated in {generated:.1f} s"
            else:
                second = first
                note = f"the FIRST start did not answer within {FIRST_START_TIMEOUT:g} s: no second start"
            if not second.answered:
                note += "; did not answer: the value is the timeout, idle CPU is cores used while starting"
            label = f"{count:,} stored matches"
            figures.append(Figure(f"stored: records per stored match, {label}", rows / count, "records"))
            figures.append(
                Figure(
                    f"stored: start-up, {label}",
                    second.seconds * 1000,
                    "ms",
                    ceiling=floor * 1000,
                    ceiling_name="raw read of every row (sqlite3)",
                    better="lower",
                    note=note,
                )
            )
            if count == 10_000:  # the hard target is on the value itself, so a figure without ceiling
                figures.append(
                    Figure(
                        f"stored: start-up ≤ 1 s, {label}",
                        second.seconds * 1000,
                        "ms",
                        target=1000,
                        better="lower",
                        hard=True,
                        note=note,
                    )
                )
            figures.append(
                Figure(
                    f"stored: idle CPU, {label}",
                    second.idle_cores * 100,
                    "% of a core",
                    target=2.0,
                    better="lower",
                    hard=count == 10_000,
                    note=f"over {idle:g} s after start-up" if second.answered else "while still starting",
                )
            )
            figures.append(Figure(f"stored: RSS, {label}", second.rss_mb, "MB", better="lower"))
            if second.first_read_ms is not None and second.warm_read_ms is not None:
                figures.append(
                    Figure(
                        f"stored: first read of a stored match, {label}",
                        second.first_read_ms,
                        "ms",
                        ceiling=second.warm_read_ms,
                        ceiling_name="the same read again (in memory)",
                        better="lower",
                        note=f"median of {PROBES} matches not read since the start",
                    )
                )
            if second.submit_p50_ms is not None:
                if echo_p50 is None:
                    windows, duration = echo.shape(quick)
                    ceiling = echo.measure(1, windows, duration).window
                    echo_p50 = statistics.median(ceiling.latencies) * 1000
                figures.append(
                    Figure(
                        f"stored: one client's submit p50, {label}",
                        second.submit_p50_ms,
                        "ms",
                        ceiling=echo_p50,
                        ceiling_name="echo p50, 1 client",
                        better="lower",
                    )
                )
            shutil.rmtree(var)
        count = 100 if quick else 1000  # the one-time upgrade of a store from before the catalog
        var = base / f"upgrade-{count}"
        generate(base / "template", records, var, count, with_catalog=False)
        upgrade = measure_start(var, FIRST_START_TIMEOUT, 0.5, 1, [])
        note = "first start on a store without a catalog: every match read and summarised once (exempt)"
        figures.append(Figure(f"stored: one-time upgrade, {count:,} matches", upgrade.seconds, "s", note=note))
    return figures


if __name__ == "__main__":
    from bench.figures import table

    print(table(run(quick=True)))
