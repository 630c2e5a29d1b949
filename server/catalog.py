"""Read models kept beside the events, in the same database: a summary of every match (what listings,
quotas and the ticker need) and the owner of every token ever issued.

They are projections of the event log, never the truth: each catalog write records the position in the
store's notification log it has applied up to (`ms_tracking`), and Matches.catch_up_catalog() applies
what came after it, so a crash between an append and its projection loses nothing. Summaries only move
forward (an upsert with an older version is ignored), so two server processes projecting the same
match agree.

The ticker reads `due_at` (server-clock seconds at which the match's current phase ends, NULL when
nothing is due: paused, finished, or no deadline): it visits only the matches that are due.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

from server.live import LiveMatch

WRITE_ATTEMPTS = 5
CATALOG = "catalog"  # the name of the catalog's row in ms_tracking
COLUMNS = (
    "seq, match_id, game, players, version, phase, finished, due_at, host_key, private, request_caller, request_id"
)
# PostgreSQL advisory lock ids: one node at a time creates the tables, and upgrades an old store.
SCHEMA_LOCK = 0x6D61_7463_6872
UPGRADE_LOCK = 0x6D61_7463_6873


@dataclass(frozen=True)
class Summary:
    """What a listing shows of a match, and what the ticker and quotas need, without loading it."""

    match_id: uuid.UUID
    game: str
    players: tuple[str, ...]
    version: int
    phase: str
    finished: bool
    due_at: float | None
    host_key: str | None
    private: bool
    request: tuple[str, str] | None  # (creator, request_id) of the CreateMatch or Fork that made it
    # Where the match's first record is in the store's notification log: listings are oldest first, and
    # every node orders them alike whatever order it projected them in.
    seq: int = 0


def summary_of(live: LiveMatch, seq: int) -> Summary:
    """`seq`: the notification position of the match's first record (its place in listings)."""
    status = live.status()
    due_at = None
    if not status.finished and status.deadline is not None and live.paused_at is None:
        due_at = status.deadline + live.clock_offset  # the match clock is the server clock less the offset
    header = live.header
    return Summary(
        match_id=live.id,
        game=live.game.name,
        players=live.players,
        version=live.version,
        phase=status.phase,
        finished=status.finished,
        due_at=due_at,
        host_key=header.get("host_key"),
        private=bool(header.get("private")),
        request=creation_request(header),
        seq=seq,
    )


def creation_request(record: Mapping[str, Any]) -> tuple[str, str] | None:
    """The (caller, request id) a created record was made for; None for another record, or one made
    without a request id."""
    request = record.get("request") if record.get("kind") == "created" else None
    return (str(request["caller"]), str(request["id"])) if request else None


def token_digests(record: dict[str, Any]) -> list[str]:
    """The token hashes a record issues (a match's host token, a seat's token)."""
    if record.get("kind") == "created":
        return [str(record["host_token"])]
    if record.get("kind") == "joined":
        return [str(record["token"])]
    return []


Transaction = Callable[[], AbstractContextManager[Any]]


class Catalog:
    """The read-model tables, through a transaction factory that yields a DB-API cursor (the store's own
    database: eventsourcing's SQLite or PostgreSQL datastore, or a private in-memory SQLite)."""

    def __init__(
        self,
        transaction: Transaction,
        *,
        postgres: bool = False,
        schema: str = "",
        connection: Transaction | None = None,
        retryable: tuple[type[Exception], ...] = (),
    ) -> None:
        self._transaction = transaction
        # Errors after which a catalog write is simply tried again (e.g. PostgreSQL's deadlock detection
        # between two nodes projecting the same matches): every write here is idempotent.
        self._retryable = retryable
        self._connection = connection  # PostgreSQL: one pooled connection held (a session-level lock)
        self.postgres = postgres
        self._prefix = f'"{schema}".' if schema else ""
        self._ensure_tables()

    @staticmethod
    def in_memory() -> Catalog:
        connection = sqlite3.connect(":memory:", check_same_thread=False)
        connection.row_factory = sqlite3.Row
        lock = threading.Lock()

        @contextmanager
        def transaction() -> Iterator[sqlite3.Cursor]:
            with lock, connection:
                yield connection.cursor()

        return Catalog(transaction)

    def _sql(self, statement: str) -> str:
        statement = statement.replace("ms_", self._prefix + "ms_")
        return statement.replace("?", "%s") if self.postgres else statement

    def _ensure_tables(self) -> None:
        statements = [
            """CREATE TABLE IF NOT EXISTS ms_matches (
                seq BIGINT NOT NULL, match_id TEXT UNIQUE NOT NULL, game TEXT NOT NULL, players TEXT NOT NULL,
                version INTEGER NOT NULL, phase TEXT NOT NULL, finished INTEGER NOT NULL, due_at DOUBLE PRECISION,
                host_key TEXT, private INTEGER NOT NULL, request_caller TEXT, request_id TEXT)""",
            "CREATE INDEX IF NOT EXISTS ms_matches_seq ON ms_matches (seq)",
            "CREATE INDEX IF NOT EXISTS ms_matches_due ON ms_matches (due_at) WHERE due_at IS NOT NULL",
            "CREATE INDEX IF NOT EXISTS ms_matches_host_key ON ms_matches (host_key, seq)",
            "CREATE INDEX IF NOT EXISTS ms_matches_request ON ms_matches (request_caller, request_id)",
            "CREATE INDEX IF NOT EXISTS ms_matches_public ON ms_matches (private, finished, seq)",
            "CREATE TABLE IF NOT EXISTS ms_tokens (digest TEXT PRIMARY KEY, match_id TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS ms_tracking (name TEXT PRIMARY KEY, position BIGINT NOT NULL)",
        ]
        with self._transaction() as cursor:
            if self.postgres:  # CREATE ... IF NOT EXISTS races between nodes starting together
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            for statement in statements:
                # Index names are per schema in PostgreSQL: the prefix must not qualify them.
                sql = self._sql(statement).replace(f"EXISTS {self._prefix}ms_matches_", "EXISTS ms_matches_")
                cursor.execute(sql)

    # --- tracking -------------------------------------------------------------------------------

    def position(self) -> int | None:
        """The last notification applied; None: the catalog was never built (a store from an older release)."""
        with self._transaction() as cursor:
            cursor.execute(self._sql("SELECT position FROM ms_tracking WHERE name = ?"), (CATALOG,))
            row = cursor.fetchone()
        return None if row is None else int(row["position"])

    @contextmanager
    def upgrade_lock(self) -> Iterator[None]:
        """Held while an old store's catalog is built: with PostgreSQL, one node builds, the others wait."""
        if self._connection is None:
            yield
            return
        # A session-level lock belongs to one connection: hold that one until the unlock.
        with self._connection() as connection:
            connection.execute("SELECT pg_advisory_lock(%s)", (UPGRADE_LOCK,))
            try:
                yield
            finally:
                connection.execute("SELECT pg_advisory_unlock(%s)", (UPGRADE_LOCK,))

    # --- writes ---------------------------------------------------------------------------------

    def apply(self, summaries: Sequence[Summary], tokens: Sequence[tuple[str, uuid.UUID]], position: int) -> None:
        """Upsert summaries (a newer version wins), record token owners, and move the position forward;
        one transaction."""
        upsert = self._sql(
            """INSERT INTO ms_matches AS m (seq, match_id, game, players, version, phase, finished, due_at,
                host_key, private, request_caller, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (match_id) DO UPDATE SET version = excluded.version, phase = excluded.phase,
                finished = excluded.finished, due_at = excluded.due_at
            WHERE excluded.version > m.version"""
        )
        token = self._sql("INSERT INTO ms_tokens (digest, match_id) VALUES (?, ?) ON CONFLICT (digest) DO NOTHING")
        track = self._sql(
            """INSERT INTO ms_tracking AS t (name, position) VALUES (?, ?)
            ON CONFLICT (name) DO UPDATE SET position = excluded.position
            WHERE excluded.position > t.position"""
        )
        # Rows in key order: two nodes projecting overlapping matches lock them in the same order.
        summaries = sorted(summaries, key=lambda s: str(s.match_id))
        tokens = sorted(set(tokens))
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            try:
                with self._transaction() as cursor:
                    for s in summaries:
                        caller, request_id = s.request or (None, None)
                        row = (s.seq, str(s.match_id), s.game, json.dumps(list(s.players)), s.version, s.phase)
                        cursor.execute(
                            upsert, (*row, int(s.finished), s.due_at, s.host_key, int(s.private), caller, request_id)
                        )
                    for digest, match_id in tokens:
                        cursor.execute(token, (digest, str(match_id)))
                    cursor.execute(track, (CATALOG, position))
                return
            except self._retryable:
                if attempt == WRITE_ATTEMPTS:
                    raise
                time.sleep(0.01 * attempt)  # on the store's thread: lets the other transaction finish

    # --- reads ----------------------------------------------------------------------------------

    def _rows(self, statement: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._transaction() as cursor:
            cursor.execute(self._sql(statement), tuple(params))
            return list(cursor.fetchall())

    def due(self, server_now: float, limit: int = 1000) -> list[uuid.UUID]:
        statement = "SELECT match_id FROM ms_matches WHERE due_at <= ? ORDER BY due_at LIMIT ?"
        rows = self._rows(statement, (server_now, limit))
        return [uuid.UUID(row["match_id"]) for row in rows]

    def versions(self, match_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, int]:
        """The version each match's summary is at (absent: no summary yet)."""
        if not match_ids:
            return {}
        marks = ", ".join("?" for _ in match_ids)
        statement = f"SELECT match_id, version FROM ms_matches WHERE match_id IN ({marks})"
        rows = self._rows(statement, [str(m) for m in match_ids])
        return {uuid.UUID(row["match_id"]): int(row["version"]) for row in rows}

    def finished_among(self, match_ids: Sequence[uuid.UUID]) -> set[uuid.UUID]:
        """Those of the matches whose summary says they are over (one query)."""
        if not match_ids:
            return set()
        marks = ", ".join("?" for _ in match_ids)
        statement = f"SELECT match_id FROM ms_matches WHERE finished = 1 AND match_id IN ({marks})"
        return {uuid.UUID(row["match_id"]) for row in self._rows(statement, [str(m) for m in match_ids])}

    def page(self, after_seq: int, limit: int, host_key: str | None = None) -> list[Summary]:
        """Summaries oldest first after a position: all of them, or those one host key created."""
        if host_key is None:
            statement = f"SELECT {COLUMNS} FROM ms_matches WHERE seq > ? ORDER BY seq LIMIT ?"
            rows = self._rows(statement, (after_seq, limit))
        else:
            rows = self._rows(
                f"SELECT {COLUMNS} FROM ms_matches WHERE host_key = ? AND seq > ? ORDER BY seq LIMIT ?",
                (host_key, after_seq, limit),
            )
        return [_summary(row) for row in rows]

    def public_page(
        self, finished: bool, limit: int, after_seq: int = 0, before_seq: int | None = None
    ) -> list[Summary]:
        """Public matches only (never a private one), live or finished: oldest first after a position, or,
        given `before_seq`, newest first before it (the front door's recently finished)."""
        where = f"SELECT {COLUMNS} FROM ms_matches WHERE private = 0 AND finished = ?"
        if before_seq is None:
            rows = self._rows(f"{where} AND seq > ? ORDER BY seq LIMIT ?", (int(finished), after_seq, limit))
        else:
            rows = self._rows(f"{where} AND seq < ? ORDER BY seq DESC LIMIT ?", (int(finished), before_seq, limit))
        return [_summary(row) for row in rows]

    def get(self, match_id: uuid.UUID) -> Summary | None:
        rows = self._rows(f"SELECT {COLUMNS} FROM ms_matches WHERE match_id = ?", (str(match_id),))
        return _summary(rows[0]) if rows else None

    def token_owner(self, digest: str) -> uuid.UUID | None:
        rows = self._rows("SELECT match_id FROM ms_tokens WHERE digest = ?", (digest,))
        return uuid.UUID(rows[0]["match_id"]) if rows else None

    def created_for(self, caller: str, request_id: str) -> uuid.UUID | None:
        """The match a CreateMatch (or Fork) with this request id made, if any."""
        rows = self._rows(
            "SELECT match_id FROM ms_matches WHERE request_caller = ? AND request_id = ? ORDER BY seq LIMIT 1",
            (caller, request_id),
        )
        return uuid.UUID(rows[0]["match_id"]) if rows else None

    def unfinished_of(self, host_key: str) -> int:
        rows = self._rows("SELECT COUNT(*) AS n FROM ms_matches WHERE host_key = ? AND finished = 0", (host_key,))
        return int(rows[0]["n"])


def _summary(row: Any) -> Summary:
    caller, request_id = row["request_caller"], row["request_id"]
    return Summary(
        match_id=uuid.UUID(row["match_id"]),
        game=row["game"],
        players=tuple(json.loads(row["players"])),
        version=int(row["version"]),
        phase=row["phase"],
        finished=bool(row["finished"]),
        due_at=None if row["due_at"] is None else float(row["due_at"]),
        host_key=row["host_key"],
        private=bool(row["private"]),
        request=(caller, request_id) if caller is not None else None,
        seq=int(row["seq"]),
    )
