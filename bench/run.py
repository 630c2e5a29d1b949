"""Benchmarks (never timed tests): `make bench`, or `python -m bench.run [--quick] [--only NAME ...]`.

Runs each bench module's `run(quick) -> list[Figure]` (bench/figures.py), prints every figure beside its ceiling
measured in the same run, and writes them to var/bench.json. Modules, in order: echo (the gRPC ceiling), submit, play
(moves over the Play stream), breakdown, stored, fold, memory, seat_view (a seat page's view as a match grows), fanout,
nodes, and `basics` (below: store appends and the bots' thinking time). A module whose file is not here yet is skipped
with a message. `--only` runs the named modules and merges their figures into the existing var/bench.json (figures
matched by name).
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
import tempfile
import time
import traceback
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.figures import Figure, table, write_json

MODULES = ("echo", "submit", "play", "breakdown", "stored", "fold", "memory", "seat_view", "fanout", "nodes", "basics")
JSON = Path(__file__).resolve().parent.parent / "var" / "bench.json"
DOC_BEGIN, DOC_END = "<!-- bench:begin -->", "<!-- bench:end -->"


def append_rate(store: Any, saves: int, per_save: int) -> float:
    """Records/s over `saves` appends of `per_save` records each, to one new match of `store`."""
    match = uuid.uuid4()
    started = time.perf_counter()
    for index in range(saves):
        store.append(match, index * per_save, [{"kind": "game", "n": index}] * per_save)
    return saves * per_save / (time.perf_counter() - started)


def store_appends(quick: bool) -> list[Figure]:
    """Records/s appended to a SQLite store, one record a save and ten a save (the ceiling group commit
    approaches)."""
    from server.store import EventStore

    saves = 200 if quick else 2000
    rates = {}
    with tempfile.TemporaryDirectory() as folder:
        for per_save in (1, 10):
            store = EventStore(f"sqlite:{Path(folder) / f'store{per_save}.db'}")
            rates[per_save] = append_rate(store, saves, per_save)
            store.close()
    return [
        Figure("basics: SQLite appends, 1 record a save", rates[1], "records/s"),
        Figure("basics: SQLite appends, 10 records a save", rates[10], "records/s"),
    ]


POSTGRES_DSN = "host=127.0.0.1 port=5432 user=postgres dbname=test"


def postgres_appends(quick: bool) -> list[Figure]:
    """Records/s appended to a PostgreSQL store (a fresh schema, dropped after): the library locks the
    events table for each append, so this is one database's write ceiling (docs/SCALING.md)."""
    import os

    import psycopg

    from server.store import EventStore

    dsn = os.environ.get("MATCHSERVER_TEST_POSTGRES", POSTGRES_DSN)
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(dsn + " connect_timeout=3", autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
    except Exception as exc:  # a bench, not a test: say so and go on
        print(f"== basics: no PostgreSQL at {dsn!r} ({exc}): PostgreSQL appends skipped", flush=True)
        return []
    saves = 100 if quick else 500
    rates = {}
    try:
        store = EventStore(f"postgres:{dsn} schema={schema}")
        for per_save in (1, 10):
            rates[per_save] = append_rate(store, saves, per_save)
        store.close()
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
    return [
        Figure("basics: PostgreSQL appends, 1 record a save", rates[1], "records/s"),
        Figure("basics: PostgreSQL appends, 10 records a save", rates[10], "records/s"),
    ]


def bot_thinking(quick: bool) -> list[Figure]:
    """Milliseconds the example bots spend deciding over a whole in-process match of each game (no server):
    what a bot costs its host, apart from the platform."""
    from clients.bots import bot_names, get_bot
    from engine import registry
    from engine.contract import Viewer
    from engine.match import LocalMatch

    figures = []
    for game_name in registry.shipped():
        game = registry.get_game(game_name)
        players = registry.seats(game_name)
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
        figures.append(
            Figure(
                f"basics: {game_name} bots' thinking over a whole match",
                thinking * 1000,
                "ms",
                better="lower",
                note=f"{len(match.events)} game events",
            )
        )
    return figures


def run_basics(quick: bool) -> list[Figure]:
    return store_appends(quick) + postgres_appends(quick) + bot_thinking(quick)


def runner(name: str) -> Callable[[bool], list[Figure]] | None:
    """The module's run function; None (with a message) when bench/NAME.py is not here yet."""
    if name == "basics":
        return run_basics
    try:
        module = importlib.import_module(f"bench.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"bench.{name}":
            raise
        print(f"== {name}: bench/{name}.py is not here yet: skipped", flush=True)
        return None
    run: Callable[[bool], list[Figure]] = module.run
    return run


def merged(previous: Path, figures: list[Figure]) -> list[dict[str, object]]:
    """The figures of an earlier run, those measured again replaced (by name), the new ones appended."""
    fresh = {figure.name: figure.as_json() for figure in figures}
    out = []
    if previous.exists():
        for entry in json.loads(previous.read_text()):
            out.append(fresh.pop(entry["figure"], entry))
    return out + list(fresh.values())


def as_figure(entry: dict[str, Any]) -> Figure:
    """A figure back from var/bench.json."""
    fields = ("value", "unit", "ceiling", "ceiling_name", "target", "better", "hard", "note")
    return Figure(str(entry["figure"]), **{name: entry[name] for name in fields})


def write_doc(document: Path, entries: list[dict[str, Any]]) -> None:
    """The table of every figure in var/bench.json, between the bench markers of `document`."""
    from bench.scaling_model import rewrite

    figures = [as_figure(entry) for entry in entries]
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rewrite(document, f"Measured {stamp} (`make bench`):\n\n```\n{table(figures)}\n```", DOC_BEGIN, DOC_END)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short windows and fewer sizes: a smoke pass")
    parser.add_argument("--only", action="append", choices=MODULES, metavar="NAME", help=f"one of {MODULES}")
    parser.add_argument("--json", type=Path, default=JSON, help="where to write the figures (var/bench.json)")
    parser.add_argument("--doc", type=Path, help="also write the table into this document (docs/BENCHMARKS.md)")
    args = parser.parse_args(argv)
    figures: list[Figure] = []
    failed = []
    started = time.perf_counter()
    for name in args.only or MODULES:
        run = runner(name)
        if run is None:
            continue
        print(f"== {name}", flush=True)
        began = time.perf_counter()
        try:
            measured = run(args.quick)
        except Exception:
            traceback.print_exc()
            failed.append(name)
            continue
        figures += measured
        print(table(measured), flush=True)
        print(f"== {name}: {time.perf_counter() - began:.0f} s", flush=True)
    print(f"\n== all figures ({time.perf_counter() - started:.0f} s{', quick' if args.quick else ''})")
    print(table(figures))
    if args.only:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(merged(args.json, figures), indent=2) + "\n")
    else:
        write_json(figures, args.json)
    print(f"written to {args.json}")
    if args.doc:
        write_doc(args.doc, json.loads(args.json.read_text()))
        print(f"table written into {args.doc}")
    missed = [f.name for f in figures if f.hard and f.met is False]
    if missed:
        print("hard targets missed: " + "; ".join(missed))
    if failed:
        print("modules that failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
