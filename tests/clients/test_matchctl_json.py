"""`--json` on every matchctl command prints one JSON document on stdout (`watch`: one a line, as it
follows the match). The commands are the parser's own: a command added without a case here fails."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from clients.cli_parser import build_parser
from tests.clients.matchctl_cli import matchctl
from tests.support.server import ServerThread

ECHO_BOT = Path(__file__).resolve().parents[2] / "clients" / "examples" / "echo_bot.sh"
GATHER = "I will send 2 workers to the Ganlon tree."  # Ganlon is a tree of round 1 with seed 1


def subcommands() -> set[str]:
    parser = build_parser()
    found = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(found) == 1
    return set(found[0].choices)


Step = Callable[[dict[str, Any]], list[str]]

# In order: each step's arguments may use what earlier steps printed (kept in `seen` by command).
STEPS: list[tuple[str, Step]] = [
    ("token", lambda seen: ["token", "admin", seen["admin"]]),
    ("create", lambda seen: ["create", "cookoff", "--players", "ann,bob", "--seed", "1"]),
    ("invite", lambda seen: ["invite", seen["match"], "bob"]),
    ("join", lambda seen: ["join", seen["match"], "ann", "--invitation", seen["create"]["invitations"]["ann"]]),
    ("start", lambda seen: ["start", seen["match"], "--reason", "bob joins later"]),  # it waits for bob else
    ("host-key", lambda seen: ["host-key", "create", "club night"]),
    ("submit", lambda seen: ["submit", seen["match"], "--as", "ann", GATHER]),
    ("state", lambda seen: ["state", seen["match"], "--as", "ann"]),
    ("history", lambda seen: ["history", seen["match"]]),
    ("audit", lambda seen: ["audit", seen["match"]]),
    ("list", lambda seen: ["list"]),
    ("picture", lambda seen: ["picture", seen["match"], "--as", "spectator"]),
    ("replay", lambda seen: ["replay", seen["match"], "--as", "spectator"]),
    ("transcript", lambda seen: ["transcript", seen["match"]]),
    ("simulate", lambda seen: ["simulate", "--script", seen["script"]]),
    ("verify", lambda seen: ["verify", seen["match"], "--receipts"]),
    ("pause", lambda seen: ["pause", seen["match"], "--reason", "a break"]),
    ("resume", lambda seen: ["resume", seen["match"]]),
    ("extend", lambda seen: ["extend", seen["match"], "--seconds", "60"]),
    ("settle", lambda seen: ["settle", seen["match"], "--reason", "the tie goes to ann"]),
    ("end-phase", lambda seen: ["end-phase", seen["mining"], "--reason", "everyone is done"]),  # set-up defaults
    (  # the host's own dispute of the set-up that end-phase just resolved
        "dispute",
        lambda seen: [
            "dispute",
            seen["mining"],
            "--at",
            str(seen["end-phase"]["version"]),
            "a check",
            "--token",
            seen["admin"],
        ],
    ),
    ("fork", lambda seen: ["fork", seen["match"], "--at", str(seen["state"]["version"])]),
    (
        "rollback",
        lambda seen: ["rollback", seen["match"], "--to", str(seen["state"]["version"]), "--reason", "a misread"],
    ),
    ("cancel", lambda seen: ["cancel", seen["match"], "--reason", "a test match"]),
    # The match is over: the bridge prints its end at once. (The test's own --json, last, goes to the program.)
    ("bridge", lambda seen: ["--json", "bridge", seen["match"], "--as", "ann", "--", "sh", str(ECHO_BOT)]),
    ("watch", lambda seen: ["watch", seen["match"], "--as", "spectator", "--from", "5"]),
    ("play-bots", lambda seen: ["play-bots", "--game", "mining", "--seed", "1"]),
    ("bot", lambda seen: ["bot", "create", "ann-bot", "--auto-accept"]),
    ("challenge", lambda seen: ["challenge", "--game", "cookoff", "--bots", "ann-bot,bob-bot"]),
    ("tournament", lambda seen: ["tournament", "create", "--game", "cookoff", "--bots", "ann-bot,bob-bot"]),
    ("leaderboard", lambda seen: ["leaderboard", "--game", "cookoff"]),
]


@pytest.mark.slow
def test_every_command_with_json_prints_one_json_document(server: ServerThread, tmp_path: Path) -> None:
    assert {command for command, _ in STEPS} == subcommands()  # a new command needs its case here
    seen: dict[str, Any] = {"admin": server.admin_token}
    client = server.client()
    client.create_bot("bob-bot", auto_accept=True)  # the tournament's second bot
    mining = client.create("mining", ["a", "b", "c", "d", "e"], seed=2)
    client.host_action(mining.match_id, mining.host_token, "start", "no seat joins this one")
    seen["mining"] = mining.match_id
    for command, step in STEPS:
        args = step(seen)
        ran = matchctl(server, *args, "--json")
        assert ran.code == 0, f"{args}: exit {ran.code}\n{ran.err}"
        if command == "watch":
            documents = [json.loads(line) for line in ran.out.splitlines()]
            assert documents and documents[-1]["status"]["finished"], ran.out
            seen[command] = documents
        else:
            try:
                seen[command] = json.loads(ran.out)  # one document: anything after it is "Extra data"
            except json.JSONDecodeError as exc:
                raise AssertionError(f"{args} --json printed no single JSON document ({exc}):\n{ran.out}") from None
        if command == "create":
            seen["match"] = seen["create"]["match"]
        elif command == "transcript":
            script = tmp_path / "match.txt"
            script.write_text("\n".join(seen["transcript"]["lines"]) + "\n")
            seen["script"] = str(script)
    assert seen["join"]["player_token"] and seen["invite"]["invitation"]
    assert [r["version"] for r in seen["history"]["records"]] == list(range(1, len(seen["history"]["records"]) + 1))
    assert seen["submit"]["understood"] == GATHER


def test_a_host_who_fills_a_seat_is_shown_the_token_to_hand_over(server: ServerThread) -> None:
    created = json.loads(matchctl(server, "create", "cookoff", "--players", "ann,bob", "--json").out)
    filled = matchctl(server, "join", created["match"], "bob")
    assert filled.code == 0, filled.err
    token = filled.out.strip().splitlines()[-1]
    assert "hand to bob" in filled.out
    assert server.client().state(created["match"], token).viewer == "player:bob"  # the token works
