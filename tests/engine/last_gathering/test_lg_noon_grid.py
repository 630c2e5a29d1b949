"""LG-13 (rules version 3): with the default period of a day, LG-12's grid sits at noon UTC, the text's
"usual time": the first frame round ends at the first noon UTC at least 48 hours after the start, unless
the host gives its own period or first deadline. Matches recorded before keep their deadlines."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from lg_helpers import PLAYERS, everyone

from engine.last_gathering import GAME
from engine.last_gathering.game import RULES_V2
from engine.match import LocalMatch, fold

HOUR = 3600
DAY = 24 * HOUR
FRAMES_DONE = {p: f"bid 0 on frame {f}; end early" for p, f in zip(PLAYERS, ("F1", "F2", "F3", "F4"), strict=True)}
STEP_1_DONE = dict.fromkeys(PLAYERS, "bid 0 cross; end early")


def utc(day: int, hour: int, minute: int = 0, second: int = 0) -> float:
    return datetime(2026, 12, day, hour, minute, second, tzinfo=UTC).timestamp()


def first_deadline(start: float, **config: object) -> float:
    settings = GAME.default_config(list(PLAYERS))
    settings.update(config)
    match = LocalMatch(GAME, settings, 1, now=start)
    return float(match.events[0]["deadline"])


@pytest.mark.parametrize(
    ("start", "deadline", "why"),
    [
        (utc(3, 6), utc(5, 12), "the text's match: Thursday 06:00 to Saturday noon, 54 h"),
        (utc(3, 12), utc(5, 12), "exactly 48 h: that noon"),
        (utc(3, 12, 0, 1), utc(6, 12), "a second after noon: the noon after, 72 h less a second"),
        (utc(2, 23), utc(5, 12), "Wednesday 23:00: 61 h"),
        (utc(3, 0), utc(5, 12), "midnight: 60 h"),
    ],
)
def test_lg13_the_first_frame_round_ends_at_the_first_noon_utc_48_hours_or_more_after_the_start(
    start: float, deadline: float, why: str
) -> None:
    assert first_deadline(start) == deadline, why
    assert 48 * HOUR <= deadline - start < 72 * HOUR


def test_lg13_without_early_ends_every_deadline_is_noon_utc() -> None:
    match = LocalMatch(GAME, GAME.default_config(list(PLAYERS)), 3, now=utc(3, 6))
    deadlines = []
    while not match.finished:
        deadlines.append(GAME.status(match.state).deadline)
        match.expire()
    assert deadlines == [utc(5, 12) + n * DAY for n in range(17)]  # the frame round, then steps 1..16


def test_lg13_from_the_texts_start_lg12s_examples_come_out_as_written() -> None:
    """Thursday 06:00 UTC: step 1 ended early at 55 h leaves step 2 open until 102 h; a frame round ended
    early at 1 h gives step 1 until 30 h (LG-12's examples, hours after the start)."""
    start = utc(3, 6)
    match = LocalMatch(GAME, GAME.default_config(list(PLAYERS)), 7, now=start)
    match.submit_text("Ann", "bid 0 on frame F1")
    match.advance(54 * HOUR)
    match.now = start + 55 * HOUR
    everyone(match, STEP_1_DONE)
    assert match.events[-1] == {"type": "step_opened", "step": 2, "deadline": start + 102 * HOUR}
    early = LocalMatch(GAME, GAME.default_config(list(PLAYERS)), 7, now=start)
    early.now = start + 1 * HOUR
    everyone(early, FRAMES_DONE)
    assert early.events[-1] == {"type": "step_opened", "step": 1, "deadline": start + 30 * HOUR}


def test_lg13_a_hosts_own_period_or_first_deadline_replaces_noon() -> None:
    start = utc(3, 6, 30)
    assert first_deadline(start, step_seconds=12 * HOUR) == start + 48 * HOUR  # LG-12 from the start
    assert first_deadline(start, first_deadline_at="2026-12-07T18:00:00Z") == utc(7, 18)
    assert first_deadline(start, first_frame_round_seconds=60 * HOUR) == utc(6, 12)  # at least 60 h, then noon
    assert first_deadline(start, first_frame_round_seconds=10) == utc(3, 12)  # short first rounds too


def test_lg13_a_match_recorded_under_rules_version_2_keeps_its_deadlines() -> None:
    """The version bump: a version 2 match's recorded 54 h deadline folds and is re-decided the same under
    version 2 (what verify does), while version 3 would have decided noon; its later phases stay on its
    own grid."""
    start = utc(3, 0)
    config = RULES_V2.default_config(list(PLAYERS))
    v2 = LocalMatch(RULES_V2, config, 7, now=start)
    assert v2.events == [{"type": "frame_round_opened", "round": 1, "deadline": start + 54 * HOUR}]
    assert RULES_V2.start(RULES_V2.initial_state(config, 7), v2._ctx(start)) == v2.events
    assert GAME.start(GAME.initial_state(GAME.default_config(list(PLAYERS)), 7), v2._ctx(start)) != v2.events
    v2.expire()
    assert v2.events[-1]["deadline"] == start + 54 * HOUR + DAY  # 06:00 UTC, not noon
    assert fold(RULES_V2, RULES_V2.initial_state(config, 7), v2.events) == v2.state
    assert "first_frame_round_seconds" in config and config["first_frame_round_seconds"] == 54 * HOUR
