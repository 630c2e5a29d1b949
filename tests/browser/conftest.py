"""A real browser for the page tests: Debian's chromium, driven by playwright (never `playwright install`,
which downloads a browser of its own). In CI the browser must be there: the tests fail, never skip."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clients import cli
from engine.registry import shipped
from server.app import Settings
from server.clock import ManualClock
from tests.support.live_http import pages_server  # noqa: F401 (the fixture: each test's server serves pages)
from tests.support.server import ServerThread

GAMES = shipped()
WAIT_MS = 30_000  # a bound on a hang, not a speed requirement
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


@pytest.fixture(scope="module")  # playwright's sync API holds an event loop: never past the browser tests
def browser() -> Iterator[Any]:
    executable = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        missing = f"playwright is not installed ({exc})"
        executable = None
    else:
        missing = "no chromium on PATH (apt-get install chromium)"
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail(f"the browser tests must run in CI: {missing}")
        pytest.skip(missing)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    # Tests evaluate their own expressions, which the live page's Content-Security-Policy forbids.
    context = browser.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=True)
    context.set_default_timeout(WAIT_MS)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert not errors, f"the page raised: {errors}"


@pytest.fixture(scope="session")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerThread, dict[str, str]]]:
    """One server with a whole bot match of each game (shared: playing them is the slow part)."""
    var = tmp_path_factory.mktemp("browser") / "var"
    settings = Settings(address="127.0.0.1:0", var_dir=str(var), clock=ManualClock(), tick_interval=0.05)
    server = ServerThread(settings).start()
    matches = {
        game: json.loads(matchctl(server, "play-bots", "--json", "--game", game, "--seed", "3"))["match"]
        for game in GAMES
    }
    yield server, matches
    server.stop()


def matchctl(server: ServerThread, *args: str) -> str:
    """matchctl's output (it prints; the session fixtures cannot use capsys)."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["--server", server.address, "--var", server.settings.var_dir, *args]) == 0
    return out.getvalue()


@pytest.fixture(scope="session")
def replays(played: tuple[ServerThread, dict[str, str]], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each game's spectator replay page, written to a file as `matchctl replay` prints it."""
    server, matches = played
    folder = tmp_path_factory.mktemp("replays")
    pages = {}
    for game, match_id in matches.items():
        pages[game] = folder / f"{game}.html"
        pages[game].write_text(matchctl(server, "replay", match_id, "--as", "spectator"), encoding="utf-8")
    return pages


@pytest.fixture(scope="session")
def rolled_back(played: tuple[ServerThread, dict[str, str]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished mining match the host rolled back to version 30 (reopening it): its replay page."""
    server, _ = played
    match_id = json.loads(matchctl(server, "play-bots", "--json", "--game", "mining", "--seed", "4"))["match"]
    server.client().rollback(match_id, server.admin_token, 30, "a ruling to take back", reopen=True)
    page = tmp_path_factory.mktemp("rolled") / "rolled-back.html"
    page.write_text(matchctl(server, "replay", match_id, "--as", "spectator"), encoding="utf-8")
    return page


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test in this folder drives the browser: `-m "not browser"` leaves them out."""
    folder = Path(__file__).parent
    for item in items:
        if folder in item.path.parents:
            item.add_marker(pytest.mark.browser)
