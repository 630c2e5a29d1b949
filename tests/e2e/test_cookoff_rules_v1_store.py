"""A Cookoff match stored under rules version 1 (before revised CK-6 withdrew CK-P4) keeps working on a
server whose current Cookoff rules are version 2: it verifies under the version it recorded, and a match
that stands in its final choice under version 1 still decides that choice the old way.

The store is tests/fixtures/release-10 (written by that release: bot1 and bot2 played a whole Cookoff
match, seed 7); each test starts a server on a copy, never on the fixture itself."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.client import MatchClient
from server.app import Settings
from server.clock import ManualClock
from tests.support.server import ServerThread

FIXTURE = Path(__file__).parents[1] / "fixtures" / "release-10"
FINAL_CHOICE_OPENED = 338  # the version whose record opened the stored match's final choice


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[tuple[ServerThread, ManualClock]]:
    shutil.copytree(FIXTURE, tmp_path / "release")  # never the fixture itself: starting tightens and keys it
    clock = ManualClock(start=1_796_200_000.0)
    settings = Settings(
        address="127.0.0.1:0", var_dir=str(tmp_path / "release" / "var"), clock=clock, tick_interval=3600
    )
    server = ServerThread(settings).start()  # a ticker that will not run during the test
    yield server, clock
    server.stop()


def cookoff_match(client: MatchClient, token: str) -> str:
    (match,) = [m for m in client.list_matches(token) if m.game == "cookoff"]
    return str(match.match_id)


def game_events(client: MatchClient, match_id: str, token: str) -> list[dict]:  # type: ignore[type-arg]
    records = [json.loads(event.json) for event in client.history(match_id, token)]
    return [record["event"] for record in records if record.get("kind") == "game"]


def test_ck6_a_stored_rules_version_1_cookoff_match_verifies_and_says_which_version_it_used(
    stored: tuple[ServerThread, ManualClock],
) -> None:
    """Revised CK-6 bumped Cookoff to rules version 2; a match recorded under version 1 is re-decided
    under version 1: it verifies, and the report names the version it used and the current one."""
    server, _ = stored
    client = server.client()
    match_id = cookoff_match(client, server.admin_token)
    report = client.verify(match_id, server.admin_token)
    assert report.ok, report.problem
    assert report.checked_batches > 100
    assert report.recorded_rules_version == "1" and report.current_rules_version == "2"


def test_ckp4_a_stored_match_in_its_final_choice_under_rules_version_1_still_decides_the_old_way(
    stored: tuple[ServerThread, ManualClock],
) -> None:
    """CK-P4 (withdrawn, rules version 1): a fork of the stored match at its final choice keeps the
    recorded rules version; there the choice runs on its 120 s base only, and a player who lets it pass is
    judged on the latest dish (`dish_defaulted`), where version 2 would have them lose on time."""
    server, clock = stored
    client = server.client()
    admin = server.admin_token
    origin = cookoff_match(client, admin)
    fork = client.fork(origin, admin, FINAL_CHOICE_OPENED, reason="play the final choice under rules 1")
    fork_id = str(fork.match_id)
    bot2 = client.join(fork_id, "bot2", token=fork.host_token)
    client.join(fork_id, "bot1", token=fork.host_token)
    state = client.state(fork_id, fork.host_token)
    assert state.status.phase == "final dish choice" and set(state.status.awaiting) == {"bot1", "bot2"}
    client.submit(fork_id, bot2, text="“I choose dish 2.”")
    status = client.state(fork_id, fork.host_token).status
    opened = game_events(client, fork_id, fork.host_token)[-2]
    assert opened["type"] == "phase_opened" and opened["phase"] == "final_choice"
    assert status.deadline == pytest.approx(opened["at"] + 120)  # base time only: no reserve (version 1)
    clock.advance(130)
    client.force_phase_end(fork_id, fork.host_token, reason="the base time has passed")
    events = game_events(client, fork_id, fork.host_token)
    defaulted, judged = events[-2:]
    assert defaulted["type"] == "dish_defaulted" and defaulted["player"] == "bot1" and defaulted["dish"] == 4
    assert judged["type"] == "match_judged" and judged["chosen"] == {"bot1": 4, "bot2": 2}
    assert not any(event["type"] == "time_expired" for event in events)
    report = client.verify(fork_id, fork.host_token)
    assert report.ok, report.problem
    assert report.recorded_rules_version == "1" and report.current_rules_version == "2"


def test_a_dispute_of_a_rules_version_1_judging_is_decided_again_under_todays_rules_and_differs(
    stored: tuple[ServerThread, ManualClock],
) -> None:
    """A dispute's review decides the contested resolution again under the current rules (version 2): the
    final choice that version 1 settled with `dish_defaulted` comes out otherwise, and the review says so."""
    server, clock = stored
    client = server.client()
    admin = server.admin_token
    fork = client.fork(cookoff_match(client, admin), admin, FINAL_CHOICE_OPENED, reason="a disputed final choice")
    fork_id = str(fork.match_id)
    bot2 = client.join(fork_id, "bot2", token=fork.host_token)
    client.join(fork_id, "bot1", token=fork.host_token)
    client.submit(fork_id, bot2, text="“I choose dish 2.”")
    clock.advance(130)
    client.force_phase_end(fork_id, fork.host_token, reason="the base time has passed")
    judged = client.history(fork_id, fork.host_token)[-1].version
    filed = client.file_dispute(fork_id, fork.host_token, judged, "bot1 says it never got the reserve time")
    again = client.review_dispute(filed.dispute_id, fork.host_token)["redecided"]
    assert again["recorded_rules_version"] == "1" and again["rules_version"] == "2"
    assert again["same"] is False and (again["differences"] or again["dropped"])
    same_rules = client.try_dispute(filed.dispute_id, {}, rules_version="1", token=fork.host_token)
    assert same_rules["differences"] == [] and same_rules["dropped"] == []  # under its own rules: as recorded
