"""The replay page as a spectator sees it, in a real browser: keyboard stepping, play, the audit's
captions, SVG controls, and a screenshot of each game under var/screenshots/ for people to look at."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pictures.pack import unpack
from pictures.page import data_of
from tests.browser.conftest import GAMES, SCREENSHOTS
from tests.support.server import ServerThread


def step(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.step"))


def go_to(page: Any, index: int) -> None:
    page.evaluate(f"show({index})")
    page.wait_for_function(f"document.body.dataset.step === '{index}'")


@pytest.mark.parametrize("game", GAMES)
def test_each_game_is_drawn_and_a_screenshot_is_kept(page: Any, replays: dict[str, Path], game: str) -> None:
    page.goto(replays[game].as_uri())
    page.wait_for_selector("#picture svg")
    box = page.locator("#picture svg").bounding_box()
    assert box["width"] > 600 and box["height"] > 300
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"replay-{game}.png"), full_page=True)
    assert page.locator("#picture .legend text").count() >= 2, "every game's picture has a legend"
    data = data_of(replays[game].read_text())
    expected = unpack(data["fragments"], data["pictures"])
    sample = [*range(0, len(expected), 7), len(expected) - 1]
    decoded = page.evaluate(f"{sample}.map(i => pictures[i].map(n => fragments[n]).join(''))")
    assert decoded == [expected[i] for i in sample], "the page unpacks the pictures as replay_pack does"


def test_arrow_keys_move_exactly_one_version_wherever_the_focus_is(page: Any, replays: dict[str, Path]) -> None:
    page.goto(replays["cookoff"].as_uri())
    page.wait_for_selector("#picture svg")
    go_to(page, 10)
    page.focus("#slider")  # a focused range input moves itself on arrows too: the page must not add a step
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.body.dataset.step !== '10'")
    assert step(page) == 11
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("document.body.dataset.step === '9'")
    assert page.evaluate("Number(document.getElementById('slider').value)") == 9
    page.click("#next")  # a focused button, then a key
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.body.dataset.step !== '10'")
    assert step(page) == 11
    page.keyboard.press("Home")
    page.wait_for_function("document.body.dataset.step === '0'")


def test_controls_are_drawn_in_svg_so_any_font_shows_them(page: Any, replays: dict[str, Path]) -> None:
    page.goto(replays["mining"].as_uri())
    for name in ("first", "prev", "play", "next", "last"):
        button = page.locator(f"#{name}")
        assert button.inner_text().strip() == "", "no glyph that a font may lack"
        icon = button.locator("svg path:visible").first.bounding_box()
        assert icon["width"] >= 8 and icon["height"] >= 8


def test_play_advances_and_pause_stops(page: Any, replays: dict[str, Path]) -> None:
    page.goto(replays["last-gathering"].as_uri())
    page.wait_for_selector("#picture svg")
    go_to(page, 0)
    page.select_option("#speed", "8")
    page.click("#play")
    page.wait_for_function("Number(document.body.dataset.step) >= 3")
    page.keyboard.press(" ")
    page.wait_for_function("document.body.dataset.playing === '0'")
    stopped = step(page)
    page.keyboard.press("ArrowRight")  # stepping still works once paused, and from where it stopped
    page.wait_for_function(f"document.body.dataset.step === '{stopped + 1}'")


def test_captions_are_the_audit_trace_in_plain_words(
    page: Any, replays: dict[str, Path], played: tuple[ServerThread, dict[str, str]]
) -> None:
    server, matches = played
    audit = {entry.version: entry for entry in server.client().audit(matches["cookoff"])}
    page.goto(replays["cookoff"].as_uri())
    page.wait_for_selector("#picture svg")
    steps = data_of(replays["cookoff"].read_text())["steps"]
    explained = [i for i, s in enumerate(steps) if s["v"] in audit and audit[s["v"]].kind == "game"]
    assert len(explained) > 10
    ruled = 0
    for index in explained[:: max(1, len(explained) // 12)]:
        go_to(page, index)
        shown = page.inner_text("#caption")
        for line in audit[steps[index]["v"]].lines:
            assert line in shown
        ruled += bool(re.search(r"\bCK-\d", shown))
        assert not re.fullmatch(r"\s*game \w+\s*", shown), "a raw event type is not a caption"
    assert ruled, "the captions carry the rule numbers of the trace"


def test_jump_lists_rounds_and_phases(page: Any, replays: dict[str, Path]) -> None:
    page.goto(replays["cookoff"].as_uri())
    page.wait_for_selector("#picture svg")
    options = page.eval_on_selector_all("#jump option", "os => os.map(o => [o.textContent, o.value])")
    assert len(options) > 3 and any(text.startswith("round 2") for text, _ in options)
    _text, value = next(option for option in options if option[0].startswith("round 2"))
    page.select_option("#jump", value)
    page.wait_for_function(f"document.body.dataset.step === '{value}'")


def test_the_mining_table_is_readable_at_1400_pixels(page: Any, replays: dict[str, Path]) -> None:
    page.goto(replays["mining"].as_uri())
    page.wait_for_selector("#picture svg")
    sizes = page.eval_on_selector_all(
        ".player-row text",
        """texts => texts.map(t => {
            const svg = t.ownerSVGElement, scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return parseFloat(getComputedStyle(t).fontSize) * scale;
        })""",
    )
    assert len(sizes) > 10 and min(sizes) >= 11.5, f"table text drawn at {min(sizes):.1f} px"


def test_a_rollback_shows_the_retracted_versions_as_a_branch(page: Any, rolled_back: Path) -> None:
    steps = data_of(rolled_back.read_text())["steps"]
    retracted = [i for i, s in enumerate(steps) if s.get("r")]
    assert retracted == list(range(30, len(steps) - 1)), "versions 31.. up to the rollback are retracted"
    page.goto(rolled_back.as_uri())
    page.wait_for_selector("#picture svg")
    assert page.locator("#timeline line.branch").count() == len(retracted)
    branch_y = page.eval_on_selector_all("#timeline line.branch", "ls => ls.map(l => l.getBBox().y)")
    main_y = page.eval_on_selector_all("#timeline line.tick", "ls => ls.map(l => l.getBBox().y)")
    assert min(branch_y) > max(main_y), "the branch hangs below the main line"
    go_to(page, retracted[0])
    assert "retracted" in (page.get_attribute("#caption", "class") or "")
    assert "retracted" in page.inner_text("#caption")
    page.keyboard.press("End")
    page.wait_for_function(f"document.body.dataset.step === '{len(steps) - 1}'")
    assert "rolled back to version 30" in page.inner_text("#caption")
    assert "retracted" not in (page.get_attribute("#caption", "class") or "")
