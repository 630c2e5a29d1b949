"""`matchctl history` and `matchctl watch` print one plain line per record: its version, its time as an
offset from the match's first record, its kind and who did what; never JSON, never an epoch reading, and
never more than the viewer may see."""

from __future__ import annotations

import re

import pytest

from clients.cli_records import offset
from server.clock import ManualClock
from tests.clients.matchctl_cli import matchctl
from tests.clients.matchctl_scenario import BOB_GATHER, GATHER
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

EPOCH = re.compile(r"\d{7,}")


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0, "+0s"), (0.4, "+0s"), (15.000000001, "+15s"), (59.6, "+1m00s"), (275, "+4m35s"), (7380, "+2h03m")],
)
def test_an_offset_is_whole_seconds_minutes_or_hours(seconds: float, shown: str) -> None:
    assert offset(seconds) == shown


def played_cookoff(server: ServerThread, clock: ManualClock) -> str:
    """A Cookoff match: both seats joined, both gather at +15 s, a paused break, then placement times out."""
    match_id = matchctl(server, "create", "cookoff", "--players", "ann,bob", "--seed", "1").out.strip()
    for player in ("ann", "bob"):
        assert matchctl(server, "join", match_id, player).code == 0
    clock.advance(15)
    assert matchctl(server, "submit", match_id, "--as", "ann", GATHER).code == 0
    assert matchctl(server, "submit", match_id, "--as", "bob", BOB_GATHER).code == 0
    assert matchctl(server, "pause", match_id, "--reason", "a break").code == 0
    assert matchctl(server, "resume", match_id).code == 0
    clock.advance(275)  # past the placement deadline (90 s base, 180 s reserve): a timeout
    wait_until(lambda: "deadline passed" in matchctl(server, "history", match_id).out, "the deadline was applied")
    return match_id


def lines_of(text: str) -> list[str]:
    lines = text.splitlines()
    assert lines, "nothing printed"
    for line in lines:
        assert "{" not in line and "[" not in line, f"a JSON blob in {line!r}"
        assert not EPOCH.search(line), f"an epoch reading in {line!r}"
        assert not line.endswith("..."), f"a line cut short: {line!r}"
    return lines


def test_history_says_who_did_what_with_offsets_from_the_first_record(server: ServerThread, clock: ManualClock) -> None:
    match_id = played_cookoff(server, clock)
    host = lines_of(matchctl(server, "history", match_id).out)
    assert [int(line.split()[0]) for line in host] == list(range(1, len(host) + 1))
    assert host[0].split()[1:3] == ["+0s", "created"] and "cookoff match for ann, bob, seed 1" in host[0]
    assert "joined   ann took their seat" in host[1]
    submitted = [line for line in host if "submission_received" in line]
    assert "+15s" in submitted[0] and submitted[0].endswith(f"ann: {GATHER}")
    assert submitted[1].endswith(f"bob: {BOB_GATHER}")
    assert any(line.split()[2] == "host" and line.endswith("host: pause (a break)") for line in host)
    assert any(line.endswith("host: resume") for line in host)
    timed_out = next(line for line in host if "deadline passed" in line)
    assert timed_out.split()[1] == "+4m45s"  # at the deadline: placement opened at +15 s, 90 s base + 180 s reserve


def test_a_viewer_sees_a_sealed_submission_as_made_and_no_more(server: ServerThread, clock: ManualClock) -> None:
    match_id = played_cookoff(server, clock)
    spectator = lines_of(matchctl(server, "history", match_id, "--as", "spectator").out)
    submitted = [line for line in spectator if "submission_received" in line]
    assert [line.split(": ", 1)[1] for line in submitted] == ["ann submitted", "bob submitted"]
    assert not any("workers" in line for line in spectator)
    assert any(line.endswith("host: pause (a break)") for line in spectator)  # host actions are public
    bob = lines_of(matchctl(server, "history", match_id, "--as", "bob").out)
    mine = [line.split(": ", 1)[1] for line in bob if "submission_received" in line]
    assert mine == ["ann submitted", f"bob: {BOB_GATHER}"]  # his own words, not ann's


def test_watch_prints_the_same_lines_as_history(server: ServerThread, clock: ManualClock) -> None:
    match_id = played_cookoff(server, clock)
    history = matchctl(server, "history", match_id, "--as", "spectator").out
    assert "finished" in matchctl(server, "state", match_id).out  # a timeout in Cookoff ends the match (CK-7)
    watched = matchctl(server, "watch", match_id, "--as", "spectator", "--from", "0")
    assert watched.code == 0, watched.err
    assert lines_of(watched.out) == history.splitlines()


def test_a_viewer_who_may_not_see_the_cause_still_reads_that_the_deadline_passed(
    server: ServerThread, clock: ManualClock
) -> None:
    match_id = played_cookoff(server, clock)
    spectator = lines_of(matchctl(server, "history", match_id, "--as", "spectator").out)
    assert any("deadline passed" in line and line.split()[1] == "+4m45s" for line in spectator)
