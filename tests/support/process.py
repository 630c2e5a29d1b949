"""The real `matchserver` program as a child process, for tests that signal it (SIGTERM, SIGKILL)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

MATCHSERVER = Path(sys.executable).parent / "matchserver"
WAIT = 60.0  # generous: the suite must pass on two loaded cores


@dataclass
class ServerProcess:
    process: subprocess.Popen[str]
    address: str
    var: Path
    log: Path

    @property
    def port(self) -> int:
        return int(self.address.rsplit(":", 1)[1])

    def admin_token(self) -> str:
        return (self.var / "admin.token").read_text().strip()

    def stop(self, signum: int = signal.SIGTERM) -> int:
        """Send `signum` and wait for the exit code (SIGKILL: -9, nothing flushed or closed)."""
        self.process.send_signal(signum)
        return self.process.wait(WAIT)


def child_env() -> dict[str, str]:
    """This environment without MATCHSERVER_* settings: a test says everything on the command line."""
    return {key: value for key, value in os.environ.items() if not key.startswith("MATCHSERVER_")}


def start_process(var: Path, log: Path, port: int = 0) -> ServerProcess:
    """Start `matchserver` on 127.0.0.1:`port` (0: any free port) with its data in `var`, its log in `log`;
    returns once it says it is listening."""
    command = [str(MATCHSERVER), "--address", f"127.0.0.1:{port}", "--var", str(var)]
    with log.open("w") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, env=child_env())
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"listening on (\S+)", line)
    if not found:
        process.kill()
        process.wait(WAIT)
    assert found, f"the server did not start: {line!r} {log.read_text()}"
    return ServerProcess(process, found.group(1), var, log)
