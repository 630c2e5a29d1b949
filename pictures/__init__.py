"""Pictures of a match for people: each game's board as SVG, drawn from a view (the JSON a viewer
receives), so a picture can never show more than that viewer may see.

A game's pictures are `pictures/<package>.py` (engine.registry.package_of), with `render_svg(view)`.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from engine import registry


def _renderers() -> dict[str, str]:
    """{game: module} for every shipped game that has a pictures module."""
    modules = {name: f"pictures.{registry.package_of(name)}" for name in registry.shipped()}
    return {name: module for name, module in modules.items() if importlib.util.find_spec(module) is not None}


RENDERERS = _renderers()  # a mapping, not a table: a test adds its fixture game's module to it


def render_svg(game: str, view: dict[str, Any]) -> str:
    """A self-contained SVG document of `view` (a view of a match of `game`)."""
    if game not in RENDERERS:
        raise KeyError(f"no pictures for {game!r}; pictures exist for: {', '.join(RENDERERS)}")
    svg: str = importlib.import_module(RENDERERS[game]).render_svg(view)
    return svg
