"""LG-12 (rules version 2): deadlines sit on a grid, the first frame deadline plus whole multiples of
`step_seconds`; a phase opening at t ends at the first grid point at least one period after t.
Rules version 1 keeps LG-P4 (opening time plus duration) for the matches stored under it.

The LG-12 tests play rules version 2, whose first frame deadline is the start plus 54 h as LG-12's
examples read; rules version 3 (LG-13, the current rules) anchors the same grid at noon UTC, and its
tests (test_lg_noon_grid.py) replay these examples from the text's own start, Thursday 06:00 UTC."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from lg_helpers import PLAYERS, everyone, last

from engine import registry
from engine.errors import InvalidConfig
from engine.last_gathering import GAME, RULES_VERSIONS
from engine.last_gathering.board import SPOTS
from engine.last_gathering.game import RULES_V1, RULES_V2, LastGathering
from engine.match import LocalMatch, fold

HOUR = 3600
DAY = 24 * HOUR
FRAMES_DONE = {p: f"bid 0 on frame {f}; end early" for p, f in zip(PLAYERS, ("F1", "F2", "F3", "F4"), strict=True)}
STEP_1_DONE = dict.fromkeys(PLAYERS, "bid 0 cross; end early")


def played_to_step_2(
    game: LastGathering, frames_early_at: float | None, step_1_early_at: float, start: float = 0
) -> LocalMatch:
    """Frames ended early at `frames_early_at` (None: run to the deadline at 54 h), step 1 ended early."""
    match = LocalMatch(game, game.default_config(list(PLAYERS)), 7, now=start)
    if frames_early_at is None:
        match.submit_text("Ann", "bid 0 on frame F1")
        match.advance(start + 54 * HOUR - match.now)  # the others miss it and get random frames (LG-9)
    else:
        match.now = frames_early_at
        everyone(match, FRAMES_DONE)
    assert match.state.step == 1
    match.now = step_1_early_at
    everyone(match, STEP_1_DONE)
    assert match.state.step == 2
    return match


def test_lg12_lg13_the_rules_version_is_3_and_versions_1_and_2_stay_selectable() -> None:
    assert (GAME.rules_version, RULES_V2.rules_version, RULES_V1.rules_version) == ("3", "2", "1")
    assert RULES_VERSIONS == {"1": RULES_V1, "2": RULES_V2}
    assert registry.get_game("last-gathering") is GAME
    assert registry.get_game("last-gathering", "3") is GAME
    assert registry.get_game("last-gathering", "2") is RULES_V2
    assert registry.get_game("last-gathering", "1") is RULES_V1
    with pytest.raises(InvalidConfig, match=r"no rules version '4'.*1, 2, 3"):
        registry.get_game("last-gathering", "4")


def test_lg12_without_early_ends_the_schedule_is_54_hours_then_every_24() -> None:
    match = LocalMatch(RULES_V2, RULES_V2.default_config(list(PLAYERS)), 1)
    deadlines = []
    while not match.finished:
        deadlines.append(RULES_V2.status(match.state).deadline)
        match.expire()
    assert deadlines == [54 * HOUR + n * DAY for n in range(1 + 16)]  # the frame round, then steps 1..16


def test_lg12_step_1_ended_early_at_55_hours_leaves_step_2_open_until_102_hours() -> None:
    """LG-12's first example: the frame round ran to its deadline at 54 h, step 1 ended early at 55 h."""
    match = played_to_step_2(RULES_V2, None, 55 * HOUR)
    assert match.events[-1] == {"type": "step_opened", "step": 2, "deadline": 102 * HOUR}  # 47 h, not 24 h
    match.advance(79 * HOUR - match.now + 1)
    assert match.state.step == 2 and not last(match.events, "step_resolved")["bids"][0]["defaulted"]
    match.advance(102 * HOUR - match.now)
    assert match.state.step == 3 and match.events[-1]["deadline"] == 126 * HOUR  # the grid goes on


def test_lg12_lgp4_rules_version_1_still_ends_that_step_2_at_79_hours() -> None:
    """The same play under rules version 1 (LG-P4): a full day from the early end, as the issue found."""
    match = played_to_step_2(RULES_V1, None, 55 * HOUR)
    assert match.events[-1] == {"type": "step_opened", "step": 2, "deadline": 79 * HOUR}
    match.advance(80 * HOUR - match.now)
    resolved = last(match.events, "step_resolved")
    assert resolved["step"] == 2 and all(b["defaulted"] for b in resolved["bids"])
    assert all(p["defaulted"] for p in resolved["placements"])


def test_lg12_a_frame_round_ended_early_at_1_hour_gives_step_1_until_30_hours() -> None:
    """LG-12's second example: the grid runs back from 54 h too (30 h, 6 h, ...)."""
    match = LocalMatch(RULES_V2, RULES_V2.default_config(list(PLAYERS)), 1)
    match.now = 1 * HOUR
    everyone(match, FRAMES_DONE)
    assert match.events[-1] == {"type": "step_opened", "step": 1, "deadline": 30 * HOUR}  # 29 h, not 25 h
    v1 = LocalMatch(RULES_V1, RULES_V1.default_config(list(PLAYERS)), 1)
    v1.now = 1 * HOUR
    everyone(v1, FRAMES_DONE)
    assert v1.events[-1] == {"type": "step_opened", "step": 1, "deadline": 25 * HOUR}  # LG-P4


def test_lg12_a_phase_is_never_shorter_than_one_period_nor_as_long_as_two() -> None:
    """Early ends at random times, odd periods and an anchor off the whole second: every phase opening at
    t ends on the grid, at least one period after t and less than two; later deadlines never move."""
    chance = random.Random(12)
    for trial in range(40):
        period = chance.choice([10, 24 * HOUR, 7.5, 86400.25])
        first = chance.choice([period * 2.25, 54 * HOUR, 3 * period + 0.1])
        start = 1_000_000.123 * (trial % 3)
        config = RULES_V2.default_config(list(PLAYERS))
        config.update(first_frame_round_seconds=first, frame_round_seconds=period, step_seconds=period)
        match = LocalMatch(RULES_V2, config, trial, now=start)
        anchor = start + first
        assert RULES_V2.status(match.state).deadline == anchor
        while not match.finished:
            deadline = RULES_V2.status(match.state).deadline
            assert deadline is not None
            opened = match.now
            if match.state.step >= 1 or match.state.frame_round > 1:  # every phase after the first
                assert opened + period <= deadline < opened + 2 * period, (trial, opened, deadline)
                periods = (deadline - anchor) / period
                assert abs(periods - round(periods)) < 1e-6, (trial, periods)
            if chance.random() < 0.5:
                match.now = chance.uniform(opened, deadline)
                acting = sorted(RULES_V2.status(match.state).awaiting)
                texts = {p: _everything(match, p) for p in acting}
                everyone(match, texts)
            else:
                match.expire()  # a timeout at the deadline itself opens a phase of exactly one period


def _everything(match: LocalMatch, player: str) -> str:
    state = match.state
    if state.step == 0:
        return f"bid 0 on frame {state.open_frames[sorted(GAME.status(state).awaiting).index(player)]}; end early"
    parts = []
    if state.auction_open:
        parts.append(f"bid 0 {state.available_kinds[0]}")
    if state.placement_open:
        spot = next(s for s, tile in zip(SPOTS, state.player(player).board, strict=True) if tile is None)
        parts.append(f"place {spot}")
    return "; ".join([*parts, "end early"])


def test_lg12_a_timeout_at_its_deadline_opens_a_phase_of_exactly_one_period() -> None:
    config = GAME.default_config(list(PLAYERS))
    config.update(first_frame_round_seconds=0.3, frame_round_seconds=0.1, step_seconds=0.1)
    match = LocalMatch(GAME, config, 3, now=1_764_000_000.7)
    for _ in range(10):
        opened = GAME.status(match.state).deadline
        match.expire()
        assert GAME.status(match.state).deadline == pytest.approx(opened + 0.1, abs=1e-5)


def test_lg12_first_deadline_at_anchors_the_grid_at_a_utc_time() -> None:
    """A host gives the first deadline as Saturday 12:00 UTC; the grid is noon UTC every day after it."""
    thursday_6 = datetime(2026, 12, 3, 6, 0, tzinfo=UTC).timestamp()
    saturday_noon = datetime(2026, 12, 5, 12, 0, tzinfo=UTC).timestamp()
    config = GAME.default_config(list(PLAYERS))
    config["first_deadline_at"] = "2026-12-05T12:00:00Z"
    match = LocalMatch(GAME, config, 5, now=thursday_6 + 1234.5)
    assert match.events == [{"type": "frame_round_opened", "round": 1, "deadline": saturday_noon}]
    match.now = saturday_noon - 40 * HOUR  # the frame round ends early, on Friday 20:00
    everyone(match, FRAMES_DONE)
    assert match.events[-1]["deadline"] == saturday_noon  # at least a day, on the noon grid
    match.expire()
    match.now += 3 * HOUR
    everyone(match, dict.fromkeys(PLAYERS, "bid 0 end; place A1; end early"))
    assert match.events[-1]["deadline"] == saturday_noon + 2 * DAY  # Monday noon: 45 h
    same = dict(config, first_deadline_at="2026-12-05T12:00:00+00:00")
    assert LocalMatch(GAME, same, 5, now=thursday_6).events == match.events[:1]


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("Saturday noon", "first_deadline_at must be a UTC time written like"),
        (1764936000, "first_deadline_at must be a UTC time written like"),
        ("2026-12-05T12:00:00", "first_deadline_at must be in UTC"),
        ("2026-12-05T13:00:00+01:00", "first_deadline_at must be in UTC"),
    ],
)
def test_lg12_first_deadline_at_must_be_a_utc_time(value: object, says: str) -> None:
    config = GAME.default_config(list(PLAYERS))
    config["first_deadline_at"] = value
    with pytest.raises(InvalidConfig, match=says):
        GAME.initial_state(config, 1)


def test_lg12_first_deadline_at_must_be_after_the_start_and_is_not_a_key_of_rules_version_1() -> None:
    config = GAME.default_config(list(PLAYERS))
    config["first_deadline_at"] = "2026-12-05T12:00:00Z"
    late = datetime(2026, 12, 5, 12, 0, tzinfo=UTC).timestamp()
    with pytest.raises(InvalidConfig, match=r"first_deadline_at .* not after the match's start"):
        LocalMatch(GAME, config, 1, now=late)
    assert "first_deadline_at" not in RULES_V1.default_config(list(PLAYERS))
    with pytest.raises(InvalidConfig, match="first_deadline_at is a key of rules version 2"):
        RULES_V1.initial_state(config, 1)


def test_lg12_lgp4_a_stored_version_1_match_with_an_early_end_replays_and_plays_on_under_version_1() -> None:
    """Events recorded under version 1 fold the same under either version; a version 1 match decides its
    next deadlines by LG-P4 still, a version 2 match by LG-12."""
    v1 = played_to_step_2(RULES_V1, 1 * HOUR, 26 * HOUR)
    config = RULES_V1.default_config(list(PLAYERS))
    assert fold(RULES_V1, RULES_V1.initial_state(config, 7), v1.events) == v1.state
    assert [e["deadline"] for e in v1.events if "deadline" in e] == [54 * HOUR, 25 * HOUR, 50 * HOUR]
    v2 = played_to_step_2(RULES_V2, 1 * HOUR, 26 * HOUR)
    assert [e["deadline"] for e in v2.events if "deadline" in e] == [54 * HOUR, 30 * HOUR, 54 * HOUR]
