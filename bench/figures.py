"""One benchmark figure beside its ceiling, and the file `make bench` writes (var/bench.json).

Every bench module exposes `run(quick: bool) -> list[Figure]`; bench/run.py prints them all as a table
and writes them as JSON, so `jq '.[] | select(.hard and (.met | not))' var/bench.json` lists the hard
targets that were missed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal


@dataclass(frozen=True)
class Figure:
    """`value` measured in `unit`; `ceiling` is the same quantity for the floor/ceiling measured in the same
    run (an echo server, a raw stream...), named by `ceiling_name`. `target` applies to the ratio when there
    is a ceiling, else to the value; `better` says which way is good. `hard`: the issue is not done without it."""

    name: str
    value: float
    unit: str
    ceiling: float | None = None
    ceiling_name: str = ""
    target: float | None = None
    better: Literal["higher", "lower"] = "higher"
    hard: bool = False
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.ceiling is None or self.ceiling == 0:
            return None
        return self.value / self.ceiling

    @property
    def met(self) -> bool | None:
        if self.target is None:
            return None
        measured = self.ratio if self.ratio is not None else self.value
        return measured >= self.target if self.better == "higher" else measured <= self.target

    def as_json(self) -> dict[str, Any]:
        return {
            "figure": self.name,
            "value": self.value,
            "unit": self.unit,
            "ceiling": self.ceiling,
            "ceiling_name": self.ceiling_name,
            "ratio": self.ratio,
            "target": self.target,
            "better": self.better,
            "hard": self.hard,
            "met": self.met,
            "note": self.note,
        }


def write_json(figures: list[Figure], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([figure.as_json() for figure in figures], indent=2) + "\n")


def table(figures: list[Figure]) -> str:
    """Figures as aligned text: value, ceiling, ratio, target, met."""
    lines = [f"{'figure':58s} {'value':>12s} {'ceiling':>12s} {'ratio':>7s} {'target':>8s}  met"]
    for f in figures:
        ceiling = f"{f.ceiling:12.1f}" if f.ceiling is not None else " " * 12
        ratio = f"{f.ratio:7.2f}" if f.ratio is not None else " " * 7
        target = (("≥" if f.better == "higher" else "≤") + f"{f.target:g}") if f.target is not None else ""
        met = {True: "yes", False: "NO", None: ""}[f.met] + (" (hard)" if f.hard else "")
        lines.append(f"{f.name[:58]:58s} {f.value:12.1f} {ceiling} {ratio} {target:>8s}  {met}  {f.unit}")
    return "\n".join(lines)
