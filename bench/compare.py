"""Two runs of `make bench` side by side: `python -m bench.compare BEFORE.json AFTER.json` prints each figure
of both (matched by name), after/before, and each run's ratio to its own ceiling where it has one (the
ratio is steadier than the value on a shared machine: both halves of it move with the load)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def load(path: Path) -> dict[str, dict[str, Any]]:
    return {figure["figure"]: figure for figure in json.loads(path.read_text())}


def rows(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> list[list[str]]:
    """One row per figure of either run: name, before, after, after/before, the ceiling ratios, which way is good."""
    out = []
    for name in [*before, *(n for n in after if n not in before)]:
        b, a = before.get(name), after.get(name)
        change = f"{a['value'] / b['value']:.2f}" if a and b and b["value"] else ""
        ratios = f"{b['ratio']:.2f} / {a['ratio']:.2f}" if a and b and b.get("ratio") and a.get("ratio") else ""
        better = (a or b or {}).get("better", "")
        out.append([name, _value(b), _value(a), change, ratios, better])
    return out


def _value(figure: dict[str, Any] | None) -> str:
    return "-" if figure is None else f"{figure['value']:.1f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    header = ["figure", "before", "after", "after/before", "ceiling ratio, before / after", "better"]
    for row in [header, *rows(load(args.before), load(args.after))]:
        print(f"{row[0]:68s} {row[1]:>10s} {row[2]:>10s} {row[3]:>12s} {row[4]:>29s}  {row[5]}")


if __name__ == "__main__":
    main()
