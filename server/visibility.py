"""Who sees what of a match, the server's part (the games' own `view`/`redact` decide their events): one
module, so the boundary of hidden information can be audited in one sitting (docs/SECURITY.md).

- A record is shown without token or invitation hashes, without the seed before the match's end, with
  sealed content redacted by the game, and with its cause only to the host and the actor.
- Host-set secret configuration waits for the end of the match. What was public once the match finished
  stays public after a rollback reopens it.
- Results are shown only once the match is over, and a cancelled match shows no results at all.
- A host record's request id is the host's own: shown to nobody else.
- How a match's host credentials see it is the host's view, unless a registered policy says otherwise
  (server/policy.py: a bot match's organiser watches it as a spectator until it ends).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from engine.contract import Viewer
from server.records import Record

if TYPE_CHECKING:
    from server.live import LiveMatch

HIDDEN_CONFIG = "hidden until the match is over"


def visible_record(live: LiveMatch, version: int, viewer: Viewer, record: Record | None = None) -> Record:
    """Record `version` as `viewer` may see it; `record`: the one a write just appended there, which its
    writer still holds (the same as the stored one: spares decoding it again)."""
    record = live.records[version - 1] if record is None else record
    before = live.state_at(version - 1) if record["kind"] == "game" else None
    return visible(live, version, record, before, viewer)


def visible_records(live: LiveMatch, first: int, last: int, viewer: Viewer) -> Iterator[tuple[int, Record]]:
    """(version, record as `viewer` may see it) from `first` to `last`: one running fold."""
    for version, record, before in live.walk(first, last):
        yield version, visible(live, version, record, before, viewer)


def visible(live: LiveMatch, version: int, record: Record, before: Any, viewer: Viewer) -> Record:
    """`record` (at `version`; `before`: the state before it) as `viewer` may see it."""
    kind = record["kind"]
    out: Record = {"kind": kind, "at": record.get("at")}
    if kind == "created":
        out.update(_created(live, version, record, viewer))
    elif kind in ("joined", "invited"):  # never the hashes of tokens or invitations
        out["player"] = record["player"]
    elif kind == "game":
        event = live.game.redact(before, record["event"], viewer)
        out["event"] = event if event is not None else {"type": "hidden"}
        cause = record.get("cause")
        if cause is not None:
            actor = cause.get("actor")
            if viewer.is_host or (actor is not None and viewer.is_player(actor)):
                out["cause"] = cause
            else:
                out["cause"] = {"actor": actor}
    else:
        private = ("prev", "hash") if viewer.is_host else ("prev", "hash", "request")
        out.update({key: value for key, value in record.items() if key not in private})
        if "seed" in out and not (viewer.is_host or live.envelope.seed_revealed(version)):
            out["seed"] = HIDDEN_CONFIG  # a reopening rollback's new seed
    return out


def _created(live: LiveMatch, version: int, record: Record, viewer: Viewer) -> Record:
    config = dict(record["config"])
    if not (viewer.is_host or live.finished_last):
        # Host-set secrets (e.g. Cookoff's judges and tree schedule) wait for the end of the match.
        for key in live.game.secret_config_keys:
            if config.get(key) is not None:
                config[key] = HIDDEN_CONFIG
    out: Record = {"game": record["game"], "players": record["players"], "config": config}
    out["rules_version"] = record.get("rules_version")
    if record.get("origin"):
        out["origin"] = record["origin"]
    if record.get("reseeded"):  # a fork of a match whose seed was public draws from a new one
        out["reseeded"] = True
    if viewer.is_host or live.envelope.seed_revealed(version):
        out["seed"] = record["seed"]
    return out


def visible_results(live: LiveMatch, version: int) -> dict[str, Any] | None:
    """The results at `version` as anyone may see them: none before the end (the games' results are not run
    through their view, so before the end they could hold what some viewer may not see yet), and none but
    the fact for a cancelled match (the results of an unfinished game would tell secrets)."""
    if not live.status(version).finished:
        return None
    if live.cancelled(version):
        return {"cancelled": True, "results": []}
    results: dict[str, Any] = live.game.results(live.state_at(version))
    return results
