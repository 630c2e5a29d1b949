"""`matchctl verify --tournament`: a tournament re-derived from its own log. Its hash chain holds; its
schedule is the draw its seed and bots determine; each result it recorded is the match's own; each
`completed` record's standings are those recomputed from the records before it."""

from __future__ import annotations

import asyncio
import uuid

from server.arena.log import ARENA_STREAM
from server.arena.platform import MatchPlatform
from server.arena.results import ranks_of
from server.arena.service import Arena
from server.arena.tournament import TournamentLog, plan_for, scheduled_record
from server.identities import IDENTITIES_STREAM
from server.records import Record, first_broken_link


async def verify_tournament(arena: Arena, tournament_id: str) -> tuple[bool, str, int, int]:
    """Re-derive the schedule and the standings from the log and check its chain and each match's
    result against the match itself: (ok, the first problem, records checked, matches checked)."""
    stream = (await arena.tournament(tournament_id)).tournament_id
    records = await arena.platform.read_stream(uuid.UUID(stream), 0)
    broken = first_broken_link(records, arena.platform.chain_keys)
    if broken is not None:
        return False, f"record {broken[0]}: {broken[1]}", broken[0] - 1, 0
    replay = TournamentLog(stream)
    checked = 0
    for version, record in enumerate(records, start=1):
        if record["kind"] == "completed" and record["standings"] != replay.standings_json():
            return (
                False,
                f"record {version}: the standings recorded differ from those recomputed from the log",
                version,
                checked,
            )
        if version == 2:
            expected = await asyncio.to_thread(plan_for, replay.header)
            if record.get("kind") != "scheduled" or record["matches"] != scheduled_record(expected, 0)["matches"]:
                return (
                    False,
                    "record 2: the schedule differs from the draw its seed and bots determine",
                    version,
                    checked,
                )
        try:
            replay.apply(record)
        except Exception as exc:
            return False, f"record {version} cannot be applied ({type(exc).__name__})", version, checked
        if record["kind"] == "finished":
            problem = await _check_result(arena.platform, stream, record)
            if problem:
                return False, f"record {version}: {problem}", version, checked
            checked += 1
    return True, "", len(records), checked


async def _check_result(matches: MatchPlatform, tournament_id: str, record: Record) -> str:
    live = await matches.load(uuid.UUID(str(record["match"])))
    arena = live.header.get("arena") or {}
    if arena.get("tournament") != tournament_id or arena.get("index") != record["index"]:
        return f"match {record['match']} is not #{record['index']} of this tournament"
    if not live.status().finished:
        return f"match {record['match']} is not finished in its own log"
    if ranks_of(live) != record["ranks"]:
        return f"the ranks recorded for match {record['match']} differ from the match's own result"
    return ""


async def verify_server_streams(arena: Arena, token: str | None, identities: bool, of_arena: bool) -> list[Record]:
    """The admin's check of the server's own streams: each one's keyed hash chain from its first record,
    read from the store itself (not memory): {name, ok, version, first_bad_version, problem} each."""
    arena.platform.access.require_admin(token)
    streams: list[tuple[str, uuid.UUID]] = []
    if identities:
        streams.append(("identities", IDENTITIES_STREAM))
    if of_arena:
        streams.append(("arena", ARENA_STREAM))
        streams += [(f"tournament {t}", uuid.UUID(t)) for t in arena.log.tournaments]
    reports = []
    for name, stream in streams:
        records = await arena.platform.read_stream(stream, 0)
        broken = first_broken_link(records, arena.platform.chain_keys, marked=False)
        report: Record = {"name": name, "ok": broken is None, "version": len(records)}
        if broken is not None:
            report.update(first_bad_version=broken[0], problem=broken[1])
        reports.append(report)
    return reports
