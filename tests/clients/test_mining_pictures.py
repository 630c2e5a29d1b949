"""Pictures of the mining game: well-formed SVG for every viewer and phase of whole bot matches, the
board, miners and players' table as drawn, no sealed submission in anyone else's picture, determinism."""

from __future__ import annotations

import copy
import json
import random
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from clients.bots.mining import greedy_bot, random_bot
from engine.contract import Viewer
from engine.match import LocalMatch
from engine.mining import GAME
from pictures import render_svg as render_any
from pictures.mining import initials, render_svg

SVG = "{http://www.w3.org/2000/svg}"
PLAYERS = ("Ann", "Bob", "Cy", "Dee", "Eve")

Bot = Callable[[dict[str, Any], str, random.Random], str | None]


def new_match(players: tuple[str, ...] = PLAYERS, seed: int = 3, **overrides: Any) -> LocalMatch:
    config = GAME.default_config(players)
    config.update(overrides)
    return LocalMatch(GAME, config, seed)


def play(match: LocalMatch, seed: int) -> Iterator[LocalMatch]:
    """Bots play the match to the end; yields the match after every submission (and expiry)."""
    rng = random.Random(seed)
    names = GAME.players(match.state)
    bots: dict[str, Bot] = {p: (greedy_bot if i % 2 else random_bot) for i, p in enumerate(names)}
    yield match
    while not match.finished:
        submitted = False
        for player in sorted(GAME.status(match.state).awaiting):
            text = bots[player](GAME.view(match.state, Viewer.of(player)), player, rng)
            if text is not None:
                match.submit_text(player, text)
                submitted = True
                yield match
                if match.finished:
                    break
        if not submitted and not match.finished:
            match.expire()
            yield match


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    for attribute in ("width", "height", "viewBox"):
        assert root.get(attribute), attribute
    return root


def by_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("class") == cls]


def texts(root: ET.Element) -> list[str]:
    return ["".join(e.itertext()) for e in root.iter(f"{SVG}text")]


def all_text(root: ET.Element) -> str:
    """Every text and title in the picture, i.e. what a person can read from it."""
    return "\n".join("".join(e.itertext()) for e in root.iter() if e.tag in (f"{SVG}text", f"{SVG}title"))


def views(match: LocalMatch) -> dict[str, dict[str, Any]]:
    names = GAME.players(match.state)
    return {
        "spectator": GAME.view(match.state, Viewer.spectator()),
        "host": GAME.view(match.state, Viewer.host()),
        names[0]: GAME.view(match.state, Viewer.of(names[0])),
        names[-1]: GAME.view(match.state, Viewer.of(names[-1])),
    }


def check_picture(view: dict[str, Any]) -> ET.Element:
    root = parse(render_svg(view))
    assert len(by_class(root, "space")) == len(view["spaces"])
    placed = sum(1 for p in view["players"] for m in p["miners"].values() if m["space"] > 0)
    assert len(by_class(root, "miner")) == placed
    shown = [r.get("data-player") for r in by_class(root, "player-row")]
    if "final" in view:
        assert shown == [r["player"] for r in view["final"]["results"]]  # by rank
    else:
        assert shown == [p["name"] for p in view["players"]]
    return root


@pytest.mark.parametrize(
    ("players", "seed", "every"),
    [(PLAYERS, 1, 3), (PLAYERS, 2, 5), (("P0", "P1"), 9, 1), (tuple(f"P{i}" for i in range(8)), 4, 7)],
)
def test_every_viewer_at_every_few_steps_of_whole_bot_matches_gets_a_well_formed_picture(players, seed, every):
    match = new_match(players, seed=seed)
    stages = set()
    for step, current in enumerate(play(match, seed)):
        if step % every and not current.finished:
            continue
        for view in views(current).values():
            stages.add(view["stage"])
            check_picture(view)
    assert match.finished
    assert {"setup", "round", "finished"} <= stages


def test_the_board_has_one_numbered_space_per_configured_space_and_draws_each_ability():
    spaces = [
        {"space": i, "gold": 3 if i % 2 else 0, "red": 1, "bonus": "thief" if i == 2 else None} for i in range(1, 8)
    ]
    match = new_match(("Ann", "Bob"), spaces=spaces)
    root = parse(render_svg(GAME.view(match.state, Viewer.spectator())))
    numbers = [e.get("data-space") for e in by_class(root, "space")]
    assert numbers == [str(i) for i in range(1, 8)]
    assert [t for t in texts(root) if t.startswith("Space ")] == [f"Space {i}" for i in range(1, 8)]
    assert [t for t in texts(root) if t.startswith("Ability:")] == ["Ability: Thieves +1 Gold"]
    board = by_class(root, "board")
    assert len(board) == 1 and board[0].get("data-spaces") == "7"


def test_the_default_board_shows_piles_per_space_and_the_rule_texts_abilities():
    match = new_match()
    for _ in play(match, 1):
        if match.state.phase == "round" and match.state.round == 2:
            break
    view = GAME.view(match.state, Viewer.spectator())
    root = parse(render_svg(view))
    assert len(by_class(root, "pile")) == 15 * 5
    space_13 = next(e for e in by_class(root, "space") if e.get("data-space") == "13")
    chips = {c.get("data-resource"): "".join(t for t in c.itertext()) for c in by_class(space_13, "pile")}
    assert set(chips) == {"gold", "r", "b", "y", "g"}
    assert str(view["spaces"][12]["pile"]["gold"]) in chips["gold"]
    abilities = [t for t in texts(root) if t.startswith("Ability:")]
    assert abilities == [f"Ability: {r} +1 Gold" for r in ("Claimers", "Bullies", "Prospectors", "Scouts", "Thieves")]


def test_each_miner_stands_on_its_space_labelled_with_its_players_initial_and_role():
    match = new_match(("Ann", "Bob"))
    match.submit_text("Ann", "start b 1; start c 2; start p 3; start s 4; start t 5; end early")
    match.submit_text("Bob", "start b 5; start c 6; start p 7; start s 8; start t 9; end early")
    view = GAME.view(match.state, Viewer.spectator())
    root = parse(render_svg(view))
    where = {}
    for space in by_class(root, "space"):
        for miner in by_class(space, "miner"):
            label = "".join(miner.find(f"{SVG}text").itertext())  # type: ignore[union-attr]
            where[(miner.get("data-player"), miner.get("data-role"))] = (space.get("data-space"), label)
    assert where[("Ann", "b")] == ("1", "Ab")
    assert where[("Ann", "t")] == ("5", "At")
    assert where[("Bob", "t")] == ("9", "Bt")
    assert len(where) == 10
    space_5 = next(e for e in by_class(root, "space") if e.get("data-space") == "5")
    assert len(by_class(space_5, "miner")) == 2
    ann, bob = (m for m in by_class(root, "miner") if m.get("data-role") == "b")
    assert ann.find(f"{SVG}rect").get("style") != bob.find(f"{SVG}rect").get("style")  # type: ignore[union-attr]


def test_initials_tell_players_apart():
    assert initials(["Ann", "Bob"]) == {"Ann": "A", "Bob": "B"}
    assert initials(["P0", "P1"]) == {"P0": "P0", "P1": "P1"}
    assert len(set(initials(["ab", "ab ", "ab  "]).values())) == 3


def test_the_players_table_shows_gold_even_negative_crystals_and_garnets():
    match = new_match(("Ann", "Bob"))
    view = copy.deepcopy(GAME.view(match.state, Viewer.spectator()))
    view["players"][0].update(gold=-7, crystals={"r": 11, "b": 12, "y": 13, "g": 14}, garnets=9)
    root = parse(render_svg(view))
    row = next(r for r in by_class(root, "player-row") if r.get("data-player") == "Ann")
    cell = {e.get("class"): "".join(e.itertext()) for e in row.iter(f"{SVG}text")}
    assert cell["name"] == "Ann"
    assert (cell["gold"], cell["r"], cell["b"], cell["y"], cell["g"], cell["garnets"]) == (
        "-7", "11", "12", "13", "14", "9",
    )  # fmt: skip
    assert "Tokens of Life" not in texts(root)


def test_the_finished_picture_shows_tokens_of_life_ranks_and_the_elimination_candidate():
    match = new_match(seed=2)
    for _ in play(match, 2):
        pass
    view = GAME.view(match.state, Viewer.spectator())
    root = parse(render_svg(view))
    results = view["final"]["results"]
    rows = by_class(root, "player-row")
    assert [r.get("data-player") for r in rows] == [r["player"] for r in results]
    for row, result in zip(rows, results, strict=True):
        cell = {e.get("class"): "".join(e.itertext()) for e in row.iter(f"{SVG}text")}
        assert cell["rank"] == str(result["rank"])
        assert cell["tokens"] == str(result["tokens_of_life"])
        assert cell["gold"] == str(result["gold"])
        assert (cell["candidate"] == "Candidate") == result["elimination_candidate"]
    assert "Tokens of Life" in texts(root)
    line = "".join(by_class(root, "candidates")[0].itertext())
    assert all(name in line for name in view["final"]["elimination_candidates"])
    assert "Finished after round 7 of 7" in all_text(root)


def test_who_has_submitted_is_shown_but_never_what_to_spectators_and_other_players():
    match = new_match(("Ann", "Bob", "Cy"))
    setup = "start b 11; start c 12; start p 13; start s 14; start t 15; end early"
    match.submit_text("Ann", setup)
    sealed = {"start b 11", "start t 15"}

    def picture(viewer: Viewer) -> tuple[str, ET.Element]:
        svg = render_svg(GAME.view(match.state, viewer))
        return svg, parse(svg)

    for viewer in (Viewer.spectator(), Viewer.of("Bob"), Viewer.host()):
        svg, root = picture(viewer)
        assert not any(s in svg for s in sealed), viewer
        assert not by_class(root, "your-submission") or viewer.player == "Bob"
        marks = {e.get("data-player"): e.get("data-submitted") for e in by_class(root, "submitted-mark")}
        assert marks == {"Ann": "yes", "Bob": "no", "Cy": "no"}
        assert not by_class(root, "miner")  # the set-up is sealed: no miner is on the board yet
    svg, root = picture(Viewer.of("Ann"))
    assert all(s in svg for s in sealed)

    match.submit_text("Bob", "start b 1; start c 2; start p 3; start s 4; start t 5; end early")
    match.submit_text("Cy", "start b 6; start c 7; start p 8; start s 9; start t 10; end early")
    assert match.state.phase == "round"
    orders = "move b 2; move c 3; move p 1; move s 5; move t 2; bully 1"
    match.submit_text("Ann", orders)
    for viewer in (Viewer.spectator(), Viewer.of("Cy"), Viewer.host()):
        svg, root = picture(viewer)
        assert "move s 5" not in svg and "bully 1" not in svg and "move b 2" not in svg
        ann = next(e for e in by_class(root, "submitted-mark") if e.get("data-player") == "Ann")
        assert ann.get("data-submitted") == "yes"
        # Ann's miners are still where they started: the sealed moves are not drawn either
        for space in by_class(root, "space"):
            for miner in by_class(space, "miner"):
                if miner.get("data-player") == "Ann":
                    assert space.get("data-space") == str(11 + "bcpst".index(miner.get("data-role") or ""))
    svg, root = picture(Viewer.of("Ann"))
    assert "move s 5" in all_text(root)


def test_the_same_view_renders_to_the_same_bytes():
    match = new_match()
    for _ in play(match, 5):
        if match.state.round == 3:
            break
    for view in views(match).values():
        first = render_svg(view)
        assert render_svg(copy.deepcopy(view)) == first
        assert render_svg(json.loads(json.dumps(view))) == first
        assert render_any("mining", view) == first


def test_names_with_markup_characters_are_escaped():
    match = new_match(("<b>&", 'Q"'))
    match.submit_text("<b>&", "start b 1; start c 2; start p 3; start s 4; start t 5; end early")
    match.submit_text('Q"', "start b 1; start c 2; start p 3; start s 4; start t 5; end early")
    for view in views(match).values():
        root = check_picture(view)
        assert "<b>&" in texts(root)
        assert {m.get("data-player") for m in by_class(root, "miner")} == {"<b>&", 'Q"'}


def test_the_picture_is_self_contained():
    match = new_match()
    for _ in play(match, 6):
        if match.state.round == 2:
            break
    svg = render_svg(GAME.view(match.state, Viewer.spectator()))
    root = parse(svg)
    assert not [e for e in root.iter() if e.tag in (f"{SVG}script", f"{SVG}image", f"{SVG}foreignObject")]
    assert "href" not in svg and "@import" not in svg and "url(" not in svg
