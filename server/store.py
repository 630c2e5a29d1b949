"""The event store: the only module that touches the `eventsourcing` library.

One event stream per match (the originator id is the match id); each stored event holds one record
(a JSON-plain dict, see server/records.py) at a version that starts at 1. Optimistic concurrency: a
record is written at an exact version, so two conflicting writes to one match never both land.

The library is synchronous: the server calls this class from its own writer thread (server/writer.py).
"""

from __future__ import annotations

import functools
import hashlib
import os
import secrets
import sqlite3
import time
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from eventsourcing.application import Application
from eventsourcing.domain import DomainEvent
from eventsourcing.persistence import (
    IntegrityError,
    InterfaceError,
    InternalError,
    OperationalError,
    ProgrammingError,
    StoredEvent,
)
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteAggregateRecorder
from eventsourcing.utils import get_topic
from psycopg import Cursor
from psycopg.rows import DictRow

from server.catalog import Catalog
from server.compact import encode
from server.errors import StartupRefused
from server.sqlite_file import LoopCommits, check_sqlite_file

Record = dict[str, Any]
# (match, the version after which its records go, the records, their compact JSON if already encoded)
Batch = tuple[uuid.UUID, int, Sequence[Record], Sequence[bytes] | None]
# Bytes found in the stored JSON of every record that issues a token (server/catalog.py token_digests).
TOKEN_MARKS = (b"host_token", b"joined")
# The store's errors that say "not now" rather than "never": the caller is told UNAVAILABLE, to retry.
TRANSIENT: tuple[type[Exception], ...] = (OperationalError, InterfaceError)
SQLITE_LOCK_TIMEOUT = 10  # seconds a SQLite write waits for a lock another connection holds


class StoreBusy(OperationalError):
    """A commit told not to wait found the SQLite file's write lock held by another program."""


class VersionConflict(Exception):
    """Another writer appended to the match first; reload it and try again (or report ABORTED)."""


class UnreadableRecord(Exception):
    """A stored event of a match does not decode: the records before it are readable, it is not."""

    def __init__(self, match_id: uuid.UUID, version: int, reason: str, readable: list[Record] | None = None) -> None:
        super().__init__(f"match {match_id}: the stored record at version {version} cannot be read ({reason})")
        self.match_id = match_id
        self.version = version
        self.reason = reason
        self.readable = readable or []  # the records before it, which did decode


@dataclass(frozen=True)
class MatchRecorded(DomainEvent):
    """One record of a match's log."""

    record: dict[str, Any]


RECORDED_TOPIC = get_topic(MatchRecorded)


def stored_stamp(now: datetime) -> bytes:
    """The start of a stored event's state, up to its record: what the library's mapper writes for a
    MatchRecorded (its JSON transcoder: the timestamp as `datetime_iso`, then the record), written here
    directly, since the mapper's per-event work was about a fifth of the store thread's. The record is ASCII JSON
    (ensure_ascii, as server/compact.py keeps records: a lone surrogate in a text survives), which the
    library decodes as it decodes its own."""
    return b'{"timestamp":{"_type_":"datetime_iso","_data_":"' + now.isoformat().encode() + b'"},"record":'


@dataclass(frozen=True)
class Change:
    """One entry of the store's notification log: a record appended to a match at a version."""

    position: int  # the notification id (ids have gaps: keep the last one seen, never count)
    match_id: uuid.UUID
    version: int
    record: Record  # decoded only when it issues a token (created, joined); else empty


class MatchLog(Application[uuid.UUID]):
    name = "MatchLog"


def appends_channel(schema: str) -> str:
    """The PostgreSQL channel on which a store announces its appends (server/notify.py listens). Channels
    are database-wide, so each schema gets its own: nodes on different schemas never wake each other."""
    schema = schema.strip() or "public"
    if schema == "public":
        return "matchserver_appends"
    channel = f"matchserver_appends_{schema}"
    if len(channel.encode()) > 63:  # PostgreSQL cuts identifiers at 63 bytes: keep distinct schemas distinct
        channel = "matchserver_appends_" + hashlib.sha256(schema.encode()).hexdigest()[:32]
    return channel


def append_payload(stream: uuid.UUID | str, version: int, sender: str) -> str:
    """What a notification says: which stream reached which version, written by which node."""
    return f"{stream} {version} {sender}"


class NotifyingRecorder(PostgresApplicationRecorder):
    """The library's PostgreSQL recorder, plus one pg_notify per stream appended to, sent in the append's
    own transaction: PostgreSQL delivers it exactly when the append commits (never for a rolled-back one).
    Selected by APPLICATION_RECORDER_TOPIC; `sender` is set by the EventStore that owns it."""

    sender = ""

    def _insert_events(self, curs: Cursor[DictRow], stored_events: Sequence[StoredEvent], **kwargs: Any) -> None:
        super()._insert_events(curs, stored_events, **kwargs)
        reached: dict[str, int] = {}
        for event in stored_events:
            stream = str(event.originator_id)
            reached[stream] = max(reached.get(stream, 0), event.originator_version)
        channel = appends_channel(self.datastore.schema)
        for stream, version in reached.items():
            curs.execute("SELECT pg_notify(%s, %s)", (channel, append_payload(stream, version, self.sender)))


def store_env(url: str) -> dict[str, str]:
    """The library's settings for a store URL: `memory`, `sqlite:PATH` or `postgres:KEY=VALUE ...`."""
    if url == "memory":
        return {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    if url.startswith("sqlite:"):
        path = url.removeprefix("sqlite:")
        if os.path.dirname(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
        wait = str(SQLITE_LOCK_TIMEOUT)
        return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path, "SQLITE_LOCK_TIMEOUT": wait}
    if url.startswith("postgres:"):
        params = dict(part.split("=", 1) for part in url.removeprefix("postgres:").split())
        env = {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": params.get("dbname", "matchserver"),
            "POSTGRES_HOST": params.get("host", "127.0.0.1"),
            "POSTGRES_PORT": params.get("port", "5432"),
            "POSTGRES_USER": params.get("user", "postgres"),
            "POSTGRES_PASSWORD": params.get("password", ""),
            "POSTGRES_LOCK_TIMEOUT": params.get("lock_timeout", "5"),
            "POSTGRES_CONNECT_TIMEOUT": params.get("connect_timeout", "5"),
        }
        if "schema" in params:
            env["POSTGRES_SCHEMA"] = params["schema"]
        # Appends announce themselves (NotifyingRecorder); the library's database-function insert would skip
        # that hook, so it stays off even if the environment says otherwise.
        env["APPLICATION_RECORDER_TOPIC"] = f"{__name__}:{NotifyingRecorder.__qualname__}"
        env["POSTGRES_ENABLE_DB_FUNCTIONS"] = "n"
        return env
    raise ValueError(f"unknown store {url!r}: use memory, sqlite:PATH or postgres:host=... dbname=...")


class EventStore:
    """Append and read match records. Not thread-safe for writes: use one writer thread."""

    def __init__(self, url: str) -> None:
        self.url = url
        path = url.removeprefix("sqlite:") if url.startswith("sqlite:") else None
        if path is not None:
            check_sqlite_file(path)
        try:
            self._app = _open(url)
        except sqlite3.DatabaseError as exc:
            raise StartupRefused(
                f"store file {path} cannot be opened as SQLite ({exc}); it was left as it is"
            ) from None
        # This process's name in append notifications: its listener skips its own appends (already applied).
        self.node_id = secrets.token_hex(8)
        if isinstance(self._app.recorder, NotifyingRecorder):
            self._app.recorder.sender = self.node_id
        mapper = self._app.mapper
        self._direct = mapper.compressor is None and mapper.cipher is None  # see stored_stamp
        # Streams read in full or in part, by id: start-up and listings must read none (tests count).
        self.reads: Counter[uuid.UUID] = Counter()
        self._loop_commits: LoopCommits | None = None

    def catalog(self) -> Catalog:
        """The read models (server/catalog.py), in the store's own database."""
        datastore = getattr(self._app.recorder, "datastore", None)
        if datastore is None:  # the in-memory store: a private in-memory SQLite beside it
            return Catalog.in_memory()
        postgres = self.url.startswith("postgres:")
        schema = getattr(datastore, "schema", "") if postgres else ""
        return Catalog(
            lambda: datastore.transaction(commit=True),
            postgres=postgres,
            schema=schema,
            connection=datastore.get_connection if postgres else None,
            retryable=(OperationalError, IntegrityError),
        )

    def close(self) -> None:
        if self._loop_commits is not None:
            self._loop_commits.close()
        self._app.close()

    def append(self, match_id: uuid.UUID, after_version: int, records: Sequence[Record]) -> int:
        """Write `records` at versions after_version+1...; VersionConflict if any is taken."""
        return self.append_many([(match_id, after_version, records)])[0]

    def append_many(self, batches: Sequence[tuple[uuid.UUID, int, Sequence[Record]]]) -> list[int]:
        """Several matches' records in one transaction (group commit); all land or none."""
        return self.append_encoded([(match_id, after, records, None) for match_id, after, records in batches])

    def append_encoded(self, batches: Sequence[Batch], wait_for_lock: bool = True) -> list[int]:
        """append_many, each batch with its records' compact JSON when the caller has it already (a live
        match keeps the same bytes: server/compact.py encode), so a record is encoded once. wait_for_lock=False
        (the loop's commits, on SQLite): StoreBusy at once, nothing written, if the write lock is held."""
        at = datetime.now(UTC)
        stamp = stored_stamp(at)
        stored = []
        versions = []
        for match_id, after_version, records, rows in batches:
            for offset, record in enumerate(records, start=1):
                row = rows[offset - 1] if rows is not None else None
                stored.append(self._stored(match_id, after_version + offset, at, stamp, record, row))
            versions.append(after_version + len(records))
        try:
            self._insert(stored, wait_for_lock)
        except (IntegrityError, sqlite3.IntegrityError) as exc:
            raise VersionConflict(str(exc)) from None
        except (OperationalError, sqlite3.OperationalError) as exc:
            raw = exc if isinstance(exc, sqlite3.Error) else exc.__cause__  # the library wraps sqlite3's error
            cause = getattr(raw, "sqlite_errorcode", 0)
            if not wait_for_lock and cause & 0xFF == sqlite3.SQLITE_BUSY:
                raise StoreBusy(str(exc)) from None
            raise
        return versions

    def _stored(
        self, match_id: uuid.UUID, version: int, at: datetime, stamp: bytes, record: Record, row: bytes | None = None
    ) -> StoredEvent:
        if not self._direct:  # the environment asked the library to compress or encrypt: its mapper does
            event = MatchRecorded(originator_id=match_id, originator_version=version, timestamp=at, record=dict(record))
            return self._app.mapper.to_stored_event(event)
        state = stamp + (row if row is not None else encode(record)) + b"}"
        return StoredEvent(originator_id=match_id, originator_version=version, topic=RECORDED_TOPIC, state=state)

    def _insert(self, stored: list[StoredEvent], wait_for_lock: bool = True) -> None:
        """The stored events in one transaction. On SQLite one executemany: the library's recorder runs one
        INSERT per event for its notification ids, which nothing here uses. Elsewhere the library's own.
        The loop's commits (wait_for_lock=False) on a file use a connection of their own (LoopCommits)."""
        recorder = self._app.recorder
        if not isinstance(recorder, SQLiteAggregateRecorder):
            recorder.insert_events(stored)
            return
        rows = [(s.originator_id.hex, s.originator_version, s.topic, s.state) for s in stored]  # type: ignore[union-attr]
        pool = recorder.datastore.pool
        if not wait_for_lock and not pool.is_sqlite_memory_mode:  # the loop's commits
            if self._loop_commits is None:
                self._loop_commits = LoopCommits(pool.db_name, recorder.insert_events_statement)
            self._loop_commits.insert(rows)
            return
        with recorder.datastore.transaction(commit=True) as cursor:  # a memory database has no other program
            cursor.executemany(recorder.insert_events_statement, rows)

    def read(self, match_id: uuid.UUID, after_version: int = 0) -> list[Record]:
        """The records after `after_version`, in order; UnreadableRecord names the first that does not decode."""
        self.reads[match_id] += 1
        stored = self._app.recorder.select_events(match_id, gt=after_version or None)
        records = []
        for item in stored:
            try:
                records.append(_as_record(self._app.mapper.to_domain_event(item)))
            except Exception as exc:  # any decoding failure of one row: report which, keep the others readable
                reason = f"it does not decode: {type(exc).__name__}"
                raise UnreadableRecord(match_id, item.originator_version, reason, records) from exc
        return records

    def match_ids(self) -> list[uuid.UUID]:
        """Every match in the store, oldest first (the streams whose first record exists)."""
        return [match_id for match_id, _ in self.first_positions()]

    def first_positions(self) -> list[tuple[uuid.UUID, int]]:
        """Every stream and the notification position of its first record, oldest first.
        Positions have gaps (a rolled-back insert uses one), so callers keep positions, never counts."""
        found: list[tuple[uuid.UUID, int]] = []
        start = 1
        while True:
            notifications = self._app.recorder.select_notifications(start=start, limit=500)
            if not notifications:
                return found
            for notification in notifications:
                if notification.originator_version == 1:
                    found.append((uuid.UUID(str(notification.originator_id)), notification.id))
            start = notifications[-1].id + 1

    def changes_after(self, position: int, limit: int = 500) -> list[Change]:
        """The next entries of the notification log after `position`, oldest first, with the records that
        issue tokens decoded (others are left empty, as is one that does not decode: reading its match
        reports it, and quarantines it)."""
        changes = []
        for notification_id, stream, version, state in self._entries_after(position, limit):
            record: Record = {}
            if state is not None:
                try:
                    event = StoredEvent(
                        originator_id=stream, originator_version=version, topic=RECORDED_TOPIC, state=state
                    )
                    record = _as_record(self._app.mapper.to_domain_event(event))
                except Exception:
                    record = {}
            changes.append(Change(notification_id, stream, version, record))
        return changes

    def _entries_after(self, position: int, limit: int) -> list[tuple[int, uuid.UUID, int, bytes | None]]:
        """(position, match, version, the stored state if it issues a token, else None). Only records that
        issue tokens are read (created, joined): decoding every entry was most of a catch-up's cost. The
        raw bytes are the record's JSON, so a substring tells; on SQLite the database looks for it, and
        the other states are never fetched (the catch-up was about a fifth of the store thread's work)."""
        recorder = self._app.recorder
        if isinstance(recorder, SQLiteAggregateRecorder):
            issues_token = " OR ".join(["instr(state, ?)"] * len(TOKEN_MARKS))
            statement = (
                f"SELECT rowid, originator_id, originator_version, CASE WHEN {issues_token} THEN state END "
                f"FROM {recorder.events_table_name} WHERE rowid>? ORDER BY rowid LIMIT ?"
            )
            with recorder.datastore.transaction(commit=False) as cursor:
                cursor.execute(statement, (*TOKEN_MARKS, position, limit))
                rows = cursor.fetchall()
            return [(row[0], _stream_id(row[1]), row[2], row[3]) for row in rows]
        return [
            (
                n.id,
                uuid.UUID(str(n.originator_id)),
                n.originator_version,
                n.state if any(mark in n.state for mark in TOKEN_MARKS) else None,
            )
            for n in self._app.recorder.select_notifications(start=position + 1, limit=limit)
        ]

    def last_position(self) -> int:
        return int(self._app.recorder.max_notification_id() or 0)


@functools.lru_cache(maxsize=4096)
def _stream_id(hex_id: str) -> uuid.UUID:
    """A stream's id from its stored hex: a catch-up meets the same few matches again and again."""
    return uuid.UUID(hex_id)


def _open(url: str, attempts: int = 5) -> MatchLog:
    """The library's application on the store. Nodes starting together on one PostgreSQL race to create
    its tables ("tuple concurrently updated"): the loser tries again once the winner is done."""
    for attempt in range(1, attempts + 1):
        try:
            # Pass every setting explicitly: the library lets environment variables override defaults.
            return MatchLog(env=store_env(url))
        except (InternalError, IntegrityError, ProgrammingError):
            if not url.startswith("postgres:") or attempt == attempts:
                raise
            time.sleep(0.2 * attempt)  # start-up only: nothing else waits on this thread
    raise AssertionError("unreachable")


def _as_record(event: Any) -> Record:
    record: Mapping[str, Any] = event.record
    if not isinstance(record, Mapping):
        raise TypeError(f"the stored record is a {type(record).__name__}, not an object")
    return dict(record)
