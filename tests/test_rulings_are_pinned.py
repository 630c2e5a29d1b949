"""Every ruling in docs/RULINGS.md is named by a test, and every shared ruling is in docs/RULINGS.md."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULING = re.compile(r"\b(?:LG|CK|MN)-P?\d+[a-z]?\b")
SHARED = (
    [f"LG-{n}" for n in range(1, 14)] + [f"CK-{n}" for n in range(1, 8)] + ["CK-5b"] + [f"MN-{n}" for n in range(1, 6)]
)


def ruling_ids(text: str) -> set[str]:
    return set(RULING.findall(text))


def test_every_ruling_in_the_document_is_named_by_a_test() -> None:
    documented = ruling_ids((ROOT / "docs" / "RULINGS.md").read_text())
    tests_text = "\n".join(
        path.read_text() for path in (ROOT / "tests").rglob("*.py") if path.name != Path(__file__).name
    )
    # A test names a ruling literally ("LG-3") or in its function name ("test_lg3_...", "test_mn_p1_...").
    named = ruling_ids(tests_text) | {
        f"{game.upper()}-{'P' if p else ''}{number}"
        for game, p, number in re.findall(r"test_(lg|ck|mn)_?(p)?_?(\d+)", tests_text)
    }
    assert documented, "docs/RULINGS.md lists no rulings"
    assert sorted(documented - named) == []


def test_every_shared_ruling_is_documented() -> None:
    documented = ruling_ids((ROOT / "docs" / "RULINGS.md").read_text())
    assert sorted(set(SHARED) - documented) == []


def test_the_pattern_finds_rulings_and_project_rulings() -> None:
    assert ruling_ids("LG-3, CK-5b and MN-P1 but not XX-1") == {"LG-3", "CK-5b", "MN-P1"}
