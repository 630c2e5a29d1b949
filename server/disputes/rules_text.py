"""Our words for each rule a ruling's trace names: the rulings table of docs/RULINGS.md, read once, so a
host reviewing a dispute sees each rule id (CK-5, LG-10, MN-3, ...) with the words we hold it to and the
anchor it is pinned at."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

RULINGS = Path(__file__).resolve().parents[2] / "docs" / "RULINGS.md"
ROW = re.compile(r'^\| <a id="([a-z0-9-]+)"></a>([A-Z]{2}-[0-9]+[a-z]?) \| ([^|]*) \|', re.MULTILINE)
RULE_ID = re.compile(r"\b([A-Z]{2}-[0-9]+[a-z]?)\b")


@functools.cache
def rulings() -> dict[str, tuple[str, str]]:
    """Rule id -> (anchor, our words). Empty when the docs are not beside the code (an installed wheel)."""
    try:
        text = RULINGS.read_text(encoding="utf-8")
    except OSError:
        return {}
    return {rule: (anchor, words.strip()) for anchor, rule, words in ROW.findall(text)}


def rule_links(game: str, lines: list[str]) -> list[dict[str, Any]]:
    """Each rule id the lines name, once, with our words and its anchor in docs/RULINGS.md."""
    known = rulings()
    seen: list[str] = []
    for line in lines:
        for rule in RULE_ID.findall(str(line)):
            if rule not in seen:
                seen.append(rule)
    return [
        {
            "id": rule,
            "words": known[rule][1] if rule in known else "",
            "anchor": f"docs/RULINGS.md#{known[rule][0]}" if rule in known else "",
        }
        for rule in seen
    ]
