"""The seeded match whose every `matchctl` output is kept under tests/golden/matchctl/.

`outputs(run)` plays it through `run(args, as_json) -> stdout` and returns {golden file name: text}, with
match ids replaced by MATCH1, MATCH2 (they are random; everything else is decided by the seeds and the
test's ManualClock).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from tests.support.waiting import wait_until

Run = Callable[[list[str], bool], str]
GATHER = "I will send 2 workers to the Ganlon tree."  # Ganlon is a tree of round 1 with seed 1
BOB_GATHER = "I will send 4 workers to the Magost tree."
MATCH_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def outputs(run: Run, advance: Callable[[float], None]) -> dict[str, str]:
    """`advance(seconds)` moves the server's ManualClock on."""
    out: dict[str, str] = {}
    cookoff = run(["create", "cookoff", "--players", "ann,bob", "--seed", "1"], False).strip()
    run(["join", cookoff, "ann"], False)
    run(["join", cookoff, "bob"], False)
    advance(15)
    for as_json in (False, True):
        suffix = ".json.txt" if as_json else ".txt"
        if not as_json:
            out["submit" + suffix] = run(["submit", cookoff, "--as", "ann", GATHER], as_json)
        else:
            out["submit" + suffix] = run(["submit", cookoff, "--as", "bob", BOB_GATHER], as_json)
        for viewer in ("ann", "bob", "spectator", "host"):
            out[f"state-{viewer}{suffix}"] = run(["state", cookoff, "--as", viewer], as_json)
        out["history" + suffix] = run(["history", cookoff], as_json)
        out["audit" + suffix] = run(["audit", cookoff], as_json)
    advance(275)  # past the placement deadline (opened at +15 s; 90 s base, 180 s reserve): one timeout
    wait_until(lambda: "round 1: placement" not in run(["state", cookoff], True), "the deadline was applied")
    out["audit-end.txt"] = run(["audit", cookoff], False)
    out["audit-end.json.txt"] = run(["audit", cookoff], True)
    mining = run(["play-bots", "--game", "mining", "--seed", "1"], False)
    mining_json = run(["play-bots", "--game", "mining", "--seed", "1"], True)
    out["play-bots.txt"], out["play-bots.json.txt"] = mining, mining_json
    finished = MATCH_ID.findall(mining_json)[0]
    last = len(json.loads(run(["history", finished], True))["records"])
    tail = ["--as", "spectator", "--from", str(last - 3), "--until-finished"]  # the end of the match
    out["watch.txt"] = run(["watch", finished, *tail], False)
    out["watch.json.txt"] = run(["watch", finished, *tail], True)
    ids = {cookoff: "MATCH1", MATCH_ID.findall(mining)[0]: "MATCH2", finished: "MATCH3"}
    return {name: MATCH_ID.sub(lambda m: ids.get(m.group(), "MATCH?"), text) for name, text in out.items()}
