"""`matchctl transcript` writes the clock's gaps as people write them: `@ +0.1`, never the float
arithmetic of a match clock (`@ +0.10000000009313226`), and the transcript still replays to the match."""

from __future__ import annotations

import json
import re

from engine.registry import get_game
from engine.transcript import clock_gap, script_header, simulate
from server.clock import ManualClock
from tests.clients.matchctl_cli import matchctl
from tests.support.duel import seat_duel
from tests.support.server import ServerThread

GAP = re.compile(r"^@ \+(\d+(?:\.\d{1,3})?)$")


def test_a_gap_is_seconds_to_the_millisecond_without_trailing_zeros() -> None:
    assert [clock_gap(s) for s in (15.000000001, 0.10000000009313226, 0.25, 7.0004, 59.9996)] == [
        "15",
        "0.1",
        "0.25",
        "7",
        "60",
    ]


def test_a_transcript_of_a_clock_that_moved_by_tenths_reads_in_tenths_and_replays(
    server: ServerThread, clock: ManualClock
) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=8)
    for token, text in ((ann, "pick 3"), (bob, "pick 1"), (ann, "pick 2"), (bob, "pick 2")):
        clock.advance(0.1)  # 1000000.1 - 1000000.0 is 0.10000000009313226 in floats
        client.submit(match_id, token, text=text)
    while not client.state(match_id, host).status.finished:
        clock.advance(0.2)
        client.force_phase_end(match_id, host, "nobody else is here")
    ran = matchctl(server, "transcript", match_id, f"--token={host}")
    assert ran.code == 0, ran.err
    lines = ran.out.splitlines()
    gaps = [line for line in lines if line.startswith("@")]
    assert gaps, lines
    assert all(GAP.match(line) for line in gaps), gaps
    assert "@ +0.1" in gaps
    seed, players = script_header(lines)
    replayed = simulate(get_game("duel"), players, seed, lines)
    assert replayed["finished"] is True
    assert json.loads(json.dumps(replayed["results"])) == client.state(match_id, host).results["results"]
