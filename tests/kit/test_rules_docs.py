"""docs/rules/<game>.md: every ruling of the game is linked beside a rule, by its number, to that ruling
itself in docs/RULINGS.md (its own anchor, `<a id="ck-2"></a>CK-2`, where it is stated)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
RULING = re.compile(r"\b(?:LG|CK|MN)-P?\d+[a-z]?\b")
PREFIX = {"last-gathering": "LG-", "cookoff": "CK-", "mining": "MN-"}
USED = re.compile(r"\[((?:LG|CK|MN)-P?\d+[a-z]?)\]")
DEFINED = re.compile(r"^\[((?:LG|CK|MN)-P?\d+[a-z]?)\]: \.\./RULINGS\.md#(\S+)$", re.M)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def sections(markdown: str) -> dict[str, str]:
    """Each heading's anchor -> the text under it, to the next heading of the same or a higher level."""
    lines = markdown.splitlines()
    heads = [(i, len(m[1]), m[2]) for i, line in enumerate(lines) if (m := re.match(r"^(#+) (.*)$", line))]
    out: dict[str, str] = {}
    for n, (i, level, title) in enumerate(heads):
        end = next((j for j, lv, _ in heads[n + 1 :] if lv <= level), len(lines))
        out.setdefault(slug(title), "\n".join(lines[i + 1 : end]))
    return out


@pytest.mark.parametrize("game", sorted(PREFIX))
def test_every_ruling_of_the_game_is_linked_to_its_own_ruling(game: str) -> None:
    text = (DOCS / "rules" / f"{game}.md").read_text()
    rulings = (DOCS / "RULINGS.md").read_text()
    anchors = sections(rulings)
    defined = dict(DEFINED.findall(text))
    body = DEFINED.sub("", text)
    used = set(USED.findall(body))
    game_rulings = {r for r in RULING.findall(rulings) if r.startswith(PREFIX[game])}
    assert game_rulings and game_rulings <= used, f"not linked: {sorted(game_rulings - used)}"
    assert used == set(defined), (
        f"used without a link {sorted(used - set(defined))}, unused {sorted(set(defined) - used)}"
    )
    for ruling, anchor in defined.items():
        assert anchor == ruling.lower(), f"{ruling} links to #{anchor}, not to its own ruling #{ruling.lower()}"
        assert f'<a id="{anchor}"></a>{ruling}' in rulings, f"{ruling}: no anchor #{anchor} where it is stated"
    assert anchors  # the sections are still read (the anchor rule below)
    bare = RULING.findall(USED.sub("", body))
    assert not bare, f"rulings named without their link: {sorted(bare)}"


def test_the_anchor_rule_matches_githubs() -> None:
    assert (
        slug("Rulings LG-1 .. LG-12 (from the project's RULINGS.md)")
        == "rulings-lg-1--lg-12-from-the-projects-rulingsmd"
    )
