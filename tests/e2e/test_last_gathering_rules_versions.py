"""The Last Gathering's rules version 2 (LG-12, the deadline grid) beside the matches stored under
version 1 (LG-P4): release-10's stored match verifies under the version it recorded and plays on under
it; a new match records version 2 and decides its deadlines on the grid."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import grpc
import pytest

from server.app import Settings
from tests.support.server import ServerThread

RELEASE = Path(__file__).parents[1] / "fixtures" / "release-10"
DAY = 24 * 3600
HALF_DAY = 12 * 3600


@pytest.fixture
def release(request: pytest.FixtureRequest, tmp_path: Path) -> ServerThread:
    shutil.copytree(RELEASE, tmp_path / "release")  # never the fixture itself: starting tightens and keys it
    server = ServerThread(Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "release" / "var"))).start()
    request.addfinalizer(server.stop)
    return server


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
    assert (report.recorded_rules_version, report.current_rules_version) == ("1", "2")
    before = client.state(gathering, release.admin_token)
    assert not before.status.finished
    client.force_phase_end(gathering, release.admin_token, reason="the stored match plays on")
    opened, at = last_game_event(release, gathering)
    assert opened["type"] in ("step_opened", "frame_round_opened"), opened
    assert opened["deadline"] == pytest.approx(at + DAY, abs=1e-3)  # LG-P4: the time it opened plus a day
    after = client.verify(gathering, release.admin_token)
    assert after.ok and after.recorded_rules_version == "1", after.problem


def test_lg12_a_new_match_records_version_2_and_its_deadlines_sit_on_the_grid(release: ServerThread) -> None:
    client = release.client()
    players = ["p1", "p2", "p3"]
    config = {"first_frame_round_seconds": 5 * DAY + HALF_DAY}  # so step 1 opened now lasts 1.5 days
    match_id = client.create("last-gathering", players, seed=4, config=config).match_id
    client.host_action(match_id, release.admin_token, "start", "the seats join later")  # it waits until then
    first, started = last_game_event(release, match_id)
    anchor = started + 5 * DAY + HALF_DAY
    assert first == {"type": "frame_round_opened", "round": 1, "deadline": pytest.approx(anchor, abs=1e-3)}
    client.force_phase_end(match_id, release.admin_token, reason="frames at random")
    opened, at = last_game_event(release, match_id)
    assert opened["type"] == "step_opened"
    deadline = float(str(opened["deadline"]))
    assert deadline == pytest.approx(anchor - 4 * DAY, abs=1e-3)  # LG-12: the first grid point a day or more on
    assert at + DAY <= deadline < at + 2 * DAY
    report = client.verify(match_id, release.admin_token)
    assert report.ok and (report.recorded_rules_version, report.current_rules_version) == ("2", "2"), report.problem


def test_lg12_first_deadline_at_is_refused_when_it_is_not_a_utc_time(release: ServerThread) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        release.client().create("last-gathering", ["a", "b"], config={"first_deadline_at": "next Saturday"})
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "first_deadline_at" in (refused.value.details() or "")
