"""`matchctl`: the host and player command line for matchserver.

Every command that talks to a server takes --server (default 127.0.0.1:50051), and --tls [--ca FILE]
for a server that serves TLS. Tokens it is given or creates are kept in a local credentials file and used
by default, with the receipt of every write it makes (`matchctl verify MATCH --receipts` sends them: see
docs/AUDIT.md); without TLS they are sent only to a loopback address, unless --insecure.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import json
import os
import random
import signal
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NoReturn

import grpc

from clients import bridge, cli_records, cli_show
from clients.botloop import BotKeyRefused
from clients.bots import get_bot
from clients.cli_arena import (
    as_json,
    cmd_bot,
    cmd_challenge,
    cmd_leaderboard,
    cmd_tournament,
    stream_checks,
    verify_tournament,
)
from clients.cli_disputes import cmd_dispute
from clients.cli_names import (
    UsageError,
    admin_hint,
    bots_for,
    check_bots,
    check_game,
    check_match_id,
    check_players,
    is_prefix,
    read_config,
    resolve_match,
    rpc_error_line,
)
from clients.cli_parser import build_parser
from clients.client import CleartextCredentialError, MatchClient, State
from clients.credentials import Credentials, server_key
from clients.play import BotSeat, play
from engine.errors import GameError
from engine.registry import get_game, shipped
from matchserver.v1 import arena_pb2 as arena_pb
from matchserver.v1 import matchserver_pb2 as pb

ARENA_COMMANDS = ("bot", "challenge", "tournament", "leaderboard")
DEFAULT_SEATS = {name: get_game(name).default_seats for name in shipped()}  # from each game (engine.registry)


def _token(
    args: argparse.Namespace, creds: Credentials, match_id: str, client: MatchClient | None = None
) -> str | None:
    """The token for --as: a player's, 'host' (host or admin), 'spectator' (none); default host if known."""
    who = getattr(args, "as_", None)
    if getattr(args, "token", None):
        return str(args.token)
    if who == "spectator":
        return None
    host = creds.host(args.server, match_id) or creds.admin(args.server, args.var)
    if who and who != "host":
        token = creds.player(args.server, match_id, who)
        if token is None:
            raise UsageError(_no_seat_token(args, creds, match_id, who, host, client))
        return token
    return host


def _no_seat_token(
    args: argparse.Namespace,
    creds: Credentials,
    match_id: str,
    who: str,
    host: str | None,
    client: MatchClient | None,
) -> str:
    """Why --as WHO has no token: WHO is not a seat of the match (naming the seats), or is one not joined here."""
    seats: list[str] = []
    if client is not None:
        try:
            seats = client.state(match_id, host).players
        except grpc.RpcError:  # a private match, or none such: say what is known here
            seats = []
    if seats and who not in seats:
        return f"{who} is not a player of this match ({', '.join(seats)}); --as takes a seat, host or spectator"
    kept = sorted(creds.players(args.server, match_id))
    here = f" (tokens kept here: {', '.join(kept)})" if kept else ""
    return (
        f"no token for {who} on this match kept in {creds.path}{here}: run `matchctl join {match_id} {who} "
        f"--invitation CODE`, or `matchctl token player {match_id} {who} TOKEN` with the token you were given"
    )


def _keep(args: argparse.Namespace, creds: Credentials, match_id: str, receipt: pb.Receipt) -> None:
    """Keep the receipt of a write, to prove later that the server's log still holds it."""
    creds.add_receipt(args.server, match_id, receipt.version, receipt.chain_head, receipt.key_id)


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, sort_keys=True))


def _record_json(event: pb.Event) -> dict[str, Any]:
    """A record for programs: its place in the log and the record itself, parsed (as the caller may see it)."""
    return {
        "version": event.version,
        "kind": event.kind,
        "type": event.type,
        "at": event.at,
        "retracted": event.retracted,
        "record": json.loads(event.json) if event.json else None,
    }


def _written_json(match_id: str, reply: Any, **more: Any) -> dict[str, Any]:
    """A write's outcome for programs: the version it appended up to, the status after it, its events."""
    return {
        "match": match_id,
        "version": reply.version,
        "status": as_json(reply.status),
        "events": [_record_json(event) for event in reply.events],
        **more,
    }


def _host_credential(args: argparse.Namespace, creds: Credentials, what: str) -> str:
    """The admin token or a saved host key, for `what`; a refusal that says how to give one if neither."""
    found = creds.host_credential(args.server, args.var)
    if not found:
        raise UsageError(f"{what} needs the admin token or a host key; {admin_hint(args.var)}")
    return found


def cmd_create(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    _host_credential(args, creds, "creating a match")
    reply = client.create(args.game, args.players.split(","), args.seed, read_config(args.config), private=args.private)
    creds.set_host(args.server, reply.match_id, reply.host_token)
    for seat in reply.invitations:
        creds.set_invitation(args.server, reply.match_id, seat.player, seat.invitation)
        if not args.json:
            link = f"  {seat.join_url}" if seat.join_url else ""
            print(f"invitation for {seat.player}: {seat.invitation}{link}", file=sys.stderr)
    _keep(args, creds, reply.match_id, reply.receipt)
    if args.json:
        invitations = {seat.player: seat.invitation for seat in reply.invitations}
        links = {seat.player: seat.join_url for seat in reply.invitations if seat.join_url}
        _print_json(
            {
                "match": reply.match_id,
                "game": args.game,
                "version": reply.version,
                "seed": reply.seed,
                "invitations": invitations,
                **({"join_urls": links} if links else {}),
                "host_token_saved_in": str(creds.path),
            }
        )
        return 0
    print(reply.match_id)
    return 0


def cmd_join(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    if args.invitation:
        reply = client.join_match(args.match, args.player, invitation=args.invitation)
    else:
        host = args.token or creds.host(args.server, args.match) or creds.host_credential(args.server, args.var)
        if host is None:
            raise UsageError(
                "join needs --invitation CODE (from the host), or the host's token (--token, or the one "
                f"`matchctl create` saved), or the admin token or a host key; {admin_hint(args.var)}"
            )
        if args.reissue and not args.yes:
            answer = input(f"give {args.player}'s seat a new token? Its current token stops working. [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                print("nothing changed")
                return 1
        reply = client.join_match(args.match, args.player, host, reissue=args.reissue)
    creds.set_player(args.server, args.match, args.player, reply.player_token)
    _keep(args, creds, args.match, reply.receipt)
    if args.json:
        _print_json(
            {
                "match": args.match,
                "player": args.player,
                "player_token": reply.player_token,
                "version": reply.version,
                "saved_in": str(creds.path),
            }
        )
        return 0
    print(f"joined {args.match} as {args.player}; token saved in {creds.path}")
    if not args.invitation:  # the host filled the seat: the player needs the token from them
        print(f"{args.player}'s seat token, to hand to {args.player} (`matchctl token player MATCH NAME TOKEN`):")
        print(reply.player_token)
    return 0


def cmd_invite(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    host = args.token or creds.host(args.server, args.match) or creds.host_credential(args.server, args.var)
    if host is None:
        raise UsageError(
            "invite needs the match's host token (--token, or the one `matchctl create` saved), or the admin "
            f"token or a host key; {admin_hint(args.var)}"
        )
    invited = client.invite_seat(args.match, args.player, host)
    code = invited.invitation
    creds.set_invitation(args.server, args.match, args.player, code)
    if args.json:
        link = {"join_url": invited.join_url} if invited.join_url else {}
        _print_json({"match": args.match, "player": args.player, "invitation": code, **link})
        return 0
    print(code)
    if invited.join_url:
        print(f"the seat's page: {invited.join_url}", file=sys.stderr)
    return 0


def cmd_host_key(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    admin = creds.admin(args.server, args.var)
    if admin is None:
        raise UsageError(f"host-key {args.action} needs the admin token; {admin_hint(args.var)}")
    if args.action == "create":
        if not args.name:
            raise UsageError("usage: matchctl host-key create NAME")
        reply = client.create_host_key(args.name, admin)
        if args.json:
            _print_json(as_json(reply))
            return 0
        print(f"host key {reply.key.key_id} for {reply.key.name} (shown once; keep it secret):")
        print(reply.host_key)
    elif args.action == "list":
        keys = client.list_host_keys(admin)
        if args.json:
            _print_json({"host_keys": [as_json(key) for key in keys]})
            return 0
        for key in keys:
            state = "revoked" if key.revoked else f"{key.live_matches} live matches"
            print(f"{key.key_id}  {key.name:20s} {state}")
    else:
        if not args.name:
            raise UsageError("usage: matchctl host-key revoke KEY_ID [--reason TEXT]")
        key = client.revoke_host_key(args.name, args.reason, admin)
        if args.json:
            _print_json(as_json(key))
            return 0
        print(f"revoked {key.key_id} ({key.name}); host tokens it issued keep working")
    return 0


def cmd_submit(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    token = _token(args, creds, args.match, client)
    if token is None:
        raise UsageError("submit needs --as PLAYER (a joined player)")
    reply = client.submit(args.match, token, text=" ".join(args.text), player=args.as_ or "")
    _keep(args, creds, args.match, reply.receipt)
    state = client.state(args.match, token)
    player = args.as_ or state.viewer.removeprefix("player:")
    if args.json:
        understood = understood_command(state.game, reply, player)
        _print_json(
            _written_json(
                args.match,
                reply,
                player=player,
                understood=None if understood is None else get_game(state.game).format(understood),
                warning=unassigned_harvesters(state.view, understood),
            )
        )
        return 0
    for line in submitted_lines(state, reply, player):
        print(line)
    return 0


def understood_command(game_name: str, reply: pb.SubmitResponse, player: str) -> Any:
    """The command the server recorded for `player` in a submission's events (None: none recorded)."""
    from engine import codec

    game = get_game(game_name)
    understood = None
    for event in reply.events:
        cause = json.loads(event.json).get("cause") or {} if event.json else {}
        if isinstance(cause, dict) and cause.get("actor") == player and "command" in cause:
            understood = codec.from_json(game.command_types, cause["command"])
    return understood


def submitted_lines(state: State, reply: pb.SubmitResponse, player: str) -> list[str]:
    """What the server understood (the canonical text), whether it is final, and a Cookoff warning."""
    game = get_game(state.game)
    understood = understood_command(state.game, reply, player)
    lines = [f"accepted at version {reply.version}; phase: {reply.status.phase}"]
    if understood is not None:
        lines.append(f"understood as: {game.format(understood)}")
    if reply.status.binding:
        lines.append("binding: this is your submission for the phase; a second one will be refused")
    warning = unassigned_harvesters(state.view, understood)
    if warning:
        lines.append(warning)
    return lines


def unassigned_harvesters(view: dict[str, Any], command: Any) -> str | None:
    """Cookoff gathering: harvesters left idle this round (legal, so a warning, not a refusal)."""
    sends = getattr(command, "sends", None)
    limit = (view.get("limits") or {}).get("harvesters") if view.get("game") == "cookoff" else None
    if sends is None or not isinstance(limit, int):
        return None
    used = sum(send.count for send in sends)
    if used >= limit:
        return None
    idle = limit - used
    verb, they = ("is", "it gathers") if idle == 1 else ("are", "they gather")
    return f"warning: {idle} of your {limit} harvesters {verb} unassigned this round (legal; {they} nothing)"


def cmd_state(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    state = client.state(args.match, _token(args, creds, args.match, client), args.at)
    if not args.json:
        print(cli_show.state_board(state))
        return 0
    _print_json(
        {
            "match": state.match_id,
            "game": state.game,
            "version": state.version,
            "viewer": state.viewer,
            "phase": state.status.phase,
            "awaiting": list(state.status.awaiting),
            "finished": state.status.finished,
            "deadline": state.status.deadline if state.status.HasField("deadline") else None,
            "view": state.view,
            **({"results": state.results.get("results")} if state.status.finished else {}),
        }
    )
    return 0


def cmd_history(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    events = client.history(args.match, _token(args, creds, args.match, client))
    if args.json:
        _print_json({"match": args.match, "records": [_record_json(event) for event in events]})
        return 0
    start = cli_records.record_start(events[0]) if events else None
    for event in events:
        print(cli_records.record_line(event, start))
    return 0


def cmd_watch(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    try:
        token = _token(args, creds, args.match, client)
        now = client.state(args.match, token)
        if now.status.finished and args.from_version >= now.version:  # nothing more will ever come
            print(f"matchctl: the match is over (at version {now.version}); nothing to watch", file=sys.stderr)
            if args.json:
                print(json.dumps({"match": args.match, "version": now.version, "finished": True}, sort_keys=True))
            return 0
        first = None if args.json else client.first_record(args.match, token)
        start = cli_records.record_start(first) if first is not None else None
        updates = client.subscribe(args.match, token, args.from_version, on_resume=_resumed)
        for update in updates:
            event = update.event
            if args.json:  # one JSON document a line (JSON Lines): a program reads each as it comes
                line = {**_record_json(event), "status": as_json(update.status) if update.view_json else None}
                if update.HasField("rolled_back_to"):
                    line["rolled_back_to"] = update.rolled_back_to
                print(json.dumps(line, sort_keys=True), flush=True)
                if update.status.finished:
                    updates.cancel()
                    return 0
                continue
            print(cli_records.record_line(event, start), flush=True)
            if update.HasField("rolled_back_to"):
                print(f"      rolled back to {update.rolled_back_to}", flush=True)
            if update.status.finished:  # the match ended: nothing more will come
                updates.cancel()
                return 0
    except KeyboardInterrupt:
        stop_now(0)
    return 0


def stop_now(code: int) -> NoReturn:
    """Ctrl-C: leave at once, with what was printed flushed. A gRPC call the interrupt cut off half-made would
    otherwise print a traceback as it was collected (grpc's _Rendezvous.__del__), after all was said."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _resumed(version: int, why: str) -> None:
    """The server ended the stream (a restart, the stream's age): watch goes on after `version`."""
    print(f"matchctl: the stream ended ({why}); resumed after version {version}", file=sys.stderr, flush=True)


def cmd_list(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    matches = client.list_matches()
    if args.json:
        _print_json({"matches": [as_json(match) for match in matches]})
        return 0
    for match in matches:
        state = "finished" if match.finished else match.phase
        print(f"{match.match_id}  {match.game:15s} v{match.version:<5d} {', '.join(match.players)}  {state}")
    return 0


def cmd_end_phase(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    token = _token(args, creds, args.match, client)
    if token is None:
        raise UsageError("ending a phase needs the host's token")
    seen = client.state(args.match, token)  # a repeated command then cannot end the next phase too
    reply = client.force_phase_end(args.match, token, args.reason, expected_version=seen.version)
    _keep(args, creds, args.match, reply.receipt)
    if args.json:
        _print_json(_written_json(args.match, reply, ended=seen.status.phase))
        return 0
    print(f"{seen.status.phase} ended at version {reply.version}; now: {reply.status.phase}")
    return 0


def cmd_play_bots(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    check_game(args.game)  # every name is checked before the match is created
    chosen = check_bots(args.game, args.bots.split(",")) if args.bots else list(bots_for(args.game))
    players = check_players(args.players.split(",")) if args.players else None
    if players is None:
        if args.count is not None and args.count < 1:
            raise UsageError("--count must be at least 1")
        players = [f"bot{i + 1}" for i in range(args.count or DEFAULT_SEATS.get(args.game, 2))]
    config = read_config(args.config)
    _host_credential(args, creds, "play-bots (it creates a match)")
    created = client.create(args.game, players, args.seed, config)
    creds.set_host(args.server, created.match_id, created.host_token)
    invitations = {seat.player: seat.invitation for seat in created.invitations}
    _keep(args, creds, created.match_id, created.receipt)
    rng = random.Random(args.seed)
    seats = {}
    assigned: dict[str, str] = {}
    for index, player in enumerate(players):
        joined = client.join_match(created.match_id, player, invitation=invitations[player])
        token = joined.player_token
        creds.set_player(args.server, created.match_id, player, token)
        _keep(args, creds, created.match_id, joined.receipt)
        bot_name = chosen[index % len(chosen)]
        assigned[player] = bot_name
        seats[player] = BotSeat(player, token, get_bot(args.game, bot_name), random.Random(rng.random()))
        print(f"{player}: {bot_name}", file=sys.stderr)
    final = play(client, created.match_id, created.host_token, seats, log=_log if args.verbose else lambda _: None)
    if args.json:
        _print_json({"match": created.match_id, "game": args.game, "finished": final.status.finished, **final.results})
    else:
        cli_show.results_table(created.match_id, args.game, final.status.finished, final.results, assigned)
    return 0 if final.status.finished else 1


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def cmd_simulate(args: argparse.Namespace) -> int:
    from engine.registry import get_game
    from engine.transcript import ScriptError, header_fields, simulate

    lines = Path(args.script).read_text().splitlines() if args.script != "-" else sys.stdin.read().splitlines()
    header = header_fields(lines)
    game_name = args.game or header.get("game")
    players = args.players or header.get("players")
    seed = args.seed if args.seed is not None else header.get("seed")
    if not game_name or not players or seed is None:
        raise UsageError(
            "simulate needs --game, --players and --seed, or a script whose first line is "
            "`# game=NAME seed=N players=A,B` (as `matchctl transcript` writes)"
        )
    game = get_game(check_game(game_name))
    try:
        result = simulate(game, check_players(players.split(",")), int(seed), lines, read_config(args.config))
    except ScriptError as exc:
        print(f"matchctl simulate: {exc}", file=sys.stderr)
        return 2
    _print_json(result)
    return 0


def cmd_transcript(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    from engine import codec
    from engine.registry import get_game
    from engine.transcript import Step, write_script

    token = _token(args, creds, args.match, client)
    events = client.history(args.match, token)
    records = [(event, json.loads(event.json)) for event in events]
    header = records[0][1]
    if "seed" not in header:
        raise SystemExit("matchctl: a transcript needs the host's view of the history (the seed); use the host token")
    origin = header.get("origin")
    if origin:
        raise SystemExit(  # (SystemExit, exit 1: what tests/e2e/test_transcript_round_trip.py pins)
            f"matchctl: this match is a fork of {origin['match_id']} at version {origin['version']}: it starts "
            "from the events it copied, which a transcript (played from a match's start) cannot hold, so it "
            "cannot replay it"
        )
    for event, record in records:
        # Any reopening counts, retracted or not: the draws after it come from its seed either way.
        if record["kind"] == "rollback" and record.get("reopen"):
            raise SystemExit(
                f"matchctl: this match was reopened with a new seed at version {event.version} (a rollback of "
                f"the finished match to version {record['to']}): a transcript holds one seed, so it cannot "
                "replay this match; "
                f"`matchctl verify {args.match}` re-runs every recorded decision with the seed in force at it"
            )
    game = get_game(header["game"])
    steps: list[Step] = []
    start = float(header.get("at") or 0.0)
    for event, record in records:
        cause = record.get("cause")
        if event.retracted or record["kind"] != "game" or not cause or cause.get("start"):
            continue
        if cause.get("timeout"):
            steps.append(Step(record["at"] - start, None))
        elif "command" in cause:
            steps.append(
                Step(record["at"] - start, cause["actor"], codec.from_json(game.command_types, cause["command"]))
            )
    first = f"# game={game.name} seed={header['seed']} players={','.join(header['players'])}"
    lines = [first, *write_script(game, steps)]
    if args.json:
        _print_json(
            {
                "match": args.match,
                "game": game.name,
                "seed": header["seed"],
                "players": header["players"],
                "lines": lines,
            }
        )
        return 0
    for line in lines:
        print(line)
    return 0


def cmd_audit(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    entries = client.audit(args.match, _token(args, creds, args.match, client), args.at)
    if args.json:
        _print_json({"match": args.match, "entries": [as_json(entry) for entry in entries]})
        return 0
    start = entries[0].at if entries else 0.0
    for entry in entries:
        print("\n".join(cli_show.audit_lines(entry, start)))
    return 0


def cmd_verify(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    if args.tournament:
        if args.all or args.match:
            raise UsageError("verify takes MATCH, --all or --tournament T, one of them")
        return verify_tournament(args, client)
    if not (args.all or args.match or args.identities or args.arena):
        raise UsageError("verify needs MATCH, --all, --identities or --arena")
    failures = 0
    reports: list[dict[str, Any]] = []
    streams: list[dict[str, Any]] = []
    if args.all or args.identities or args.arena:  # the server's own streams (admin token)
        for stream in stream_checks(client, args.all or args.identities, args.all or args.arena):
            failures += not stream.ok
            if args.json:
                streams.append(as_json(stream))
            else:
                _print_stream_check(stream)
    ids = [match.match_id for match in client.list_matches()] if args.all else [args.match] if args.match else []
    for index, match_id in enumerate(cli_show.progress(ids, "verifying"), start=1):
        token = _token(args, creds, match_id, client)
        kept = [pb.Receipt(**receipt) for receipt in creds.receipts(args.server, match_id)] if args.receipts else []
        report = client.verify(match_id, token, kept)
        if args.json:
            reports.append({"match": match_id, "receipts_kept": len(kept), **as_json(report)})
            failures += not report.ok
            continue
        prefix = f"[{index}/{len(ids)}] {match_id}"
        if report.ok:
            _print_verified(prefix, report, args.receipts)
            if args.receipts and not kept:
                print(f"    no receipts kept for this match in {creds.path}: only the chain was checked")
            continue
        failures += 1
        _print_differs(prefix, report)
    if args.json:
        document: dict[str, Any] = {"ok": failures == 0, "reports": reports}
        if streams:
            document["streams"] = streams
        _print_json(document)
    return 0 if failures == 0 else 1


def _print_stream_check(stream: arena_pb.StreamCheck) -> None:
    if stream.ok:
        print(f"{stream.name}: OK, {stream.version} records, keyed chain holds", flush=True)
    else:
        print(f"{stream.name}: BROKEN at record {stream.first_bad_version}: {stream.problem}", flush=True)


def _print_verified(prefix: str, report: pb.VerifyResponse, receipts: bool) -> None:
    held = f", {report.receipts_checked} receipts held" if receipts else ""
    unkeyed = f"; unkeyed up to v{report.unkeyed_until}" if report.unkeyed_until else ""
    rules = ""
    if report.recorded_rules_version != report.current_rules_version:  # re-decided under its own rules
        rules = f"; under rules version {report.recorded_rules_version} (now {report.current_rules_version})"
    print(
        f"{prefix}: OK ({report.checked_batches} decisions re-run, {report.version} records{held}){unkeyed}{rules}",
        flush=True,
    )


def _print_differs(prefix: str, report: pb.VerifyResponse) -> None:
    print(f"{prefix}: DIFFERS at version {report.first_bad_version}: {report.problem}")
    print(f"    rules version recorded {report.recorded_rules_version}, now {report.current_rules_version}")
    if report.recorded_json:
        print(f"    recorded:   {report.recorded_json}")
    if report.recomputed_json:
        print(f"    recomputed: {report.recomputed_json}")


def cmd_host_action(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    token = _token(args, creds, args.match, client)
    if token is None:
        raise UsageError(f"{args.command} needs the host's token")
    seen = None
    if args.command in ("extend", "settle"):  # they act on a phase: a repeated command must not act twice
        seen = client.state(args.match, token).version
    reply = client.host_action(
        args.match, token, args.command, args.reason, getattr(args, "seconds", 0.0), expected_version=seen
    )
    _keep(args, creds, args.match, reply.receipt)
    if args.json:
        _print_json(_written_json(args.match, reply, action=args.command))
        return 0
    print(f"{args.command}: recorded as version {reply.version}; phase: {reply.status.phase}")
    return 0


def cmd_token(args: argparse.Namespace, creds: Credentials) -> int:
    """Keep a token you were given (by the server's operator or a host) for later commands."""
    if args.role == "admin":
        creds.set_admin(args.server, args.values[0])
    elif args.role == "host-key":
        creds.set_host_key(args.server, args.values[0])
    elif args.role == "host" and len(args.values) == 2:
        creds.set_host(args.server, args.values[0], args.values[1])
    elif args.role == "player" and len(args.values) == 3:
        creds.set_player(args.server, args.values[0], args.values[1], args.values[2])
    else:
        raise UsageError(
            "usage: matchctl token admin TOKEN | host-key KEY | host MATCH TOKEN | player MATCH NAME TOKEN"
        )
    if args.json:
        _print_json({"saved": args.role, "path": str(creds.path)})
        return 0
    print(f"saved the {args.role} token in {creds.path}")
    return 0


def cmd_picture(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    from pictures import render_svg

    state = client.state(args.match, _token(args, creds, args.match, client), args.at)
    svg = render_svg(state.game, state.view)
    if args.json:
        _print_json({"match": state.match_id, "version": state.version, "viewer": state.viewer, "svg": svg})
        return 0
    sys.stdout.write(svg)
    return 0


def cmd_replay(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    from clients.replay import replay_from_server

    token = _token(args, creds, args.match, client)
    who = "spectator" if token is None else (args.as_ or "host")
    page = replay_from_server(client, args.match, token, who, cli_show.progress)
    if args.json:
        _print_json({"match": args.match, "viewer": who, "html": page})
        return 0
    sys.stdout.write(page)
    return 0


def cmd_rollback(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    token = _token(args, creds, args.match, client)
    if token is None:
        raise UsageError("a rollback needs the host's token")
    reply = client.rollback(args.match, token, args.to, args.reason, reopen=args.reopen)
    _keep(args, creds, args.match, reply.receipt)
    state = client.state(args.match, token)  # the restored clock, stopped until the host resumes
    if args.json:
        _print_json(_written_json(args.match, reply, to=args.to, clock=state.clock, paused=state.status.paused))
        return 0
    print(f"rolled back to version {args.to} (recorded as version {reply.version}); now: {reply.status.phase}")
    print(f"match clock {_clock_text(state.clock)}", end="")
    if state.status.HasField("deadline"):
        left = state.status.deadline - state.clock
        print(f"; time left before the deadline: {left:.0f} s ({timedelta(seconds=round(left))})", end="")
    print(f"\nthe match is paused until `matchctl resume {args.match}`")
    return 0


def _clock_text(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def cmd_fork(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    token = _token(args, creds, args.match, client)
    if token is None:
        raise UsageError("a fork needs the host's token")
    reply = client.fork(args.match, token, args.at, args.reason)
    creds.set_host(args.server, reply.match_id, reply.host_token)
    _keep(args, creds, reply.match_id, reply.receipt)
    if args.json:
        _print_json({"match": reply.match_id, "forked_from": args.match, "at": args.at, "version": reply.version})
        return 0
    print(reply.match_id)
    return 0


BOT_KEY_VARIABLE = "MATCHSERVER_BOT_KEY"  # a bot key, from the environment (out of the process list)


def cmd_bridge(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    """Run a program as one seat's bot to the match's end, or as an arena bot (no MATCH) until stopped."""
    program: list[str] = getattr(args, "program", [])
    if not program:
        raise UsageError(
            "usage: matchctl bridge MATCH --as SEAT -- PROGRAM ARGS... (a seat), "
            f"or {BOT_KEY_VARIABLE}=KEY matchctl bridge -- PROGRAM ARGS... (an arena bot)"
        )
    say = bridge.printer(sys.stderr if args.json else sys.stdout)  # --json: stdout holds the result alone
    if threading.current_thread() is not threading.main_thread():
        return _bridge(args, client, creds, program, say)
    before = signal.signal(signal.SIGTERM, _interrupt)  # SIGTERM stops it as Ctrl-C does: the programs too
    try:
        return _bridge(args, client, creds, program, say)
    finally:
        signal.signal(signal.SIGTERM, before)


def _bridge(
    args: argparse.Namespace, client: MatchClient, creds: Credentials, program: list[str], say: bridge.Say
) -> int:
    if not args.match:
        key = args.token or os.environ.get(BOT_KEY_VARIABLE)
        if not key:
            raise UsageError(f"an arena bot needs its bot key in ${BOT_KEY_VARIABLE} (or give MATCH --as SEAT)")
        say(f"connected to {args.server}; bridging every seat of the bot to {' '.join(program)} (Ctrl-C stops)")
        try:
            bridge.run_arena(
                client,
                key,
                program,
                args.var,
                say,
                verbose=args.verbose,
                cap=args.timeout,
                after=args.after,
                until_tournament=args.until_tournament,
            )
        except BotKeyRefused as exc:
            raise UsageError(str(exc)) from None
        return 0
    if not args.as_ and not args.token:
        raise UsageError("bridge MATCH needs --as SEAT (or --token): the seat the program plays")
    token = args.token or _token(args, creds, args.match, client)
    if token is None:
        raise UsageError("bridge needs a seat's token: --as SEAT")
    seat = args.as_ or ""
    log = bridge.log_path(args.var, args.match, seat or "seat")
    say(f"bridging {seat or 'the seat'} of match {args.match} to {' '.join(program)} (its stderr: {log})")
    ended = bridge.bridge_seat(
        client, args.match, token, program, log, seat=seat, say=say, verbose=args.verbose, cap=args.timeout
    )
    if ended is None:
        return 1
    if args.json:
        _print_json({"match": args.match, "version": ended.version, "results": json.loads(ended.results_json or "{}")})
    return 0


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def cmd_bot_or_log(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> int:
    """`bot log MATCH [--as SEAT]`: the stderr a bridged program wrote (VAR/bot-logs); else cli_arena's."""
    if args.action != "log":
        return cmd_bot(args, client, creds)
    if not args.name:
        raise UsageError("usage: matchctl bot log MATCH [--as SEAT]")
    folder = bridge.logs_folder(args.var)
    kept = sorted(path.name for path in folder.iterdir() if path.is_dir()) if folder.is_dir() else []
    match_id = args.name if args.name in kept else resolve_match(check_match_id(args.name), kept)
    logs = sorted((folder / match_id).glob("*.log"))
    if args.as_:
        logs = [path for path in logs if path == bridge.log_path(args.var, match_id, args.as_)]
        if not logs:
            seats = ", ".join(path.stem for path in sorted((folder / match_id).glob("*.log"))) or "none"
            raise UsageError(f"no bot log for {args.as_} in match {match_id} (seats logged here: {seats})")
    for path in logs:
        if len(logs) > 1:
            print(f"==> {path.stem} <==")
        sys.stdout.write(path.read_text(encoding="utf-8", errors="replace"))
    return 0


COMMANDS = {
    "create": cmd_create,
    "join": cmd_join,
    "invite": cmd_invite,
    "host-key": cmd_host_key,
    "submit": cmd_submit,
    "state": cmd_state,
    "history": cmd_history,
    "watch": cmd_watch,
    "list": cmd_list,
    "end-phase": cmd_end_phase,
    "play-bots": cmd_play_bots,
    "transcript": cmd_transcript,
    "audit": cmd_audit,
    "verify": cmd_verify,
    "rollback": cmd_rollback,
    "picture": cmd_picture,
    "replay": cmd_replay,
    "pause": cmd_host_action,
    "resume": cmd_host_action,
    "start": cmd_host_action,
    "extend": cmd_host_action,
    "settle": cmd_host_action,
    "cancel": cmd_host_action,
    "fork": cmd_fork,
    "bot": cmd_bot_or_log,
    "bridge": cmd_bridge,
    "challenge": cmd_challenge,
    "tournament": cmd_tournament,
    "leaderboard": cmd_leaderboard,
    "dispute": cmd_dispute,
}


def main(argv: list[str] | None = None) -> int:
    """Run one command; every failure is one line on stderr (MATCHCTL_DEBUG=1 re-raises, for a traceback)."""
    _stacks_on_usr1()
    words = sys.argv[1:] if argv is None else argv
    words, program = _program_of(words)
    parser = build_parser(__doc__)
    args, extra = parser.parse_known_args(words)
    if extra:  # `dispute MATCH --at V "why"`: the text after the options is the dispute's, not a mistake
        if args.command != "dispute" or any(word.startswith("-") for word in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.words += extra
    if program is not None:
        args.program = program
    try:
        return _run(args)
    except (UsageError, CleartextCredentialError) as exc:
        print(f"matchctl: {exc}", file=sys.stderr)
        return 2
    except grpc.RpcError as exc:
        arena = args.command in ARENA_COMMANDS or bool(getattr(args, "tournament", None))
        admin = admin_hint(args.var) if _needs_admin(args) else None
        print(f"matchctl: {rpc_error_line(exc, args.server, arena, admin)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        stop_now(130)
    except BrokenPipeError:  # `matchctl ... | head`: the reader has gone; nothing to say, nothing more to write
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (so the exit's flush cannot fail)
        return 141
    except (GameError, OSError, ValueError, KeyError) as exc:
        if os.environ.get("MATCHCTL_DEBUG"):
            raise
        said = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"matchctl: {said}", file=sys.stderr)
        return 2
    except Exception as exc:  # never a traceback for a person: one line, and how to see more
        if os.environ.get("MATCHCTL_DEBUG"):
            raise
        print(f"matchctl: unexpected {type(exc).__name__}: {exc} (MATCHCTL_DEBUG=1 shows where)", file=sys.stderr)
        return 1


def _stacks_on_usr1() -> None:
    """`kill -USR1 PID`: every thread's stack on stderr, and matchctl goes on. A hung bridge or watch (long
    lived, often unattended) says where it waits without being stopped. Not where stderr is no file (main()
    called in a process whose stderr is captured) or off the main thread, where no handler can be set."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGUSR1"):
        return
    with contextlib.suppress(AttributeError, OSError, RuntimeError, ValueError):
        faulthandler.register(signal.SIGUSR1, all_threads=True)


VALUED_OPTIONS = ("--server", "--var", "--ca")  # the options before a command that take a value


def _program_of(words: list[str]) -> tuple[list[str], list[str] | None]:
    """`matchctl ... bridge ... -- PROGRAM ARGS`: the words before `--`, and the program after it (None
    for every other command, whose `--` argparse reads as usual)."""
    if "--" not in words:
        return words, None
    cut = words.index("--")
    skip = False
    for word in words[:cut]:
        if skip:
            skip = False
        elif word in VALUED_OPTIONS:
            skip = True
        elif not word.startswith("-"):
            return (words[:cut], words[cut + 1 :]) if word == "bridge" else (words, None)
    return words, None


def _needs_admin(args: argparse.Namespace) -> bool:
    """Whether the command acts with the admin token or a host key (not a match's own token)."""
    if args.command in ("create", "play-bots", "host-key", "list"):
        return True
    if args.command == "verify":
        return bool(getattr(args, "all", False))
    if args.command in ("join", "invite"):
        return not getattr(args, "invitation", None) and not getattr(args, "token", None)
    return False


def _run(args: argparse.Namespace) -> int:
    if args.command == "simulate":
        return cmd_simulate(args)
    creds = Credentials()
    if args.command == "token":
        return cmd_token(args, creds)
    try:
        ca = Path(args.ca).read_bytes() if args.ca else None
    except OSError as exc:
        raise UsageError(f"cannot read --ca {args.ca}: {exc.strerror or exc}") from exc
    host_credential = creds.host_credential(args.server, args.var)
    with MatchClient(
        args.server, tls=args.tls, ca=ca, insecure=args.insecure, host_credential=host_credential
    ) as client:
        if getattr(args, "match", None):
            check_match_id(args.match)
            if is_prefix(args.match):
                args.match = resolve_match(args.match, _own_matches(args, client, creds))
        return COMMANDS[args.command](args, client, creds)


def _own_matches(args: argparse.Namespace, client: MatchClient, creds: Credentials) -> list[str]:
    """The ids the caller has: those kept in the credentials file, and the server's listing for them."""
    kept = list(creds.data.get(server_key(args.server), {}).get("matches", {}))
    try:
        listed = [match.match_id for match in client.list_matches()]
    except grpc.RpcError as exc:
        if exc.code() != grpc.StatusCode.PERMISSION_DENIED and exc.code() != grpc.StatusCode.UNAUTHENTICATED:
            raise
        listed = []
    return kept + listed


if __name__ == "__main__":
    sys.exit(main())
