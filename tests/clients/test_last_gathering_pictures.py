"""The Last Gathering's SVG picture: well formed for every viewer and phase, boards drawn per LG-1..LG-7,
sealed orders only in their owner's picture, and the same view always gives the same bytes."""

from __future__ import annotations

import copy
import random
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import pytest

from clients.bots.last_gathering import greedy_bot, random_bot
from engine.contract import Viewer
from engine.last_gathering import GAME
from engine.last_gathering.board import ROTATIONS, frame_spoke_at, spokes
from engine.last_gathering.config import KINDS
from engine.match import LocalMatch
from pictures import render_svg as render_for_game
from pictures.last_gathering import (
    extra_sheep_spot,
    frame_spoke_segment,
    render_svg,
    section_quadrants,
    tile_spokes,
)

PLAYERS = ("Ann", "Bob", "Cy", "Di")
SVG = "{http://www.w3.org/2000/svg}"
Bot = Callable[[dict[str, Any], str, random.Random], str | None]


def new_match(players: tuple[str, ...] = PLAYERS, seed: int = 1) -> LocalMatch:
    return LocalMatch(GAME, GAME.default_config(list(players)), seed)


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert root.get("width") and root.get("height") and root.get("viewBox")
    return root


def with_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


def boards(root: ET.Element) -> dict[str, ET.Element]:
    return {str(g.get("data-player")): g for g in with_class(root, "board")}


def text_of(root: ET.Element) -> str:
    return " ".join(root.itertext())


def picture(match: LocalMatch, viewer: Viewer) -> ET.Element:
    return parse(render_svg(GAME.view(match.state, viewer)))


def play(match: LocalMatch, bots: dict[str, Bot], rng: random.Random, every: Callable[[], None]) -> None:
    """The bots play the match to its end; `every` runs after each submission or deadline."""
    while not match.finished:
        acted = False
        for player in sorted(GAME.status(match.state).awaiting):
            text = bots[player](GAME.view(match.state, Viewer.of(player)), player, rng)
            if text is not None:
                match.submit_text(player, text)
                acted = True
                every()
                if match.finished:
                    break
        if not acted:
            match.expire()
            every()


def frames_done(match: LocalMatch) -> None:
    """Ann gets F2 (all 16 frame spokes), Bob F1 (none), Cy F3 (8), Di F4 (8); the match reaches step 1."""
    for player, frame in zip(PLAYERS, ("F2", "F1", "F3", "F4"), strict=True):
        match.submit_text(player, f"bid 0 on frame {frame}; end early")
    assert match.state.step == 1


# ---------------------------------------------------------------- whole matches


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_few_events_of_a_bot_match_renders_for_a_spectator_a_player_and_the_host(seed: int) -> None:
    match = new_match(seed=seed)
    bots: dict[str, Bot] = {p: (greedy_bot if i % 2 else random_bot) for i, p in enumerate(PLAYERS)}
    phases: set[str] = set()
    rendered = 0

    def every() -> None:
        nonlocal rendered
        if len(match.events) % 3 and not match.finished:
            return
        for viewer in (Viewer.spectator(), Viewer.of(PLAYERS[seed % 4]), Viewer.host()):
            view = GAME.view(match.state, viewer)
            root = parse(render_for_game("last-gathering", view))
            assert len(boards(root)) == 4
            phases.add(str(view["phase"]))
            rendered += 1

    every()
    play(match, bots, random.Random(seed), every)
    assert phases == {"frames", "steps", "over"} and rendered > 40


@pytest.mark.slow
def test_six_players_are_drawn_in_two_rows_of_boards() -> None:
    players = ("A", "B", "C", "D", "E", "F")
    match = new_match(players, seed=8)
    play(match, dict.fromkeys(players, greedy_bot), random.Random(8), lambda: None)
    root = picture(match, Viewer.spectator())
    assert sorted(boards(root)) == list(players)
    assert float(root.get("height", 0)) > 2 * 5 * 44


# ---------------------------------------------------------------- what is drawn


def test_at_set_up_every_board_has_16_labelled_empty_spots_25_sheep_and_no_frame_yet() -> None:
    root = picture(new_match(), Viewer.spectator())
    for name, board in boards(root).items():
        assert len(with_class(board, "empty-spot")) == 16 and len(with_class(board, "sheep")) == 25
        assert not with_class(board, "tile") and not with_class(board, "frame-spoke")
        labels = {e.text for e in with_class(board, "spot-label")}
        assert labels == {f"{c}{r}" for c in "ABCD" for r in "1234"}, name
    text = text_of(root)
    assert all(p in text for p in PLAYERS) and "20 garnets · no frame yet" in text
    assert len(with_class(root, "frame-offered")) == 6 and "frame round 1" in text


def test_frames_tiles_sheep_and_the_last_auction_are_drawn_from_the_view() -> None:
    """LG-1, LG-4, LG-7: a cross with an extra sheep on C, placed at B3 by everyone, and four frames."""
    match = new_match()
    frames_done(match)
    root = picture(match, Viewer.spectator())
    spokes = {name: len(with_class(board, "frame-spoke")) for name, board in boards(root).items()}
    assert spokes == {"Ann": 16, "Bob": 0, "Cy": 8, "Di": 8}
    assert "Frame round 1" in text_of(root)

    match.submit_text("Ann", "bid 5 cross with sheep on C; end early")
    for player in PLAYERS[1:]:
        match.submit_text(player, "bid 1 bend; end early")
    root = picture(match, Viewer.spectator())
    text = text_of(root)
    assert "Last auction (auction 1): Ann won cross with an extra sheep on C for 8 garnets" in text
    assert "Bob 1 on bend" in text and "12 garnets · frame F2" in text
    assert "Tiebreak order (earliest wins ties): Bob, Cy, Di, Ann" in text
    assert "cross ×3" in text and "cross with an extra sheep on C (shown unrotated)" in text
    to_place = with_class(root, "tile-to-place")[0]
    assert len(with_class(to_place, "tile-spoke")) == 4 and len(with_class(to_place, "extra-sheep")) == 1

    for player in PLAYERS:
        match.submit_text(player, "place B3 rotate 90; bid 0 end; end early")
    root = picture(match, Viewer.spectator())
    for board in boards(root).values():
        assert len(with_class(board, "tile")) == 1 and len(with_class(board, "empty-spot")) == 15
        assert len(with_class(board, "tile-spoke")) == 4 and len(with_class(board, "extra-sheep")) == 1
        assert "B3" not in {e.text for e in with_class(board, "spot-label")}
        assert not with_class(board, "lake")


@pytest.mark.slow
def test_the_finished_picture_has_one_lake_per_board_the_scores_ranks_and_shaded_regions() -> None:
    match = new_match(seed=4)
    bots: dict[str, Bot] = dict.fromkeys(PLAYERS, greedy_bot)
    play(match, bots, random.Random(4), lambda: None)
    results = {row["player"]: row for row in GAME.results(match.state)["results"]}
    root = picture(match, Viewer.of("Bob"))
    for name, board in boards(root).items():
        assert len(with_class(board, "lake")) == 1 and not with_class(board, "empty-spot")
        assert len(with_class(board, "tile")) == 15
        assert len(with_class(board, "region")) == len(results[name]["regions"])
        assert len(with_class(board, "sheep")) == 25 and len(with_class(board, "incomplete")) == 4
    panels = {str(g.get("data-player")): text_of(g) for g in with_class(root, "player-panel")}
    for name, row in results.items():
        assert f"score {row['score']} · rank {row['rank']}" in panels[name]
    text = text_of(root)
    assert "Final ranking: 1. " in text and "finished" in text


# ---------------------------------------------------------------- hidden information


def test_a_sealed_bid_and_placement_appear_only_in_their_owners_picture() -> None:
    """LG-8: bids are sealed until the step resolves; so is a placement."""
    match = new_match()
    frames_done(match)
    match.submit_text("Ann", "bid 13 cross with sheep on C")
    for viewer in (Viewer.spectator(), Viewer.of("Bob"), Viewer.host()):
        root = picture(match, viewer)
        text = text_of(root)
        assert "bid 13" not in text and "sheep on C" not in text and " 13" not in text
        assert not with_class(root, "pending")
    own = text_of(picture(match, Viewer.of("Ann")))
    assert "Your sealed orders (until the step resolves): bid 13 on cross with an extra sheep on C" in own

    for player in PLAYERS[1:]:
        match.submit_text(player, "bid 0 end; end early")
    match.submit_text("Ann", "end early")
    assert match.state.step == 2
    match.submit_text("Ann", "place D4 rotate 90")
    for viewer in (Viewer.spectator(), Viewer.of("Bob"), Viewer.host()):
        root = picture(match, viewer)
        ann = boards(root)["Ann"]
        assert not with_class(root, "pending") and not with_class(root, "pending-tile")
        assert "D4" in {e.text for e in with_class(ann, "spot-label")} and not with_class(ann, "tile")
        assert "place at D4" not in text_of(root)
    root = picture(match, Viewer.of("Ann"))
    ghost = with_class(boards(root)["Ann"], "pending")
    assert len(ghost) == 1 and len(with_class(ghost[0], "tile-spoke")) == 4
    assert "place at D4 rotated 90" in text_of(root)


# ---------------------------------------------------------------- determinism and odd views


def test_the_same_view_renders_to_the_same_bytes() -> None:
    match = new_match(seed=5)
    snapshots: list[dict[str, Any]] = []
    bots: dict[str, Bot] = {p: (greedy_bot if i % 2 else random_bot) for i, p in enumerate(PLAYERS)}

    def every() -> None:
        if len(match.events) % 25 == 0 or match.finished:
            snapshots.append(GAME.view(match.state, Viewer.of("Cy")))

    play(match, bots, random.Random(5), every)
    for view in snapshots:
        assert render_svg(view) == render_svg(copy.deepcopy(view))


def test_names_are_escaped_and_a_bare_view_does_not_crash() -> None:
    view = GAME.view(new_match().state, Viewer.spectator())
    view["players"][0]["name"] = 'Ann <&> "Q"'
    root = parse(render_svg(view))
    assert 'Ann <&> "Q"' in text_of(root)
    parse(render_svg({}))
    parse(render_svg({"players": [{"name": "X", "board": [{"spot": "Z9", "kind": "?", "rotation": None}]}]}))


# ---------------------------------------------------------------- geometry


def test_lg1_spokes_turn_clockwise() -> None:
    assert tile_spokes("bend", 0) == ["N", "E"] and tile_spokes("bend", 90) == ["E", "S"]
    assert tile_spokes("junction", 270) == ["N", "E", "S"] and tile_spokes("end", 180) == ["S"]
    for kind in KINDS:  # the picture agrees with the engine's geometry
        for rotation in ROTATIONS:
            assert set(tile_spokes(kind, rotation)) == spokes(kind, rotation)


def test_lg4_frame_spoke_positions_go_clockwise_around_the_board() -> None:
    assert frame_spoke_segment("N1") == ((0.5, 0.0), (0.5, -0.5))
    assert frame_spoke_segment("E1") == ((4.0, 0.5), (4.5, 0.5))
    assert frame_spoke_segment("S1") == ((3.5, 4.0), (3.5, 4.5))
    assert frame_spoke_segment("W1") == ((0.0, 3.5), (-0.5, 3.5))
    assert frame_spoke_segment("X9") is None
    for index in range(4):  # the engine's names for the frame spokes at column / row `index`
        assert frame_spoke_segment(frame_spoke_at("N", index)) == ((index + 0.5, 0.0), (index + 0.5, -0.5))
        assert frame_spoke_segment(frame_spoke_at("E", index)) == ((4.0, index + 0.5), (4.5, index + 0.5))
        assert frame_spoke_segment(frame_spoke_at("S", index)) == ((index + 0.5, 4.0), (index + 0.5, 4.5))
        assert frame_spoke_segment(frame_spoke_at("W", index)) == ((0.0, index + 0.5), (-0.5, index + 0.5))


def test_lg7_the_extra_sheep_is_drawn_inside_its_section() -> None:
    assert section_quadrants("bend", "A", 90) == ["SE"] and extra_sheep_spot("bend", "A", 90) == (0.75, 0.75)
    assert extra_sheep_spot("bend", "B", 0) == (0.25, 0.75)  # across from the NE quadrant inside the bend
    assert extra_sheep_spot("straight", "A", 0) == (0.25, 0.5)
    assert extra_sheep_spot("end", "A", 0) == (0.5, 0.75)  # away from its north spoke
    assert extra_sheep_spot("junction", "A", 180) == (0.5, 0.75)
