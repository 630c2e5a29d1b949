"""The scaling model behind docs/SCALING.md: from the per-node figures `make bench` measured (var/bench.json)
to what 100,000 stored matches, 10,000 live matches and 100,000 connected bots need.

`python -m bench.scaling_model` prints the derived figures; `--write docs/SCALING.md` also replaces the
table between the `<!-- model:begin -->` and `<!-- model:end -->` markers. A measured input missing
from var/bench.json (its bench module not run yet) falls back to the figure issue 12 measured, and the
table says so. Everything here is arithmetic on those inputs and on the workload stated in WORKLOAD.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH_JSON = ROOT / "var" / "bench.json"
BEGIN, END = "<!-- model:begin -->", "<!-- model:end -->"


@dataclass(frozen=True)
class Workload:
    """The target, and what it assumes about how bots behave (not measured: stated)."""

    stored: int = 100_000
    live: int = 10_000
    bots: int = 100_000
    submit_every: float = 10.0  # seconds between one bot's submits (a turn-based bot, thinking included)
    records_per_submit: float = 2.0  # a duel: 12 game records for 6 submits (picks, resolutions, rounds)
    headroom: float = 0.6  # plan each server process and database at 60% of what it was measured to do


WORKLOAD = Workload()


@dataclass(frozen=True)
class Input:
    name: str
    value: float
    unit: str
    source: str  # the bench figure it was read from, or why it is a fallback


# (key, words every matching figure name contains, which value: "value" or "ceiling", fallback, unit, why)
INPUTS: tuple[tuple[str, tuple[str, ...], str, float, str, str], ...] = (
    ("cpu_submit", ("submit:", "cpu per submit", "8 clients"), "value", 744.0, "µs", "issue 12: 744 µs"),
    ("cpu_echo", ("echo:", "cpu per call", "8 clients"), "value", 256.0, "µs", "issue 12: 256 µs"),
    ("submit_rate", ("submit:", "submits/s", "8 clients"), "value", 1300.0, "submits/s", "issue 12: ~0.38 of echo"),
    ("cpu_delivery", ("cpu per delivery", "200"), "value", 300.0, "µs", "issue 12: 229-372 µs"),
    ("mem_live", ("per live match",), "value", 1.2, "MB", "issue 12: 0.4-1.2 MB"),
    ("startup_1k", ("stored: start-up,", "1,000 stored"), "value", 20_000.0, "ms", "issue 12: ~20 ms a match"),
    ("startup_10k", ("stored: start-up,", "10,000 stored"), "value", 200_000.0, "ms", "issue 12: ~20 ms a match"),
    ("raw_read_10k", ("stored: start-up,", "10,000 stored"), "ceiling", 10_000.0, "ms", "issue 12: 10 s at 5,000"),
    ("idle_1k", ("stored: idle cpu", "1,000 stored"), "value", 2.0, "% of a core", "issue 12: 0.02 cores"),
    ("idle_10k", ("stored: idle cpu", "10,000 stored"), "value", 99.0, "% of a core", "issue 12: 0.99 cores"),
    ("rss_100", ("stored: rss", " 100 stored"), "value", 100.0, "MB", "assumed"),
    ("rss_1k", ("stored: rss", "1,000 stored"), "value", 550.0, "MB", "assumed"),
    ("rss_10k", ("stored: rss", "10,000 stored"), "value", 600.0, "MB", "assumed"),
    ("records_per_match", ("stored: records per stored match", "10,000"), "value", 80.0, "records", "assumed"),
    ("first_read", ("stored: first read", "10,000"), "value", 20.0, "ms", "issue 12: ~20 ms a match"),
    ("pg_single", ("postgresql appends, 1 record",), "value", 440.0, "records/s", "PITFALLS.md: 375-511"),
    ("pg_grouped", ("postgresql appends, 10 records",), "value", 3000.0, "records/s", "PITFALLS.md: ~3k"),
)


def load_figures(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    loaded: list[dict[str, Any]] = json.loads(path.read_text())
    return loaded


def find(figures: Iterable[dict[str, Any]], words: tuple[str, ...]) -> dict[str, Any] | None:
    """The first figure whose name contains every word (case-insensitive)."""
    for figure in figures:
        name = str(figure["figure"]).lower()
        if all(word.lower() in name for word in words):
            return figure
    return None


def read_inputs(figures: list[dict[str, Any]]) -> dict[str, Input]:
    inputs = {}
    for key, words, field, fallback, unit, why in INPUTS:
        figure = find(figures, words)
        measured = figure.get(field) if figure else None
        if figure is not None and isinstance(measured, int | float):
            inputs[key] = Input(
                key, float(measured), unit, f"{figure['figure']}" + (" (ceiling)" if field == "ceiling" else "")
            )
        else:
            inputs[key] = Input(key, fallback, unit, f"not in var/bench.json: {why}")
    return inputs


@dataclass(frozen=True)
class Derived:
    name: str
    value: float
    unit: str
    how: str


def per_stored(low: float, high: float, low_n: int = 1_000, high_n: int = 10_000) -> float:
    """The cost of one more stored match, from the two largest measured sizes (never negative: noise).
    The largest two, because a cache bounded by count flattens the curve past its size."""
    return max(0.0, (high - low) / (high_n - low_n))


def derive(i: dict[str, Input], w: Workload = WORKLOAD) -> list[Derived]:
    v = {key: item.value for key, item in i.items()}
    out: list[Derived] = []

    def add(name: str, value: float, unit: str, how: str) -> float:
        out.append(Derived(name, value, unit, how))
        return value

    # Traffic.
    watchers = add(
        "streams per live match", w.bots / w.live, "streams", "bots ÷ live matches (each bot follows its match)"
    )
    submits = add(
        "submits/s at the target", w.bots / w.submit_every, "submits/s", "bots ÷ seconds between a bot's submits"
    )
    add("deliveries/s at the target", submits * watchers, "deliveries/s", "submits/s × streams per match")
    # One server process (one core: the GIL) per core.
    cpu_per_submit = add(
        "server CPU per submit, fan-out included",
        v["cpu_submit"] + watchers * v["cpu_delivery"],
        "µs",
        "CPU per submit + streams per match × CPU per delivery",
    )
    node_rate = add(
        "submits/s one server process carries",
        w.headroom * 1e6 / cpu_per_submit,
        "submits/s",
        f"{w.headroom:.0%} of a core ÷ CPU per submit with fan-out",
    )
    add(
        "bots one server process carries", node_rate * w.submit_every, "bots", "its submits/s × seconds between submits"
    )
    nodes = add(
        "server processes for the target", math.ceil(submits / node_rate), "processes", "submits/s ÷ what one carries"
    )
    add(
        "  the same if a submit cost an echo",
        math.ceil(submits / (w.headroom * 1e6 / (v["cpu_echo"] + watchers * v["cpu_delivery"]))),
        "processes",
        "echo CPU in place of submit CPU: the floor of this design",
    )
    # Memory.
    live_per_node = add("live matches per process", w.live / nodes, "matches", "live matches ÷ processes")
    stored_slope = per_stored(v["rss_1k"], v["rss_10k"])
    add(
        "memory per process",
        v["rss_100"] + live_per_node * v["mem_live"] + w.stored * stored_slope,
        "MB",
        "RSS at 100 stored + live per process × memory per live match + 100,000 × memory per stored match",
    )
    add(
        "memory per stored match held by a process",
        stored_slope * 1024,
        "kB",
        "(RSS at 10,000 − RSS at 1,000) ÷ 9,000 (0 once matches load on first use)",
    )
    # Stored matches.
    startup_slope = per_stored(v["startup_1k"], v["startup_10k"])
    add(
        "start-up at 100,000 stored matches",
        (v["startup_10k"] + (w.stored - 10_000) * startup_slope) / 1000,
        "s",
        "start-up at 10,000 + 90,000 × its cost per stored match",
    )
    idle_slope = per_stored(v["idle_1k"], v["idle_10k"])
    add(
        "idle CPU at 100,000 stored matches",
        (v["idle_10k"] + (w.stored - 10_000) * idle_slope) / 100,
        "cores",
        "idle at 10,000 + 90,000 × its cost per stored match",
    )
    rows = add(
        "stored rows at 100,000 matches", w.stored * v["records_per_match"], "rows", "matches × records per match"
    )
    add(
        "one-time upgrade floor at 100,000 (raw read of every row)",
        v["raw_read_10k"] * w.stored / 10_000 / 1000,
        "s",
        "raw read at 10,000 × 10",
    )
    add("events table size, roughly", rows * 0.5 / 1024, "MB", "rows × ~0.5 kB (a record as JSON with its hash)")
    # One PostgreSQL: the library locks the events table for every append.
    one_db = add(
        "submits/s one PostgreSQL takes (table lock, group commit)",
        w.headroom * v["pg_grouped"] / w.records_per_submit,
        "submits/s",
        "grouped appends/s × headroom ÷ records per submit",
    )
    add(
        "  the same without group commit",
        w.headroom * v["pg_single"] / w.records_per_submit,
        "submits/s",
        "one-record appends/s × headroom ÷ records per submit",
    )
    add(
        "bots one PostgreSQL serves",
        one_db * w.submit_every,
        "bots",
        "its submits/s × seconds between submits: past this, shard",
    )
    add(
        "live matches one PostgreSQL serves",
        one_db * w.submit_every / watchers,
        "matches",
        "bots it serves ÷ bots per match",
    )
    shards = add(
        "PostgreSQL shards (by match id) for the target",
        math.ceil(submits / one_db),
        "shards",
        "submits/s ÷ what one database takes",
    )
    add("processes per shard", nodes / shards, "processes", "server processes ÷ shards")
    # A node's death.
    add(
        "matches to reload when a process dies",
        live_per_node,
        "matches",
        "its live matches; the others load each on first use (routing moves only the dead process's share)",
    )
    add(
        "time to reload them on the survivors",
        live_per_node * v["first_read"] / max(1.0, nodes - 1) / 1000,
        "s",
        "matches × first read of a stored match ÷ surviving processes",
    )
    add(
        "streams that resume elsewhere",
        w.bots / nodes,
        "streams",
        "bots ÷ processes (each resumes from its trailer's version)",
    )
    add(
        "CPU to resume them, per survivor",
        w.bots / nodes * (v["cpu_echo"] + v["cpu_delivery"]) / max(1.0, nodes - 1) / 1e6,
        "core-seconds",
        "streams × (a call + a delivery) ÷ survivors",
    )
    add(
        "notifications/s each process hears on one channel",
        submits,
        "notifications/s",
        "one per append (fewer with group commit), every process listening on one channel",
    )
    return out


def markdown(inputs: dict[str, Input], derived: list[Derived]) -> str:
    lines = ["| measured input | value | from |", "|---|---:|---|"]
    for item in inputs.values():
        lines.append(f"| {item.name} | {_num(item.value)} {item.unit} | {item.source} |")
    lines += ["", "| derived | value | how |", "|---|---:|---|"]
    for d in derived:
        lines.append(f"| {d.name} | {_num(d.value)} {d.unit} | {d.how} |")
    return "\n".join(lines)


def _num(value: float) -> str:
    if value == 0 or abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:,.1f}"
    return f"{value:.3g}"


def rewrite(document: Path, table: str, begin: str = BEGIN, end: str = END) -> None:
    """Replace what lies between the markers in `document` with `table`."""
    text = document.read_text()
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"{document} has no {begin} ... {end} markers")
    document.write_text(pattern.sub(lambda _: f"{begin}\n{table}\n{end}", text))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, default=BENCH_JSON, help="the figures make bench wrote")
    parser.add_argument("--write", type=Path, help="the document whose model table to regenerate")
    args = parser.parse_args(argv)
    inputs = read_inputs(load_figures(args.bench))
    table = markdown(inputs, derive(inputs))
    print(table)
    if args.write:
        rewrite(args.write, table)
        print(f"rewrote the model table in {args.write}")


if __name__ == "__main__":
    main()
