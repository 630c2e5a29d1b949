"""`matchctl`'s outputs of a seeded match, against the golden files in tests/golden/matchctl/.

The readable outputs (`NAME.txt`) are this release's; rewrite them with MATCHCTL_UPDATE_GOLDEN=1 after a
deliberate change. The `--json` outputs (`NAME.json.txt`) are what programs parse: one JSON document
each (`watch`: one a line). `state` and `play-bots` are the bytes matchctl wrote before readable output
became the default; `submit`, `history`, `audit` and `watch` printed lines then, and became JSON documents
when every command's `--json` did (issue 24). Programs depend on these: rewrite them only for a deliberate
change of the machine form, with MATCHCTL_UPDATE_GOLDEN_JSON=1.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients import cli
from server.clock import ManualClock
from tests.clients.matchctl_scenario import outputs
from tests.conftest import make_server

GOLDEN = Path(__file__).parent.parent / "golden" / "matchctl"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The scenario, played once for every test here, on its own server and credentials file."""
    folder = tmp_path_factory.mktemp("golden")
    clock = ManualClock()
    server = make_server(folder, clock)
    saved = os.environ.get("MATCHCTL_CREDENTIALS")
    os.environ["MATCHCTL_CREDENTIALS"] = str(folder / "credentials.json")

    def run(args: list[str], as_json: bool) -> str:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
            cli.main(["--server", server.address, "--var", server.settings.var_dir, *args, *(["--json"] * as_json)])
        return printed.getvalue()

    try:
        yield outputs(run, clock.advance)
    finally:
        server.stop()
        if saved is not None:
            os.environ["MATCHCTL_CREDENTIALS"] = saved


def test_every_output_of_the_seeded_match_is_its_golden_file(played: dict[str, str]) -> None:
    for name, text in played.items():
        machine = name.endswith(".json.txt")
        if os.environ.get("MATCHCTL_UPDATE_GOLDEN_JSON" if machine else "MATCHCTL_UPDATE_GOLDEN"):
            (GOLDEN / name).write_text(text)
    kept = {path.name for path in GOLDEN.iterdir()}
    assert kept == set(played)
    for name, text in played.items():
        assert text == (GOLDEN / name).read_text(), f"{name} differs from tests/golden/matchctl/{name}"


def test_the_readable_board_shows_time_left_and_only_the_viewers_own_sealed_part(played: dict[str, str]) -> None:
    ann, bob, spectator = played["state-ann.txt"], played["state-bob.txt"], played["state-spectator.txt"]
    assert "time left: 225 s" in ann and "1000240" not in ann  # seconds left, not an epoch
    sealed = "submitted: I will send 2 workers to the Ganlon tree."
    assert sealed in ann.split("your part:")[1]  # ann's sealed harvesters are hers to see...
    assert "Ganlon tree" not in bob and "Ganlon tree" not in spectator  # ...and no one else's
    assert "trees:     Ganlon 2" in bob and "trees:     Ganlon 2" in spectator  # (the trees are public)
    assert "as spectator" in spectator and "your part:" not in spectator


def test_submit_says_what_was_understood_that_it_binds_and_what_is_left_unassigned(played: dict[str, str]) -> None:
    said = played["submit.txt"]
    assert "understood as: I will send 2 workers to the Ganlon tree." in said
    assert "binding:" in said and "a second one will be refused" in said
    assert "2 of your 4 harvesters are unassigned" in said


def test_play_bots_names_the_winner_and_history_is_one_short_line_per_record(played: dict[str, str]) -> None:
    table = played["play-bots.txt"]
    winner = table.strip().splitlines()[-1]
    assert winner.startswith("won by bot") and winner.split()[-1] in table.split("rank")[1].splitlines()[2]
    history = played["history.txt"].splitlines()
    assert [int(line.split()[0]) for line in history] == list(range(1, len(history) + 1))
    assert all(len(line) <= 160 for line in history)
    assert played["watch.txt"].splitlines()[-1].split()[3] == "match_finished:"  # and watch stopped there


def test_the_results_table_says_yes_and_no(played: dict[str, str]) -> None:
    table = played["play-bots.txt"]
    assert "True" not in table and "False" not in table
    assert " yes " in table and " no " in table  # mining's elimination_candidate column


@pytest.mark.slow
def test_a_reader_that_goes_away_gets_no_broken_pipe_message(tmp_path: Path) -> None:
    """`matchctl history MATCH --json | head -c 100`: a whole mining match is far longer than a pipe holds,
    so matchctl writes on after head has gone."""
    import shlex
    import subprocess
    import sys

    server = make_server(tmp_path)
    try:
        base = [sys.executable, "-m", "clients.cli", "--server", server.address, "--var", server.settings.var_dir]
        played = subprocess.run([*base, "play-bots", "--game", "mining", "--seed", "1"], capture_output=True, text=True)
        assert played.returncode == 0, played.stderr
        match_id = played.stdout.split("match ", 1)[1].split(":", 1)[0]
        command = " ".join(shlex.quote(a) for a in [*base, "history", match_id, "--json"]) + " | head -c 100"
        done = subprocess.run(["bash", "-c", f"set -o pipefail; {command}"], capture_output=True, text=True)
        assert len(done.stdout) == 100
        assert done.stderr.strip() == "", done.stderr  # no "Broken pipe", no traceback (a progress bar: blank)
    finally:
        server.stop()
