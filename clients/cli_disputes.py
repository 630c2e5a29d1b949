"""`matchctl dispute`: file a dispute against a resolution, list a match's disputes, and (host) review one,
try a correction on a private copy, uphold or correct it (docs/AUDIT.md, "Disputes").

    matchctl dispute MATCH --at V "why"            a seat (--as SEAT, or --token) or the host files one
    matchctl dispute list MATCH
    matchctl dispute show D                        the host's review
    matchctl dispute try D --replace "SEAT: TEXT" ... [--rules-version N] [--forward]
    matchctl dispute uphold D --reason R
    matchctl dispute correct D --reason R [--replace "SEAT: TEXT" ...] [--reapply]
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any

from clients.cli_names import UsageError, check_match_id
from clients.client import MatchClient
from clients.credentials import Credentials

ACTIONS = ("list", "show", "try", "uphold", "correct")


def add_parser(add: Any) -> None:
    p = add("dispute", "contest a resolution; the host reviews, tries a correction, upholds or corrects it")
    p.add_argument(
        "words", nargs="+", metavar="MATCH|ACTION", help="MATCH (to file), or list MATCH, or show|try|uphold|correct D"
    )
    p.add_argument("--at", type=int, help="file: the version of the resolution contested")
    p.add_argument("--as", dest="as_", metavar="SEAT", help="file as this seat (its saved token)")
    p.add_argument("--token", help="the seat's or host's token (default: the saved one)")
    p.add_argument(
        "--replace", action="append", default=[], metavar="SEAT: TEXT", help="try, correct: a replacement input"
    )
    p.add_argument("--rules-version", default="", metavar="VERSION", help="try: decide under these rules")
    p.add_argument("--forward", action="store_true", help="try: play the rest of the recorded inputs on too")
    p.add_argument("--reason", default="", help="uphold, correct: why (kept in the match's log)")
    p.add_argument("--reapply", action="store_true", help="correct: re-apply the later inputs that still apply")


def replacements(given: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in given:
        seat, colon, text = item.partition(":")
        if not colon or not seat.strip() or not text.strip():
            raise UsageError(f"--replace {item!r}: write it as 'SEAT: TEXT', e.g. 'ann: I will send no workers.'")
        out[seat.strip()] = text.strip()
    return out


def _match_of(dispute_id: str) -> str:
    match_id = dispute_id.rpartition(".")[0]
    check_match_id(match_id)
    return match_id


def cmd_dispute(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    words = list(args.words)
    if words[0] not in ACTIONS:
        return _file(args, client, creds, words)
    if len(words) != 2:
        raise UsageError(
            f"dispute {words[0]} takes one id: matchctl dispute {words[0]} {'MATCH' if words[0] == 'list' else 'D'}"
        )
    action, target = words
    if action == "list":
        check_match_id(target)
        token = (
            args.token
            or creds.host(args.server, target)
            or next(iter(creds.players(args.server, target).values()), None)
        )
        return _print_list(args, client.list_disputes(target, token))
    token = args.token or creds.host(args.server, _match_of(target))
    if action == "show":
        return _print_review(args, client.review_dispute(target, token))
    if action == "try":
        tried = client.try_dispute(target, replacements(args.replace), args.rules_version, args.forward, token)
        return _print_try(args, tried)
    if action == "uphold" and args.replace:
        raise UsageError("uphold changes nothing but the log: --replace is for correct")
    answer = client.decide_dispute(target, action, args.reason, replacements(args.replace), args.reapply, token)
    decided = json.loads(answer.decision_json)
    if args.json:
        print(json.dumps({"dispute": target, "version": answer.version, "decision": decided}, indent=2))
        return 0
    print(f"dispute {target} {decided.get('decision', action)} at version {answer.version}")
    for asked in decided.get("asked_again", []):
        print(f"  {asked['seat']} is asked again (its input at version {asked['version']} no longer applies)")
    for moved in decided.get("reapplied", []):
        print(f"  re-applied the input of version {moved['from']} at version {moved['to']}")
    return 0


def _file(args: argparse.Namespace, client: MatchClient, creds: Credentials, words: list[str]) -> int:
    if len(words) != 2 or args.at is None:
        raise UsageError('file a dispute as: matchctl dispute MATCH --at VERSION "why" (--as SEAT for a seat)')
    match_id, text = words
    check_match_id(match_id)
    token = args.token or (
        creds.player(args.server, match_id, args.as_) if args.as_ else creds.host(args.server, match_id)
    )
    if not token:
        raise UsageError("filing needs the seat's token (--as SEAT with a saved one, or --token) or the host's")
    filed = client.file_dispute(match_id, token, args.at, text)
    if args.json:
        print(json.dumps({"dispute": filed.dispute_id, "version": filed.version}))
    else:
        print(filed.dispute_id)
    return 0


def _print_list(args: argparse.Namespace, disputes: list[dict[str, Any]]) -> int:
    if args.json:
        print(json.dumps(disputes, indent=2))
        return 0
    if not disputes:
        print("no disputes")
    for d in disputes:
        print(f"{d['id']}  {d['state']:9}  v{d['at_version']}  by {d['by']}: {d['text']}")
    return 0


def _print_review(args: argparse.Namespace, review: dict[str, Any]) -> int:
    if args.json:
        print(json.dumps(review, indent=2))
        return 0
    d, res = review["dispute"], review["resolution"]
    print(f"dispute {d['id']} ({d['state']}) by {d['by']}: {d['text']}")
    print(f"resolution at version {res['version']} ({res['phase']}; its inputs from version {res['phase_from']})")
    print("inputs:")
    for item in review["inputs"]:
        said, head = item["text"] or "(the deadline)", item["receipt"]["chain_head"][:16]
        when = (
            datetime.fromtimestamp(item["at"], UTC).strftime("%Y-%m-%d %H:%M:%S")
            if item["at"] > 1e8
            else f"{item['at']:g} s"
        )
        print(f"  v{item['version']} {item['actor']} at {when}: {said}  receipt {head}")
    print("ruling:")
    for entry in review["trace"]:
        for line in entry.get("lines", []):
            print(f"  {line}")
        for rule in entry.get("rules", []):
            print(f"    {rule['id']} ({rule['anchor']}): {rule['words']}")
    again = review["redecided"]
    same = "the same" if again["same"] else "differently"
    print(f"decided again under rules {again['rules_version']}: {same}")
    for difference in again["differences"]:
        print(f"  {difference}")
    print("every seat's view before and after: --json")
    return 0


def _print_try(args: argparse.Namespace, tried: dict[str, Any]) -> int:
    if args.json:
        print(json.dumps(tried, indent=2))
        return 0
    for name in ("actual", "tried"):
        side = tried[name]
        print(f"{name}: {side['phase']} · awaiting {', '.join(side['awaiting']) or 'nobody'}")
        for line in side["lines"]:
            print(f"  {line}")
    print("differences:" if tried["differences"] else "no difference")
    for difference in tried["differences"]:
        print(f"  {difference}")
    for dropped in tried["dropped"]:
        print(f"  no longer applies: v{dropped['input']['version']} {dropped['input']['actor']}: {dropped['why']}")
    forward = tried.get("forward")
    if forward:
        print(f"played on: actual ends at {forward['actual']['phase']}, tried at {forward['tried']['phase']}")
        for difference in forward["differences"]:
            print(f"  {difference}")
    print("nothing was written", file=sys.stderr)
    return 0
