"""Every registered game follows the one template (engine/README.md, "Adding a game"): its package has
the template's modules with their roles, its phases are a StrEnum, its facts are on its Game, and its
pictures, bots and protos are where the convention puts them, found by the package's name."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import re
from enum import StrEnum
from pathlib import Path

import pytest

from engine import registry

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ("game", "rules", "state", "commands", "views", "text", "config")
FORMATS = ("round-robin", "rotation")  # the arena's formats (server/arena/tournament.py)
GAMES = registry.shipped()


def _package(name: str) -> str:
    return f"engine.{registry.package_of(name)}"


@pytest.mark.parametrize("name", GAMES)
def test_a_game_package_has_the_template_modules(name: str) -> None:
    missing = [m for m in TEMPLATE if importlib.util.find_spec(f"{_package(name)}.{m}") is None]
    assert missing == [], f"{name} lacks engine/{registry.package_of(name)}/{{{','.join(missing)}}}.py"


@pytest.mark.parametrize("name", GAMES)
def test_a_game_package_exports_only_its_game_and_rules_versions(name: str) -> None:
    package = importlib.import_module(_package(name))
    exported = {key for key, value in vars(package).items() if not key.startswith("_") and not inspect.ismodule(value)}
    assert exported == {"GAME", "RULES_VERSIONS"}
    assert type(package.GAME).__module__ == f"{_package(name)}.game", "the Game's class lives in game.py"
    assert all(game.name == name for game in package.RULES_VERSIONS.values())


@pytest.mark.parametrize("name", GAMES)
def test_a_game_decides_in_rules_py(name: str) -> None:
    rules = importlib.import_module(f"{_package(name)}.rules")
    assert all(callable(getattr(rules, f, None)) for f in ("start", "decide", "timeout", "evolve"))


@pytest.mark.parametrize("name", GAMES)
def test_a_game_writes_its_forms_in_text_py_and_its_example_in_rules_py(name: str) -> None:
    text = importlib.import_module(f"{_package(name)}.text")
    rules = importlib.import_module(f"{_package(name)}.rules")
    assert callable(getattr(text, "forms", None)) and callable(getattr(rules, "example_command", None))
    game = registry.get_game(name)
    assert callable(game.forms) and callable(game.example)


@pytest.mark.parametrize("name", GAMES)
def test_a_game_names_its_phases_in_a_strenum_that_its_state_holds(name: str) -> None:
    state = importlib.import_module(f"{_package(name)}.state")
    assert issubclass(state.Phase, StrEnum)
    field = next(f for f in dataclasses.fields(state.State) if f.name == "phase")
    assert isinstance(field.default, state.Phase)
    game = registry.get_game(name)
    initial = game.initial_state(game.default_config(registry.seats(name)), 1)
    assert isinstance(initial.phase, state.Phase)


@pytest.mark.parametrize("name", GAMES)
def test_a_game_carries_its_facts(name: str) -> None:
    game = registry.get_game(name)
    assert game.default_seats in game.allowed_seats
    assert game.arena_formats and set(game.arena_formats) <= set(FORMATS)
    proto = (ROOT / "protos" / "matchserver" / "v1" / "matchserver.proto").read_text()
    oneof = re.search(r"message GameCommand \{\s*oneof game \{([^}]*)\}", proto)
    assert oneof is not None
    package = registry.package_of(name)
    assert f"matchserver.{package}.v1.Command {game.wire_field} = " in oneof.group(1)
    assert (ROOT / "protos" / "matchserver" / package).is_dir()


@pytest.mark.parametrize("name", GAMES)
def test_a_game_has_pictures_and_bots_by_its_package_name(name: str) -> None:
    import clients.bots
    import pictures

    package = registry.package_of(name)
    drawing = importlib.import_module(f"pictures.{package}")
    assert callable(drawing.render_svg) and pictures.RENDERERS[name] == f"pictures.{package}"
    bots = importlib.import_module(f"clients.bots.{package}")
    assert bots.NAMES and all(callable(getattr(bots, bot)) for bot in bots.NAMES)
    assert clients.bots.bot_names(name) == bots.NAMES


def test_no_other_module_keeps_a_list_of_the_games() -> None:
    """The games' names appear together only in engine/registry.py (a fourth game edits one line there)."""
    quoted = [f'"{name}"' for name in GAMES]
    offenders = []
    for folder in ("engine", "pictures", "clients/bots", "clients/examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text()
            if path != ROOT / "engine" / "registry.py" and all(name in text for name in quoted):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
