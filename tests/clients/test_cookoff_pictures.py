"""Cookoff pictures: every viewer's view in every phase renders to a well-formed SVG that shows the
pots, trees, judges and players, and never a sealed submission to anyone but its owner."""

from __future__ import annotations

import copy
import random
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest

from clients.bots.cookoff import judge_bot, random_bot
from engine.contract import Viewer
from engine.cookoff import GAME
from engine.match import LocalMatch
from pictures import render_svg as render_game
from pictures.cookoff import render_svg

A, B = "ann", "bob"
NS = "{http://www.w3.org/2000/svg}"
VIEWERS = (Viewer.spectator(), Viewer.of(A), Viewer.host())


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    for key in ("width", "height", "viewBox"):
        assert root.get(key), key
    return root


def with_class(root: ET.Element, css: str) -> list[ET.Element]:
    return [el for el in root.iter() if css in (el.get("class") or "").split()]


def texts(root: ET.Element) -> list[str]:
    return ["".join(el.itertext()) for el in root.iter(f"{NS}text")]


def picture(m: LocalMatch, viewer: Viewer) -> tuple[dict[str, Any], ET.Element]:
    view = GAME.view(m.state, viewer)
    return view, parse(render_svg(view))


def bot_views(seed: int, bots: dict[str, Any], every: int = 5) -> Iterator[tuple[LocalMatch, Viewer]]:
    """Play a whole bot match, yielding (match, viewer) at every few submissions and at the end."""
    m = LocalMatch(GAME, GAME.default_config([A, B]), seed)
    rng = random.Random(seed)
    count = 0
    while not m.finished:
        for player in sorted(GAME.status(m.state).awaiting):
            text = bots[player](GAME.view(m.state, Viewer.of(player)), player, rng)
            assert text is not None
            m.submit_text(player, text)
            count += 1
            if count % every == 0:
                for viewer in VIEWERS:
                    yield m, viewer
    for viewer in (*VIEWERS, Viewer.of(B)):
        yield m, viewer


def started() -> LocalMatch:
    return LocalMatch(GAME, GAME.default_config([A, B]), 4)


def pot_berries(root: ET.Element) -> list[int]:
    """Number of berry circles in each pot, in seat order."""
    return [len(with_class(pot, "berry")) for pot in with_class(root, "pot")]


# ---------------------------------------------------------------- whole matches


@pytest.mark.parametrize("seed", range(3))
def test_every_viewers_picture_of_whole_bot_matches_is_well_formed_and_matches_the_view(seed: int) -> None:
    bots = {A: judge_bot, B: random_bot} if seed % 2 == 0 else {A: random_bot, B: random_bot}
    pictures = 0
    for m, viewer in bot_views(seed, bots):
        view, root = picture(m, viewer)
        pictures += 1
        assert len(with_class(root, "square")) == 50
        assert len(with_class(root, "pot")) == 2
        assert pot_berries(root) == [len(view["players"][p]["pot"]) for p in (A, B)]
        dishes = sum(len(view["players"][p]["dishes"]) for p in (A, B))
        assert len(with_class(root, "dish")) == dishes
        assert len(with_class(root, "tree")) == len(view["trees"])
        assert len(with_class(root, "judge")) == 3
        sabotage = sum(1 for p in (A, B) for item in view["players"][p]["pot"].values() if item["sabotage"])
        assert len(with_class(root, "sabotage")) == sabotage
        names = [t for t in texts(root) if t.startswith((A, B))]
        assert any(t.startswith(A) for t in names) and any(t.startswith(B) for t in names)
    assert pictures > 20


def test_the_finished_picture_shows_chosen_dishes_each_judges_winner_and_the_match_winner() -> None:
    *_, (m, _viewer) = bot_views(0, {A: judge_bot, B: random_bot})
    assert m.finished
    view, root = picture(m, Viewer.spectator())
    result = view["result"]
    words = texts(root)
    assert [t for t in words if t.startswith("Winner: ")] == [
        f"Winner: {result['winner']} (decided by: {result['decision']})"
    ]
    judge_lines = with_class(root, "judge-result")
    assert len(judge_lines) == 3
    for line, judge in zip(judge_lines, result["judges"], strict=True):
        text = "".join(line.itertext())
        assert judge["criterion"] in text
        assert (f"won by {judge['winner']}" if judge["winner"] else "won by nobody") in text
    chosen = next(t for t in words if t.startswith("Chosen dishes: "))
    for player, number in result["chosen"].items():
        assert (f"{player}: dish {number}" if number is not None else f"{player}: no dish") in chosen
    assert len(with_class(root, "judge")) == 3
    assert not with_class(root, "unrevealed")


def test_a_berry_shows_its_name_and_cook_time_and_the_pot_its_flame() -> None:
    m = started()
    tree = GAME.view(m.state, Viewer.spectator())["trees"][0]["berry"]
    m.submit_text(A, f"send 1 worker to the {tree} tree")
    m.submit_text(B, "pass")
    m.submit_text(A, f"place a {tree} berry on C3")
    m.submit_text(B, "pass")
    for _ in range(2):  # sabotage and moves pass; the berry cooks by the centre's intensity (3)
        m.submit_text(A, "pass")
        m.submit_text(B, "pass")
    view, root = picture(m, Viewer.spectator())
    assert view["players"][A]["pot"]["C3"]["cook"] == 3
    (berry,) = with_class(with_class(root, "pot")[0], "berry")
    assert texts(berry) == [tree, "cook 3"]
    assert "slightly raw" in "".join(berry.itertext())  # its title names the cook band
    flames = [el.text for el in with_class(with_class(root, "pot")[0], "flame")]
    assert flames == [str(v) for row in view["flame"] for v in row]
    assert len(with_class(root, "tree")) == 6


# ---------------------------------------------------------------- hidden information


def test_a_sealed_placement_appears_only_in_its_owners_picture() -> None:
    m = started()
    tree = GAME.view(m.state, Viewer.spectator())["trees"][0]["berry"]
    m.submit_text(A, f"send 1 worker to the {tree} tree")
    m.submit_text(B, "pass")
    m.submit_text(A, f"place a {tree} berry on D4")
    sealed = f"place: {tree} on D4"
    for viewer in (Viewer.spectator(), Viewer.of(B), Viewer.host()):
        _view, root = picture(m, viewer)
        assert pot_berries(root) == [0, 0]
        assert not with_class(root, "pending")
        assert not any(sealed in t or "on D4" in t for t in texts(root))
        assert "submitted (sealed)" in [el.text for el in with_class(root, "submission")]
    _view, root = picture(m, Viewer.of(A))
    assert pot_berries(root) == [0, 0]
    assert any(sealed in t for t in texts(root))


def test_a_sealed_sabotage_stays_out_of_the_victims_and_spectators_pictures() -> None:
    m = started()
    tree = GAME.view(m.state, Viewer.spectator())["trees"][0]["berry"]
    m.submit_text(A, f"send 1 worker to the {tree} tree")
    m.submit_text(B, "pass")
    m.submit_text(A, "pass")
    m.submit_text(B, "pass")
    m.submit_text(A, f"I will sabotage and place a {tree} berry on B2")
    for viewer in (Viewer.spectator(), Viewer.of(B)):
        _view, root = picture(m, viewer)
        assert pot_berries(root) == [0, 0] and not with_class(root, "sabotage")
        assert not any("B2" in t for t in texts(root) if "sabotage" in t)
    _view, root = picture(m, Viewer.of(A))
    assert any(f"sabotage: {tree} on B2" in t for t in texts(root))
    m.submit_text(B, "pass")  # announced together: now everyone sees it in bob's pot
    _view, root = picture(m, Viewer.spectator())
    assert pot_berries(root) == [0, 1] and len(with_class(with_class(root, "pot")[1], "sabotage")) == 1


def test_unrevealed_judges_are_question_marks_even_in_the_hosts_picture() -> None:
    m = started()
    host = GAME.view(m.state, Viewer.host())
    hidden = [j["criterion"] for j in host["judges"] if not j["revealed"]]
    assert len(hidden) == 2
    for viewer in VIEWERS:
        view, root = picture(m, viewer)
        assert len(with_class(root, "unrevealed")) == 2
        assert not any(c in t for c in hidden for t in texts(root))
        shown = view["judges"][0]["criterion"]
        assert shown in texts(root)


# ---------------------------------------------------------------- odd moments, determinism


def test_set_up_and_a_loss_on_time_render() -> None:
    cfg = GAME.default_config([A, B])
    view = GAME.view(GAME.initial_state(cfg, 1), Viewer.spectator())
    root = parse(render_svg(view))
    assert len(with_class(root, "square")) == 50 and not with_class(root, "tree")
    cfg["times"] = dict.fromkeys(cfg["times"], 1)
    cfg["reserve"] = 1
    m = LocalMatch(GAME, cfg, 2)
    m.advance(100)
    assert m.finished
    view, root = picture(m, Viewer.of(B))
    assert any(t.startswith("Lost on time") for t in texts(root))
    assert any(t.startswith("Winner: ") for t in texts(root))


def test_the_same_view_renders_to_the_same_bytes() -> None:
    *_, (m, _viewer) = bot_views(1, {A: random_bot, B: judge_bot})
    for viewer in VIEWERS:
        view = GAME.view(m.state, viewer)
        first = render_svg(view)
        assert render_svg(copy.deepcopy(view)) == first
        assert render_game("cookoff", view) == first
    assert render_svg(GAME.view(m.state, Viewer.spectator())) != render_svg(GAME.view(m.state, Viewer.of(A)))
