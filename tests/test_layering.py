"""Fitness tests, one per layering rule docs/ARCHITECTURE.md states (the engine's own purity is pinned in
tests/engine/test_engine_is_pure.py). Each walks the import statements of the tree, so a new module
that breaks a rule fails here, whoever writes it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def imported(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


def importers(folder: str, prefix: str) -> set[str]:
    return {
        str(path.relative_to(ROOT))
        for path in modules(folder)
        if any(name == prefix or name.startswith(prefix + ".") for name in imported(path))
    }


def test_only_the_store_module_imports_eventsourcing() -> None:
    assert importers("server", "eventsourcing") == {"server/store.py"}
    assert importers("clients", "eventsourcing") == importers("pictures", "eventsourcing") == set()


def test_only_the_grpc_package_imports_generated_code_in_the_server() -> None:
    outside = {path for path in importers("server", "matchserver") if not path.startswith("server/grpc/")}
    assert outside == set()


def test_clients_and_pictures_never_import_the_server() -> None:
    assert importers("clients", "server") == set()
    assert importers("pictures", "server") == set()


def test_the_application_never_imports_the_grpc_edge() -> None:
    """The edge calls the application; nothing below it calls back up."""
    below = [p for p in modules("server") if not p.is_relative_to(ROOT / "server/grpc")]
    assert {str(p.relative_to(ROOT)) for p in below if any(n.startswith("server.grpc") for n in imported(p))} <= {
        "server/app.py"  # the wiring
    }


def test_nothing_in_the_core_names_the_arena() -> None:
    """The core knows "a seat held by an identity" (server/identities.py names its record fields); the
    arena is wired to it in server/app.py and hears the bus."""
    core = [p for p in (ROOT / "server").glob("*.py") if p.name not in ("app.py", "identities.py")]
    core += modules("server/application")
    named: list[str] = []
    for path in core:
        tree = ast.parse(path.read_text(), str(path))
        if any(name.startswith("server.arena") for name in imported(path)):
            named.append(f"{path.name} imports the arena")
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in ("arena", "bots"):
                named.append(f"{path.name}:{node.lineno} reads the field {node.value!r}")
            if isinstance(node, ast.Attribute) and "arena" in node.attr:
                named.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert named == []


def test_no_file_in_the_server_is_over_400_lines_and_no_class_over_300() -> None:
    long_files = {}
    long_classes = {}
    for path in modules("server"):
        text = path.read_text()
        if text.count("\n") > 400:
            long_files[str(path.relative_to(ROOT))] = text.count("\n")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno and node.end_lineno - node.lineno + 1 > 300:
                long_classes[f"{path.name}:{node.name}"] = node.end_lineno - node.lineno + 1
    assert long_files == {}
    assert long_classes == {}


def test_benches_do_not_import_the_tests() -> None:
    assert importers("bench", "tests") == set()
