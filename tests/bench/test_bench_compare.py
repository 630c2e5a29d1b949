"""bench/compare.py: two bench.json files side by side, figures matched by name."""

from __future__ import annotations

import json
from pathlib import Path

from bench.compare import load, rows


def test_figures_are_matched_by_name_and_a_new_one_is_listed_after(tmp_path: Path) -> None:
    def figure(name: str, value: float, ratio: float | None = None) -> dict[str, object]:
        return {"figure": name, "value": value, "ratio": ratio, "better": "lower"}

    (tmp_path / "b.json").write_text(json.dumps([figure("cpu", 200.0, 4.0), figure("gone", 1.0)]))
    (tmp_path / "a.json").write_text(json.dumps([figure("new", 3.0), figure("cpu", 100.0, 2.5)]))
    table = rows(load(tmp_path / "b.json"), load(tmp_path / "a.json"))
    assert table == [
        ["cpu", "200.0", "100.0", "0.50", "4.00 / 2.50", "lower"],
        ["gone", "1.0", "-", "", "", "lower"],
        ["new", "-", "3.0", "", "", "lower"],
    ]
