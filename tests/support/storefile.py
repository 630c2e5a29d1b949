"""Edit a match's rows directly in a real SQLite store file, as someone with access to the disk could."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

TABLE = "stored_events"  # the eventsourcing library's table of stored events


def _id(match_id: str) -> str:
    return match_id.replace("-", "")


def records(path: Path, match_id: str) -> list[dict[str, Any]]:
    with sqlite3.connect(path) as db:
        rows = db.execute(
            f"select state from {TABLE} where originator_id=? order by originator_version", (_id(match_id),)
        ).fetchall()
    return [json.loads(state)["record"] for (state,) in rows]


def rewrite(path: Path, match_id: str, version: int, edit: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Replace the record at `version` with edit(record), leaving the rest of the stored event as it was."""
    with sqlite3.connect(path) as db:
        where = "originator_id=? and originator_version=?"
        (state,) = db.execute(f"select state from {TABLE} where {where}", (_id(match_id), version)).fetchone()
        stored = json.loads(state)
        stored["record"] = edit(stored["record"])
        db.execute(f"update {TABLE} set state=? where {where}", (json.dumps(stored).encode(), _id(match_id), version))


def overwrite(path: Path, match_id: str, version: int, raw: bytes) -> None:
    """Put raw bytes where the stored event at `version` was (a damaged row)."""
    with sqlite3.connect(path) as db:
        where = "originator_id=? and originator_version=?"
        db.execute(f"update {TABLE} set state=? where {where}", (raw, _id(match_id), version))


def delete_after(path: Path, match_id: str, version: int) -> int:
    """Delete every row of the match after `version`; returns how many went."""
    with sqlite3.connect(path) as db:
        cursor = db.execute(
            f"delete from {TABLE} where originator_id=? and originator_version>?", (_id(match_id), version)
        )
        return cursor.rowcount
