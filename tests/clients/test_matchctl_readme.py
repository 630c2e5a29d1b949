"""The README's examples work: its `sh` blocks, run in order on a fresh server.

Each line runs in a shell in a fresh folder with MATCHCTL_SERVER pointing at the server, and the server's
data folder elsewhere, named by MATCHSERVER_VAR as the README says (so matchctl finds the admin token as
it would beside a server started with `--var DIR` or that variable). MATCH becomes the id
the last `create` printed, CODE the invitation it gave the seat named on the line, TOURNAMENT the id the
last `tournament create` printed. Lines marked
`# not run` (the set-up, `watch`, the TLS examples) are skipped.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_server

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```sh\n(.*?)```", re.S)
MATCHCTL = f"{shlex.quote(sys.executable)} -m clients.cli"


def readme_lines() -> list[str]:
    lines = []
    for block in BLOCK.findall((ROOT / "README.md").read_text()):
        lines += [line for line in block.splitlines() if line.strip() and "# not run" not in line]
    return lines


@pytest.mark.slow
def test_the_readme_examples_run_in_order_on_a_fresh_server(tmp_path: Path) -> None:
    server = make_server(tmp_path / "server-data")
    work = tmp_path / "work"
    work.mkdir()
    env = {
        **os.environ,
        "MATCHCTL_SERVER": server.address,
        "MATCHSERVER_VAR": server.settings.var_dir,
        "PYTHONPATH": str(ROOT),
        "MATCHCTL_CREDENTIALS": str(tmp_path / "credentials.json"),
    }
    match_id, tournament_id, invitations = "", "", {}
    ran = 0
    try:
        for line in readme_lines():
            assert line.startswith(".venv/bin/matchctl "), f"a README example this test cannot run: {line}"
            command = line.replace(".venv/bin/matchctl", MATCHCTL, 1).replace("MATCH", match_id)
            command = command.replace("TOURNAMENT", tournament_id)
            seat = re.search(r"join \S+ (\w+) --invitation CODE", command)
            if seat:
                command = command.replace("CODE", invitations[seat.group(1)])
            done = subprocess.run(command, shell=True, cwd=work, env=env, capture_output=True, text=True)
            assert done.returncode == 0, f"{line}\n{done.stdout}{done.stderr}"
            assert "Traceback" not in done.stderr
            if " tournament create " in line:
                tournament_id = done.stdout.strip()
            elif " create " in line and " bot create " not in line:
                match_id = done.stdout.strip()
                invitations = dict(re.findall(r"invitation for (\w+): (\S+)", done.stderr))
            ran += 1
    finally:
        server.stop()
    assert ran >= 15 and match_id and tournament_id
    assert not (work / "var").exists()  # nothing looked for, or made, in ./var
    assert (work / "match.txt").read_text().startswith("# game=cookoff seed=1 players=ann,bob")
