"""The layering rule: engine/ imports only the standard library and itself."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN_CALLS = {("time", "time"), ("time", "monotonic"), ("datetime", "now"), ("random", "random")}


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_engine_imports_only_the_standard_library_and_itself() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert files, "engine/ has no modules"
    offenders = {
        str(path.relative_to(ENGINE)): sorted(
            root for root in imported_roots(path) if root != "engine" and root not in sys.stdlib_module_names
        )
        for path in files
    }
    assert {name: roots for name, roots in offenders.items() if roots} == {}


def test_the_import_check_catches_a_third_party_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import grpc\nfrom eventsourcing.domain import Aggregate\nimport json\n")
    assert imported_roots(bad) - set(sys.stdlib_module_names) == {"grpc", "eventsourcing"}


def test_engine_never_reads_the_wall_clock() -> None:
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                assert (node.value.id, node.attr) not in FORBIDDEN_CALLS, f"{path}: {node.value.id}.{node.attr}"
