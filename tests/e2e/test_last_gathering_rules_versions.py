"""The Last Gathering's rules version 3 (LG-13, the grid at noon UTC) beside the matches stored under
version 1 (LG-P4, release 10) and version 2 (LG-12's grid from the start plus 54 h, release 11): each
stored match verifies under the version it recorded and plays on under it; a new match records version 3
and decides its deadlines on the noon grid."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import grpc
import pytest

from server.app import Settings
from tests.support.server import ServerThread

RELEASE = Path(__file__).parents[1] / "fixtures" / "release-10"
RELEASE_11 = Path(__file__).parents[1] / "fixtures" / "release-11"
DAY = 24 * 3600
HALF_DAY = 12 * 3600


def started(request: pytest.FixtureRequest, tmp_path: Path, fixture: Path) -> ServerThread:
    shutil.copytree(fixture, tmp_path / "release")  # never the fixture itself: starting tightens and keys it
    server = ServerThread(Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "release" / "var"))).start()
    request.addfinalizer(server.stop)
    return server


@pytest.fixture
def release(request: pytest.FixtureRequest, tmp_path: Path) -> ServerThread:
    return started(request, tmp_path, RELEASE)


@pytest.fixture
def release_11(request: pytest.FixtureRequest, tmp_path: Path) -> ServerThread:
    return started(request, tmp_path, RELEASE_11)


def last_game_event(server: ServerThread, match_id: str) -> tuple[dict[str, object], float]:
    history = server.client().history(match_id, server.admin_token)
    event = [e for e in history if e.kind == "game"][-1]
    record = json.loads(event.json)
    return record["event"], float(record["at"])


def test_lg12_lgp4_a_stored_version_1_match_verifies_and_plays_on_under_version_1(release: ServerThread) -> None:
    client = release.client()
    gathering = (RELEASE / "last-gathering.id").read_text().strip()
    report = client.verify(gathering, release.admin_token)
    assert report.ok, report.problem
    assert (report.recorded_rules_version, report.current_rules_version) == ("1", "3")
    before = client.state(gathering, release.admin_token)
    assert not before.status.finished
    client.force_phase_end(gathering, release.admin_token, reason="the stored match plays on")
    opened, at = last_game_event(release, gathering)
    assert opened["type"] in ("step_opened", "frame_round_opened"), opened
    assert opened["deadline"] == pytest.approx(at + DAY, abs=1e-3)  # LG-P4: the time it opened plus a day
    after = client.verify(gathering, release.admin_token)
    assert after.ok and after.recorded_rules_version == "1", after.problem


def test_lg13_a_stored_version_2_match_verifies_and_plays_on_on_its_own_grid(release_11: ServerThread) -> None:
    client = release_11.client()
    gathering = (RELEASE_11 / "last-gathering.id").read_text().strip()
    report = client.verify(gathering, release_11.admin_token)
    assert report.ok and (report.recorded_rules_version, report.current_rules_version) == ("2", "3"), report.problem
    history = [json.loads(e.json) for e in client.history(gathering, release_11.admin_token) if e.kind == "game"]
    anchor = next(float(r["event"]["deadline"]) for r in history if r["event"]["type"] == "frame_round_opened")
    client.force_phase_end(gathering, release_11.admin_token, reason="the stored match plays on")
    opened, at = last_game_event(release_11, gathering)
    deadline = float(str(opened["deadline"]))
    assert at + DAY <= deadline < at + 2 * DAY
    assert (deadline - anchor) / DAY == pytest.approx(round((deadline - anchor) / DAY), abs=1e-6)  # its own grid
    after = client.verify(gathering, release_11.admin_token)
    assert after.ok and after.recorded_rules_version == "2", after.problem


def test_lg13_a_new_match_records_version_3_and_its_deadlines_sit_on_the_noon_grid(release: ServerThread) -> None:
    client = release.client()
    players = ["p1", "p2", "p3"]
    config = {"first_frame_round_seconds": 5 * DAY + HALF_DAY}  # so step 1 opened now lasts 1 to 2 days
    match_id = client.create("last-gathering", players, seed=4, config=config).match_id
    client.host_action(match_id, release.admin_token, "start", "the seats join later")  # it waits until then
    first, started_at = last_game_event(release, match_id)
    anchor = float(str(first["deadline"]))
    assert first["type"] == "frame_round_opened" and anchor % DAY == pytest.approx(HALF_DAY, abs=1e-3)  # noon UTC
    assert started_at + 5 * DAY + HALF_DAY <= anchor < started_at + 6 * DAY + HALF_DAY
    client.force_phase_end(match_id, release.admin_token, reason="frames at random")
    opened, at = last_game_event(release, match_id)
    assert opened["type"] == "step_opened"
    deadline = float(str(opened["deadline"]))
    assert deadline % DAY == pytest.approx(HALF_DAY, abs=1e-3)  # LG-12 on LG-13's grid
    assert at + DAY <= deadline < at + 2 * DAY
    report = client.verify(match_id, release.admin_token)
    assert report.ok and (report.recorded_rules_version, report.current_rules_version) == ("3", "3"), report.problem


def test_lg12_first_deadline_at_is_refused_when_it_is_not_a_utc_time(release: ServerThread) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        release.client().create("last-gathering", ["a", "b"], config={"first_deadline_at": "next Saturday"})
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "first_deadline_at" in (refused.value.details() or "")
