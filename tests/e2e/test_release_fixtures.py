"""What earlier releases stored keeps working: each folder under tests/fixtures/ holds a store and a
matchctl credentials file written by that release (tests/fixtures/make_release_fixture.sh). Here a copy
of each starts, verifies, and plays on, with the credentials as they were saved."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from clients import cli
from clients.client import MatchClient
from server.app import Settings
from server.clock import ManualClock
from server.identities import is_server_stream
from tests.support.server import ServerThread

FIXTURES = Path(__file__).parents[1] / "fixtures"
RELEASES = sorted(path.name for path in FIXTURES.iterdir() if (path / "var" / "matches.db").exists())
SAVED_AT = "127.0.0.1:50917"  # the address the fixture script's server had, which keys the credentials file


def stored_at(database: Path) -> float:
    """The match clock when the release stopped: its latest record's time. Its matches' deadlines run on
    from there; a server on today's clock would see them passed once the fixture is a day old (the mining
    match's start phase ended by the clock, a day after the fixture was written, and its test failed)."""
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as connection:
        states = [bytes(row[0]) for row in connection.execute("SELECT state FROM stored_events")]
    return max(float(at) for state in states for at in re.findall(rb'"at":([0-9.]+)', state))


@pytest.fixture(params=RELEASES)
def release(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerThread]:
    source = FIXTURES / request.param
    shutil.copytree(source, tmp_path / "release")  # never the fixture itself: starting tightens and keys it
    (tmp_path / "release" / "release.name").write_text(request.param)
    clock = ManualClock(stored_at(source / "var" / "matches.db") + 1)  # a second after the release stopped
    server = ServerThread(Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "release" / "var"), clock=clock))
    server.start()
    try:  # stopped even if the rest of the set-up fails
        saved = json.loads((tmp_path / "release" / "credentials.json").read_text())
        credentials = tmp_path / "credentials.json"
        credentials.write_text(json.dumps({server.address: saved[SAVED_AT]}))  # the same entries, this port
        monkeypatch.setenv("MATCHCTL_CREDENTIALS", str(credentials))
        yield server
    finally:
        server.stop()


def matchctl(server: ServerThread, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli.main(["--server", server.address, "--var", server.settings.var_dir, *args])
    return code, capsys.readouterr().out


# What each release's verify report says of its records, beyond OK (release 10: before the keyed chain
# and before Cookoff's and the Last Gathering's rules version 2).
VERIFY_NOTES = {
    "release-10": ["unkeyed up to v", "under rules version 1 (now 3)"],
    "release-11": ["under rules version 2 (now 3)"],
}


def test_the_fixture_was_not_changed_by_earlier_runs() -> None:
    for name in RELEASES:
        var = FIXTURES / name / "var"
        names = {path.name for path in var.iterdir()}  # no -wal or -shm: nothing ran on the fixture itself
        assert {"admin.token", "matches.db"} <= names <= {"admin.token", "chain.key", "matches.db"}, name


def test_a_stored_release_is_upgraded_once_then_starts_reading_no_match(
    release: ServerThread, caplog: pytest.LogCaptureFixture
) -> None:
    """The release before the catalog had none: the first start builds it (every match listed), later
    starts read no match."""
    listed = release.client().list_matches()
    assert len(listed) == 3
    release.stop()
    with caplog.at_level("INFO", logger="server.matches"):
        again = ServerThread(
            Settings(address="127.0.0.1:0", var_dir=release.settings.var_dir, clock=release.settings.clock)
        ).start()
    try:
        assert again.running is not None
        assert not any("upgrad" in message for message in caplog.messages)
        assert [m.match_id for m in again.client().list_matches()] == [m.match_id for m in listed]
        assert all(is_server_stream(stream) for stream in again.running.store.reads)  # identities, arena
    finally:
        again.stop()


def test_a_stored_release_starts_verifies_and_its_saved_tokens_still_act(
    release: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = matchctl(release, capsys, "verify", "--all")
    assert code == 0 and out.count(": OK (") == 3, out
    assert "identities: OK" in out and "arena: OK" in out
    root = Path(release.settings.var_dir).parent
    for note in VERIFY_NOTES[(root / "release.name").read_text()]:
        assert note in out  # e.g. release 10's records keep their SHA-256 links, and replay as recorded
    gathering = (root / "last-gathering.id").read_text().strip()
    code, out = matchctl(release, capsys, "state", gathering, "--json")  # the saved host token
    assert code == 0 and json.loads(out)["viewer"] == "host"
    code, out = matchctl(release, capsys, "state", gathering, "--as", "p3", "--json")  # a saved seat token
    assert code == 0 and json.loads(out)["viewer"] == "player:p3"
    code, out = matchctl(release, capsys, "list")
    assert code == 0 and gathering in out


def test_a_stored_match_plays_on_and_its_unclaimed_seats_are_filled_by_invitation(
    release: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    root = Path(release.settings.var_dir).parent
    mining = (root / "mining.id").read_text().strip()
    before = release.client().state(mining, release.admin_token).version
    code, invitation = matchctl(release, capsys, "invite", mining, "cyd")  # the host mints one
    assert code == 0 and invitation.strip()
    assert matchctl(release, capsys, "join", mining, "cyd", "--invitation", invitation.strip())[0] == 0
    code, _ = matchctl(release, capsys, "submit", mining, "--as", "ann", "start", "b", "1;", "start", "c", "2;",
                       "start", "p", "3;", "start", "s", "4;", "start", "t", "5")  # fmt: skip
    assert code == 0
    assert matchctl(release, capsys, "end-phase", mining, "--reason", "fixture plays on")[0] == 0
    after = MatchClient(release.address, host_credential=release.admin_token).state(mining, release.admin_token)
    assert after.version > before + 3
    code, out = matchctl(release, capsys, "verify", mining, "--receipts")
    assert code == 0 and "receipts held" in out and ", 0 receipts held" not in out, out


def test_a_stored_match_keeps_its_deadline_and_the_clock_ends_its_phase_once_it_passes(
    release: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    """The other side of the fixed clock: a deadline stored by an old release still binds."""
    mining = (Path(release.settings.var_dir).parent / "mining.id").read_text().strip()
    status = release.client().state(mining, release.admin_token).status
    clock = release.settings.clock
    assert isinstance(clock, ManualClock) and status.phase == "setup" and status.deadline > clock.now()
    clock.advance(status.deadline - clock.now() + 1)
    code, _ = matchctl(release, capsys, "submit", mining, "--as", "ann", "start", "b", "1")
    assert code == 1  # too late: the clock ended the setup phase first
    assert release.client().state(mining, release.admin_token).status.phase != "setup"


def test_a_stored_release_hosts_bots_and_a_tournament_beside_its_old_matches(release: ServerThread) -> None:
    """Issue 16 adds record kinds (bot keys in the identities stream, the arena's and tournaments' own
    streams) and two keys of a match's created record; a store from before them has none, and gains them."""
    from tests.e2e.arena.support import Arena

    arena = Arena(release)
    try:
        before = release.client().list_matches()
        for name in ("ann", "bob"):
            arena.bot(name)
        made = arena.tournament("duel", ["ann", "bob"], format="round-robin", games_per_pair=1, seed=9)
        done = arena.play_out(made.tournament_id)
        assert done.state == "finished" and done.matches_finished == 1
        after = release.client().list_matches()
        assert [m.match_id for m in after[: len(before)]] == [m.match_id for m in before]  # old ones listed as before
        assert len(after) == len(before) + 1  # the tournament's match is a match; its streams are not
    finally:
        arena.close()


def test_matches_an_earlier_release_stored_keep_the_clock_they_recorded(release: ServerThread) -> None:
    """Since issue 24 a new match waits for its players; a stored one started at its creation and goes
    on so: not waiting, its deadlines those its records hold, whether or not its seats were claimed."""
    client = release.client()
    for summary in client.list_matches():
        state = client.state(summary.match_id, release.admin_token)
        assert not state.status.phase.startswith("waiting"), summary.match_id
        records = [json.loads(event.json) for event in client.history(summary.match_id, release.admin_token)]
        assert "waits" not in records[0] and records[1]["kind"] == "game"  # started with its creation
