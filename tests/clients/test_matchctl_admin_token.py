"""matchctl finds the admin token of a server started with `--var DIR` where the server does: --var,
else $MATCHSERVER_VAR (server/main.py), else ./var; and without one it says how to give it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients.matchctl_cli import matchctl
from tests.support.server import ServerThread

CREATE = ("create", "cookoff", "--players", "ann,bob", "--seed", "1")


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with no var/ of its own: the server's data is in tmp_path/var."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.delenv("MATCHSERVER_VAR", raising=False)
    return folder


def test_matchserver_var_names_the_servers_folder_for_matchctl_too(
    server: ServerThread, elsewhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MATCHSERVER_VAR", server.settings.var_dir)  # as the server was started
    created = matchctl(server, *CREATE, var=False)
    assert created.code == 0, created.err
    match_id = created.out.strip()
    assert len(match_id) == 36
    assert matchctl(server, "join", match_id, "bob", var=False).code == 0  # the host fills a seat
    assert matchctl(server, "host-key", "list", var=False).code == 0  # the admin's own command


@pytest.mark.parametrize(
    "args",
    [CREATE, ("host-key", "create", "club"), ("play-bots", "--game", "mining")],
    ids=["create", "host-key", "play-bots"],
)
def test_without_the_admin_token_matchctl_says_how_to_give_it(
    server: ServerThread, elsewhere: Path, args: tuple[str, ...]
) -> None:
    refused = matchctl(server, *args, var=False)
    assert refused.code == 2 and not refused.out
    line = refused.err
    assert line.count("\n") == 1 and line.startswith("matchctl: "), line
    assert "admin token" in line and "MATCHSERVER_VAR" in line and "--var" in line, line
    assert "matchctl token admin TOKEN" in line and "host-key KEY" in line, line
    assert str(elsewhere / "var" / "admin.token") in line  # where it looked
    assert "token for this match" not in line  # not a match's token: the admin's


def test_a_match_token_refusal_still_names_the_match_tokens(server: ServerThread, elsewhere: Path) -> None:
    """A host whose credential the server does not know is told about the admin token, not a seat's."""
    refused = matchctl(server, *CREATE, "--var", str(elsewhere), var=False)
    assert refused.code == 2 and "admin token" in refused.err
    (elsewhere / "admin.token").write_text("not-the-token\n")
    wrong = matchctl(server, *CREATE, "--var", str(elsewhere), var=False)
    assert wrong.code == 1 and wrong.err.startswith("matchctl: UNAUTHENTICATED"), wrong.err
    assert "matchctl token admin TOKEN" in wrong.err and "token for this match" not in wrong.err
