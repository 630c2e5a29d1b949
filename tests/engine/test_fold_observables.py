"""Everything a fold shows is pinned: views, redactions, status and results at every version.

The fold (`evolve`) is tuned for speed (issue 12: ≥ 100k events/s per game), and a speed-up must change
nothing anyone can see. For every golden script of every game under every rules version, each version
of the match is digested: each event as every viewer sees it (`redact`), then every viewer's `view`,
the `status` and the `results` after it. fold_observables.json holds the digests written by the engine
before the fold was tuned; a test failure names the first version that differs.

Regenerate (only when a change of what is shown is intended):
`.venv/bin/python tests/engine/test_fold_observables.py --write`
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import registry
from engine.contract import Game, Viewer
from engine.match import LocalMatch
from engine.transcript import build_config, play_script, script_header

HERE = Path(__file__).resolve().parent
GOLDEN = HERE.parent / "golden"
PINNED = HERE / "fold_observables.json"
FOLDERS = {name: registry.package_of(name) for name in registry.shipped()}


def rules(game_name: str) -> list[Game]:
    module = importlib.import_module(f"engine.{registry.package_of(game_name)}")
    return [module.GAME, *getattr(module, "RULES_VERSIONS", {}).values()]


def cases() -> list[tuple[str, str, str]]:
    return [
        (game_name, game.rules_version, script.name)
        for game_name, folder in FOLDERS.items()
        for game in rules(game_name)
        for script in sorted((GOLDEN / folder).glob("*.txt"))
    ]


def plain(value: Any) -> Any:
    """JSON-plain with sets sorted, so a digest does not depend on the hash seed."""
    if isinstance(value, frozenset | set):
        return sorted(value)
    return value


def digests(game_name: str, rules_version: str, script: str) -> list[str]:
    """One short digest per version of the golden match (version 1 is after the first event)."""
    game = registry.get_game(game_name, rules_version)
    lines = (GOLDEN / FOLDERS[game_name] / script).read_text().splitlines()
    seed, players = script_header(lines)
    config = build_config(game, players, None)
    events = play_script(game, LocalMatch(game, config, seed), lines).events
    viewers = [Viewer.host(), Viewer.spectator(), *(Viewer.of(p) for p in players)]
    state = game.initial_state(config, seed)
    out = []
    for event in events:
        seen = [game.redact(state, event, viewer) for viewer in viewers]
        state = game.evolve(state, event)
        status = game.status(state)
        shown = {
            "redacted": seen,
            "views": [game.view(state, viewer) for viewer in viewers],
            "status": {name: plain(getattr(status, name)) for name in status.__slots__},
            "results": game.results(state),
        }
        text = json.dumps(shown, sort_keys=True, default=plain)
        out.append(hashlib.sha256(text.encode()).hexdigest()[:16])
    return out


def key(game_name: str, rules_version: str, script: str) -> str:
    return f"{game_name} rules {rules_version} {script}"


@pytest.mark.parametrize(("game_name", "rules_version", "script"), cases())
def test_every_version_of_a_golden_match_shows_what_it_showed(game_name: str, rules_version: str, script: str) -> None:
    pinned = json.loads(PINNED.read_text())[key(game_name, rules_version, script)]
    now = digests(game_name, rules_version, script)
    assert len(now) == len(pinned)
    first_difference = next((v for v, (a, b) in enumerate(zip(pinned, now, strict=True), start=1) if a != b), None)
    assert first_difference is None, f"what is shown at version {first_difference} changed"


if __name__ == "__main__" and "--write" in sys.argv:
    PINNED.write_text(json.dumps({key(*case): digests(*case) for case in cases()}, indent=1) + "\n")
    print(f"wrote {PINNED}")
