"""`matchctl picture` and `matchctl replay` against a real server, for every game."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from clients import cli
from engine.registry import shipped
from pictures.pack import unpack
from pictures.page import data_of
from tests.support.server import ServerThread

GAMES = shipped()


def run(server: ServerThread, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert cli.main(["--server", server.address, "--var", server.settings.var_dir, *args]) == 0
    return capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_pictures_and_a_replay_of_a_whole_match(
    game: str, server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    match_id = json.loads(run(server, capsys, "play-bots", "--game", game, "--seed", "3", "--json"))["match"]
    picture = ET.fromstring(run(server, capsys, "picture", match_id, "--as", "spectator"))
    assert picture.tag.endswith("svg") and picture.get("viewBox")
    early = run(server, capsys, "picture", match_id, "--as", "spectator", "--at", "3")
    assert early != ET.tostring(picture, encoding="unicode")
    page = run(server, capsys, "replay", match_id, "--as", "spectator")
    data = data_of(page)
    versions = [step["v"] for step in data["steps"]]
    assert versions == list(range(1, len(versions) + 1)) and len(versions) > 20
    svgs = unpack(data["fragments"], data["pictures"])
    assert len(svgs) == 1 + max(step["p"] for step in data["steps"])
    for svg in svgs:
        ET.fromstring(svg)
    assert svgs[data["steps"][-1]["p"]] == run(server, capsys, "picture", match_id, "--as", "spectator")
    # A whole bot match is shared as one file: it must stay small (issue 15: a Cookoff match under 1.5 MB).
    assert len(page.encode()) < 1_500_000
