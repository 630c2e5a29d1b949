"""docs/BOTS.md is run: its worked session (a doctest against a real server) and every console command,
whose output must match what the page shows (`...` stands for what varies)."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.kit.seats import PLAYERS, example_bot
from tests.support.server import ServerThread

ROOT = Path(__file__).resolve().parents[2]
BOTS_MD = ROOT / "docs" / "BOTS.md"
CONSOLE = re.compile(r"```console\n(.*?)```", re.S)


def mining_match(server: ServerThread, seed: int) -> tuple[str, dict[str, str]]:
    client = server.client()
    players = list(PLAYERS["mining"])
    match_id = client.create("mining", players, seed=seed).match_id
    return match_id, {p: client.join(match_id, p) for p in players}


def test_the_worked_session_of_bots_md_gives_the_output_it_shows(server: ServerThread) -> None:
    match_id, tokens = mining_match(server, seed=7)
    globs = {"SERVER": server.address, "MATCH": match_id, "TOKENS": tokens}
    text = BOTS_MD.read_text()
    test = doctest.DocTestParser().get_doctest(text, globs, "docs/BOTS.md", str(BOTS_MD), 0)
    assert len(test.examples) > 20
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=report.append)
    assert result.failed == 0, "".join(report)


NOT_RUN = "# not run"  # a command that needs more than this test has (the arena's: tests/clients runs them)


def console_commands() -> list[tuple[str, str]]:
    """(command, the output shown) for every `$ ` line of the page's console blocks, but those marked
    `# not run` (with the output shown under them)."""
    out: list[tuple[str, str]] = []
    skipping = False
    for block in CONSOLE.findall(BOTS_MD.read_text()):
        for line in block.splitlines(keepends=True):
            if line.startswith("$ "):
                skipping = line.rstrip().endswith(NOT_RUN)
                if not skipping:
                    out.append((line[2:].strip(), ""))
            elif not skipping:
                command, shown = out[-1]
                out[-1] = (command, shown + line)
    return out


def test_every_console_command_of_bots_md_runs_and_prints_what_it_shows(server: ServerThread, tmp_path: Path) -> None:
    """The kit's commands as a bot author types them; ann's seat is the documented command, the other
    four seats are the same example bot run by the test."""
    match_id, tokens = mining_match(server, seed=9)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # python3: this venv's
    others = [
        subprocess.Popen(
            [sys.executable, str(example_bot("mining")), server.address, match_id, player],
            env={**env, "PYTHONPATH": str(ROOT), "MATCH_TOKEN": tokens[player]},
            stdout=subprocess.DEVNULL,
        )
        for player in PLAYERS["mining"]
        if player != "ann"
    ]
    shell_env = {
        **env,
        "SITE": str(tmp_path / "site"),
        "KIT": str(ROOT),
        "SERVER": server.address,
        "MATCH": match_id,
        "TOKEN": tokens["ann"],
    }
    commands = console_commands()
    assert [c.split()[0] for c, _ in commands] == ["make", "python3", "cd"]
    checker = doctest.OutputChecker()
    try:
        for command, shown in commands:
            ran = subprocess.run(
                ["bash", "-c", command], cwd=ROOT, env=shell_env, capture_output=True, text=True, timeout=300
            )
            assert ran.returncode == 0, f"{command}\n{ran.stdout}\n{ran.stderr}"
            assert checker.check_output(shown, ran.stdout, doctest.ELLIPSIS), f"{command} printed:\n{ran.stdout}"
    finally:
        for process in others:
            process.wait(timeout=120)
    assert all(process.returncode == 0 for process in others)
