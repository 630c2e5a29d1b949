"""Running `matchctl` in this process against a test server: its exit code, stdout and stderr."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass

from clients import cli
from tests.support.server import ServerThread


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str


def matchctl(server: ServerThread, *args: str, var: bool = True) -> Ran:
    """`matchctl --server ADDRESS --var VAR ARGS...` as a person types it (the server's own var/; without
    `var`, no --var: matchctl finds it, or not, by itself)."""
    out, err = io.StringIO(), io.StringIO()
    given = ["--var", server.settings.var_dir] if var else []
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["--server", server.address, *given, *args])
    return Ran(code, out.getvalue(), err.getvalue())
