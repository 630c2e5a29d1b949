"""The HTML replay page: every version is a step, identical pictures are stored once, text is escaped."""

from __future__ import annotations

import json
import re

from clients.replay import Frame, replay_html


def svg(label: str) -> str:
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>{label}</text></svg>'


def test_every_version_is_a_step_and_identical_pictures_are_stored_once() -> None:
    frames = [Frame(1, "created", svg("a")), Frame(2, "joined", svg("a")), Frame(3, "game bid", svg("b"))]
    page = replay_html("a match", frames)
    steps = json.loads(re.search(r"const steps = (.*);", page).group(1))  # type: ignore[union-attr]
    assert [step["v"] for step in steps] == [1, 2, 3]
    assert [step["picture"] for step in steps] == [0, 0, 1]
    assert page.count("<svg") == 2 and 'id="picture-1"' in page


def test_captions_and_titles_cannot_break_out_of_the_page() -> None:
    page = replay_html("<b>x</b>", [Frame(1, "</script><script>alert(1)</script>", svg("a"))])
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert "</script><script>alert(1)" not in page
