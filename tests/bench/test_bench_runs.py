"""The benches that drive the application in process still speak its API (bench/breakdown.py broke once
when the application moved into rooms, and only `make bench` would have said so). Nothing is timed here."""

from __future__ import annotations

import asyncio

from bench import breakdown


def test_the_breakdown_bench_runs_its_submits_through_the_application() -> None:
    cpu_per_submit, top = asyncio.run(breakdown._measure("memory", 2, profile=True))
    assert cpu_per_submit > 0
    assert "function calls" in top  # the profile ran around the submits
