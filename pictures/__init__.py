"""Pictures of a match for people: each game's board as SVG, drawn from a view (the JSON a viewer
receives), so a picture can never show more than that viewer may see."""

from __future__ import annotations

import importlib
from typing import Any

RENDERERS = {
    "last-gathering": "pictures.last_gathering",
    "cookoff": "pictures.cookoff",
    "mining": "pictures.mining",
}


def render_svg(game: str, view: dict[str, Any]) -> str:
    """A self-contained SVG document of `view` (a view of a match of `game`)."""
    if game not in RENDERERS:
        raise KeyError(f"no pictures for {game!r}; pictures exist for: {', '.join(RENDERERS)}")
    svg: str = importlib.import_module(RENDERERS[game]).render_svg(view)
    return svg
