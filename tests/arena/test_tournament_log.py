"""A tournament's log folded (server/arena/tournament.py), without a server: what standings, byes and
the audit say after each kind of record."""

from __future__ import annotations

from server.arena.tournament import TournamentLog, plan_for, scheduled_record

HEADER = {
    "kind": "tournament_created",
    "name": "t",
    "game": "cookoff",
    "format": "round-robin",
    "bots": ["ann", "bob", "cid"],
    "games_per_pair": 1,
    "rounds": 0,
    "table_size": 2,
    "config": {},
    "seed": 5,
    "organiser": "admin",
    "at": 0.0,
}


def folded(*records: dict[str, object]) -> TournamentLog:
    log = TournamentLog("t")
    for record in [HEADER, scheduled_record(plan_for(HEADER), 0.0), *records]:
        log.apply(dict(record))
    return log


def test_a_bye_counts_once_its_round_has_begun() -> None:
    log = folded()
    assert log.byes_so_far() == {}  # drawn, but no round under way
    first = log.to_start()
    assert len(first) == 1 and first[0].round == 1
    sitting_out = next(bot for bot in HEADER["bots"] if bot not in first[0].seats)  # type: ignore[attr-defined]
    log.apply({"kind": "started", "index": first[0].index, "match": "m0", "at": 1.0})
    assert log.byes_so_far() == {sitting_out: 1}
    assert {s.bot: s.byes for s in log.standings()}[sitting_out] == 1


def test_a_void_strikes_a_result_and_the_audit_says_who_and_why() -> None:
    log = folded()
    entry = log.to_start()[0]
    winner, loser = entry.seats
    log.apply({"kind": "started", "index": entry.index, "match": "m0", "at": 1.0})
    log.apply({"kind": "finished", "index": entry.index, "match": "m0", "ranks": {winner: 1, loser: 2}, "at": 2.0})
    assert {s.bot: s.points for s in log.standings()}[winner] == 1
    log.apply(
        {"kind": "voided", "index": entry.index, "match": "m0", "reason": "misclick", "by": "hk-1", "rematch": None}
    )
    assert {s.bot: s.points for s in log.standings()}[winner] == 0
    assert any("voided by hk-1: misclick" in line and f"{winner} -1" in line for line in log.audit)
    assert [s.rank for s in log.standings()] == [1, 1, 1]  # all on 0 points: they share the rank
