"""matchctl's messages for people: numbers agree with their nouns, and names are listed as words
(`ann, bob`), never as a Python list, tuple or dict."""

from __future__ import annotations

import re

from server.clock import ManualClock
from tests.clients.matchctl_cli import matchctl
from tests.support.server import ServerThread

REPR = re.compile(r"\[\]|\{\}|\(\)|\['|\('|\{'|'\]|'\)|'\}|\bNone\b")


def test_the_unassigned_harvesters_warning_agrees_in_number(server: ServerThread, clock: ManualClock) -> None:
    match_id = matchctl(server, "create", "cookoff", "--players", "ann,bob", "--seed", "1").out.strip()
    for player in ("ann", "bob"):
        assert matchctl(server, "join", match_id, player).code == 0
    one = matchctl(server, "submit", match_id, "--as", "ann", "I will send 3 workers to the Ganlon tree.")
    assert one.code == 0, one.err
    assert "warning: 1 of your 4 harvesters is unassigned this round (legal; it gathers nothing)" in one.out
    two = matchctl(server, "submit", match_id, "--as", "bob", "I will send 2 workers to the Magost tree.")
    assert two.code == 0, two.err
    assert "warning: 2 of your 4 harvesters are unassigned this round (legal; they gather nothing)" in two.out


def test_human_output_lists_names_as_words(server: ServerThread, clock: ManualClock) -> None:
    match_id = matchctl(server, "create", "mining", "--players", "ann,bob,cy,di,ed", "--seed", "1").out.strip()
    for player in ("ann", "bob"):
        assert matchctl(server, "join", match_id, player).code == 0
    assert matchctl(server, "start", match_id, "--reason", "the rest join later").code == 0
    listed = matchctl(server, "list")
    assert "ann, bob, cy, di, ed" in listed.out
    outputs = [listed.out]
    for args in (
        ["state", match_id, "--as", "ann"],
        ["state", match_id, "--as", "spectator"],
        ["state", match_id],
        ["history", match_id],
        ["audit", match_id],
        ["submit", match_id, "--as", "zed", "anything"],
        ["create", "chess", "--players", "ann,bob"],
        ["play-bots", "--game", "mining", "--bots", "nobody_bot"],
    ):
        ran = matchctl(server, *args)
        outputs.append(ran.out + ran.err)
    assert "zed is not a player of this match (ann, bob, cy, di, ed)" in outputs[6]
    for text in outputs:
        assert not REPR.search(text), REPR.search(text)
