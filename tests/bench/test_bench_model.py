"""The scaling model reads the figures make bench wrote, says where each input came from, and rewrites
only the table between its markers in docs/SCALING.md."""

from __future__ import annotations

import json
from pathlib import Path

from bench import scaling_model
from bench.figures import Figure, write_json

ROOT = Path(__file__).resolve().parents[2]


def derived(inputs: dict[str, scaling_model.Input]) -> dict[str, float]:
    return {d.name: d.value for d in scaling_model.derive(inputs)}


def test_a_measured_figure_is_used_and_a_missing_one_falls_back_named(tmp_path: Path) -> None:
    path = tmp_path / "bench.json"
    write_json([Figure("submit: server CPU per submit, 8 clients", 500.0, "µs", ceiling=250.0)], path)
    inputs = scaling_model.read_inputs(scaling_model.load_figures(path))
    assert inputs["cpu_submit"].value == 500.0
    assert inputs["cpu_submit"].source == "submit: server CPU per submit, 8 clients"
    assert inputs["cpu_echo"].source.startswith("not in var/bench.json")


def test_a_costlier_submit_needs_more_processes_and_a_faster_database_fewer_shards() -> None:
    inputs = scaling_model.read_inputs([])
    base = derived(inputs)
    costly = dict(inputs, cpu_submit=scaling_model.Input("cpu_submit", 10 * inputs["cpu_submit"].value, "µs", "x"))
    fast_db = dict(inputs, pg_grouped=scaling_model.Input("pg_grouped", 10 * inputs["pg_grouped"].value, "r/s", "x"))
    processes, shards = "server processes for the target", "PostgreSQL shards (by match id) for the target"
    assert derived(costly)[processes] > base[processes]
    assert derived(fast_db)[shards] < base[shards]


def test_rewrite_replaces_only_the_table_between_the_markers(tmp_path: Path) -> None:
    document = tmp_path / "SCALING.md"
    document.write_text(f"before\n{scaling_model.BEGIN}\nold\n{scaling_model.END}\nafter\n")
    scaling_model.rewrite(document, "| new |")
    assert document.read_text() == f"before\n{scaling_model.BEGIN}\n| new |\n{scaling_model.END}\nafter\n"


def test_the_scaling_document_has_the_markers() -> None:
    text = (ROOT / "docs" / "SCALING.md").read_text()
    assert text.index(scaling_model.BEGIN) < text.index(scaling_model.END)


def test_the_model_reads_the_json_the_figures_module_writes(tmp_path: Path) -> None:
    path = tmp_path / "bench.json"
    write_json([Figure("stored: start-up, 10,000 stored matches", 900.0, "ms", ceiling=1200.0)], path)
    inputs = scaling_model.read_inputs(json.loads(path.read_text()))
    assert (inputs["startup_10k"].value, inputs["raw_read_10k"].value) == (900.0, 1200.0)
