"""What a Last Gathering state holds is kept small without changing what it answers: matches with the same
frames share one parsed value, and the final scoring is kept as its text (bench/memory.py's figure)."""

from __future__ import annotations

import json
from typing import Any

from bench.bot_records import bot_match_records
from engine.last_gathering import GAME
from engine.last_gathering.state import Phase, State


def folded(records: list[dict[str, Any]]) -> State:
    state = GAME.initial_state(records[0]["config"], int(records[0]["seed"]))
    for record in records[1:]:
        if record.get("kind") == "game":
            state = GAME.evolve(state, record["event"])
    return state


def test_matches_with_the_same_frames_share_them_and_other_frames_are_their_own() -> None:
    first = GAME.initial_state(GAME.default_config(["ann", "bob"]), 1)
    second = GAME.initial_state(GAME.default_config(["cat", "dan", "eve"]), 2)
    assert first.config.frames is second.config.frames
    mine = GAME.default_config(["ann", "bob"])
    mine["frames"] = {"one": ["N1", "E2"], "two": ["S3"], "three": ["W4", "N2"]}
    own = GAME.initial_state(mine, 3).config.frames
    assert own == (("one", frozenset({"N1", "E2"})), ("two", frozenset({"S3"})), ("three", frozenset({"W4", "N2"})))


def test_a_finished_match_keeps_its_final_scoring_as_text_and_its_results_read_the_event() -> None:
    records = bot_match_records("last-gathering", seed=3)
    state = folded(records)
    assert state.phase is Phase.OVER and isinstance(state.final, str)
    event = next(r["event"] for r in records if r.get("kind") == "game" and r["event"]["type"] == "match_finished")
    rows = GAME.results(state)["results"]
    scores = {s["player"]: s for s in event["scores"]}
    assert [row["player"] for row in rows] == event["ranking"]
    for row in rows:
        assert row["score"] == scores[row["player"]]["score"]
        assert row["regions"] == scores[row["player"]]["regions"]
        assert row["lake"] == event["lakes"][row["player"]]
    rows[0]["regions"].clear()  # a caller's copy: the state's text is untouched
    assert json.loads(state.final) == event
