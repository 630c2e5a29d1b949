"""docs/SECURITY.md shows each claim by a test: every test it names exists, and every limit setting of
server.limits.Limits, StreamLimits and HostQuotas is in it."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from server.access import HostQuotas
from server.arena.service import ArenaSettings
from server.limits import Limits
from server.streams import StreamLimits

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "SECURITY.md").read_text()


def test_every_test_the_security_page_names_exists() -> None:
    named = set(re.findall(r"`(test_[a-z0-9_]+)`", DOC))
    defined = {
        name
        for path in (ROOT / "tests").rglob("test_*.py")
        for name in re.findall(r"^def (test_\w+)", path.read_text(), re.M)
    }
    assert len(named) > 40
    assert sorted(named - defined) == []


def test_every_named_setting_is_on_the_security_page() -> None:
    settings = [f.name for cls in (Limits, StreamLimits, HostQuotas, ArenaSettings) for f in dataclasses.fields(cls)]
    missing = [name for name in settings if name not in DOC]
    assert missing == []
