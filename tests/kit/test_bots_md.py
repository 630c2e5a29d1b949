"""docs/BOTS.md is run: its worked session (a doctest against a real server) and every console command,
whose output must match what the page shows (`...` stands for what varies)."""

from __future__ import annotations

import doctest
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from clients.credentials import Credentials
from tests.kit.seats import PLAYERS, example_bot
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

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


ARENA = "## The arena"  # the section run by the arena test; the console blocks before it are the kit's


def console_commands(text: str) -> list[tuple[str, str]]:
    """(command, the output shown) for every `$ ` line of the console blocks of `text`."""
    out: list[tuple[str, str]] = []
    for block in CONSOLE.findall(text):
        for line in block.splitlines(keepends=True):
            if line.startswith("$ "):
                out.append((line[2:].strip(), ""))
            else:
                command, shown = out[-1]
                out[-1] = (command, shown + line)
    return out


def kit_and_arena() -> tuple[str, str]:
    text = BOTS_MD.read_text()
    start = text.index(ARENA)
    return text[:start], text[start:]


def shell_base_env() -> dict[str, str]:
    """The environment a bot author's shell has: no PYTHONPATH, and `python3` and `matchctl` of this venv."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("MATCHSERVER_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_shown(command: str, shown: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run one console line and compare what a terminal shows (stderr, then stdout) with the page."""
    ran = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, f"{command}\n{ran.stdout}\n{ran.stderr}"
    printed = ran.stderr + ran.stdout
    assert doctest.OutputChecker().check_output(shown, printed, doctest.ELLIPSIS), f"{command} printed:\n{printed}"
    return ran


@pytest.mark.slow
def test_every_console_command_of_bots_md_runs_and_prints_what_it_shows(server: ServerThread, tmp_path: Path) -> None:
    """The kit's commands as a bot author types them; ann's seat is the documented command, the other
    four seats are the same example bot run by the test."""
    match_id, tokens = mining_match(server, seed=9)
    env = shell_base_env()
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
    kit, _ = kit_and_arena()
    commands = console_commands(kit)
    assert [c.split()[0] for c, _ in commands] == ["make", "python3", "cd"]
    try:
        for command, shown in commands:
            run_shown(command, shown, shell_env)
    finally:
        for process in others:
            process.wait(timeout=120)
    assert all(process.returncode == 0 for process in others)


WALKTHROUGH_BOTS = ("ann-bot", "bob-bot", "cid-bot")  # the page creates ann-bot; the others the same way
SHOWN_BOT = "ann-bot"  # whose notices the page shows
PLAYED = 300.0  # a bound on a hang (a tournament on two loaded cores), not a speed requirement


class ArenaBots:
    """The page's bot command, run in the background once per bot key, as each bot's author runs it."""

    def __init__(self, command: str, keys: dict[str, str], env: dict[str, str], log_dir: Path) -> None:
        self.outputs = {name: log_dir / f"{name}.out" for name in keys}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        for name, key in keys.items():
            with self.outputs[name].open("wb") as out, (log_dir / f"{name}.err").open("wb") as err:
                self.processes[name] = subprocess.Popen(
                    ["bash", "-c", command],
                    cwd=ROOT,
                    env={**env, "KEY": key},
                    stdout=out,
                    stderr=err,
                    start_new_session=True,  # its own process group, as a terminal's foreground job
                )

    def running(self) -> bool:
        return all(process.poll() is None for process in self.processes.values())

    def interrupt(self) -> dict[str, int | None]:
        """Ctrl-C, as the page says a bot is stopped (to the job's process group, as a terminal sends it);
        every bot's exit code (None: it had to be killed)."""
        codes: dict[str, int | None] = {}
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGINT)
        for name, process in self.processes.items():
            try:
                codes[name] = process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(30)
                codes[name] = None
        return codes

    def output(self, name: str) -> str:
        return self.outputs[name].read_text()

    def report(self) -> str:
        parts = []
        for name, path in self.outputs.items():
            parts.append(f"--- {name}\n{path.read_text()[-2000:]}{path.with_suffix('.err').read_text()[-2000:]}")
        return "\n".join(parts)


@pytest.mark.slow
def test_the_arena_walkthrough_of_bots_md_runs_in_order_against_a_real_server(
    server: ServerThread, tmp_path: Path
) -> None:
    """The arena section as its bot authors and organiser type it: three bots registered with matchctl,
    each run with the key matchctl printed, a tournament created, followed to its end, rated, verified,
    and a match voided and replayed. The server's clock never moves: every phase ends by the bots' moves."""
    Credentials().set_admin(server.address, server.admin_token)  # what `matchctl token admin TOKEN` saves
    env = {**shell_base_env(), "MATCHCTL_SERVER": server.address, "SERVER": server.address}
    _, arena = kit_and_arena()
    commands = console_commands(arena)
    assert [" ".join(c.split()[:3]) for c, _ in commands] == [
        "matchctl bot create",
        'MATCHSERVER_BOT_KEY="$KEY" .venv/bin/python clients/examples/arena_bot.py',
        "matchctl tournament create",
        "matchctl tournament show",
        "matchctl leaderboard --game",
        "matchctl verify --tournament",
        "matchctl tournament void",
    ]
    client = server.client()
    keys: dict[str, str] = {}
    bots: ArenaBots | None = None
    shown_notices = ""

    def played_out(what: str) -> None:
        """Wait until the tournament is finished: the bots play every match it starts."""
        try:
            wait_until(lambda: client.get_tournament(env["T"]).state == "finished", what, timeout=PLAYED, poll=0.1)
        except AssertionError as never:
            raise AssertionError(f"{never}\n{bots.report() if bots else 'no bots running'}") from None

    try:
        for command, shown in commands:
            if command.startswith("matchctl bot create"):
                for name in WALKTHROUGH_BOTS:
                    ran = run_shown(command.replace(SHOWN_BOT, name), shown.replace(SHOWN_BOT, name), env)
                    keys[name] = ran.stdout.splitlines()[-1]  # the key, as its author copies it
            elif "arena_bot.py" in command:  # .venv/bin/python: the venv this suite runs in, wherever it is
                command = command.replace(".venv/bin/python", shlex.quote(sys.executable), 1)
                bots, shown_notices = ArenaBots(command, keys, env, tmp_path), shown
            else:
                ran = run_shown(command, shown, env)
            if command.startswith("matchctl tournament create"):
                env["T"] = ran.stdout.strip()
                played_out("the bots play the tournament to its end")
                env["FIRST_MATCH"] = client.get_tournament(env["T"]).matches[0].match_id
            elif command.startswith("matchctl tournament void"):
                played_out("the bots play the rematch")
        assert bots is not None and bots.running(), bots.report() if bots else "no bots"
    finally:
        codes = bots.interrupt() if bots else {}
    assert codes == dict.fromkeys(WALKTHROUGH_BOTS, 0), bots.report()  # Ctrl-C: each bot stops, exit 0
    notices = bots.output(SHOWN_BOT)
    assert doctest.OutputChecker().check_output(shown_notices, notices, doctest.ELLIPSIS), notices
