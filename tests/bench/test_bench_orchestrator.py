"""The bench orchestrator's bookkeeping (no benchmark is run here: speed is measured by make bench)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from bench import procs, run
from bench.figures import Figure, write_json


def test_a_module_not_written_yet_is_skipped_not_fatal() -> None:
    assert run.runner("no_such_bench_module") is None
    assert run.runner("basics") is run.run_basics


def test_only_merges_into_the_earlier_figures_by_name(tmp_path: Path) -> None:
    path = tmp_path / "bench.json"
    write_json([Figure("a", 1.0, "x"), Figure("b", 2.0, "x")], path)
    merged = run.merged(path, [Figure("b", 3.0, "x"), Figure("c", 4.0, "x")])
    assert [(entry["figure"], entry["value"]) for entry in merged] == [("a", 1.0), ("b", 3.0), ("c", 4.0)]
    json.dumps(merged)  # what main writes


def test_a_process_cpu_time_and_memory_are_read_from_proc() -> None:
    before = procs.cpu_seconds(os.getpid())
    assert before > 0  # this interpreter has run pytest
    assert procs.rss_mb(os.getpid()) > 1


def test_the_latest_table_is_written_between_the_document_markers(tmp_path: Path) -> None:
    figure = Figure("submit: p50", 2.0, "ms", ceiling=1.0, ceiling_name="echo", target=1.5, better="lower")
    write_json([figure], tmp_path / "bench.json")
    entries = json.loads((tmp_path / "bench.json").read_text())
    assert run.as_figure(entries[0]) == figure
    document = tmp_path / "BENCHMARKS.md"
    document.write_text(f"intro\n{run.DOC_BEGIN}\nold table\n{run.DOC_END}\nprofile\n")
    run.write_doc(document, entries)
    text = document.read_text()
    assert "old table" not in text and "submit: p50" in text and text.endswith(f"{run.DOC_END}\nprofile\n")
