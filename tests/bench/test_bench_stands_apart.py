"""The layering rule for bench/: it may import the product and itself, never tests/ (what both need, such as
the duel fixture game, lives in engine/fixtures/ or bench/)."""

from __future__ import annotations

import re
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
# Read as text, not parsed: bench/nodes.py hands a subprocess its program as a string.
IMPORTS_TESTS = re.compile(r"\b(?:from|import)\s+tests\b")


def test_bench_never_imports_the_tests() -> None:
    files = sorted(BENCH.rglob("*.py"))
    assert files, "bench/ has no modules"
    offenders = [path.name for path in files if IMPORTS_TESTS.search(path.read_text(encoding="utf-8"))]
    assert offenders == []


def test_the_check_catches_an_import_of_the_tests() -> None:
    assert IMPORTS_TESTS.search("from tests.support import duel")
    assert IMPORTS_TESTS.search('SERVER = "import sys; import tests.support"')
    assert not IMPORTS_TESTS.search("numbers from testsuite runs; from engine.fixtures import duel")
