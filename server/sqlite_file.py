"""What the store does with its SQLite file itself, beside the library: it refuses a file that is not
a database (check_sqlite_file), and writes the event loop's group commits (server/writer.py) on a
connection of their own (LoopCommits). A pooled connection of the library cost each commit two more
statements (its lock wait set to none and back), the pool's locks and the library's cursor and
transaction wrappers: 20-30 µs of CPU a commit, a third of its user time (docs/BENCHMARKS.md). This
connection never waits for another's lock (busy at once: the writer then waits on the store's thread
with the library's own), is used by the loop's thread alone, and writes the same file in the same WAL
mode at SQLite's default synchronous=FULL, as the library's connections do."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from typing import Any

from server.errors import StartupRefused

SQLITE_MAGIC = b"SQLite format 3\x00"


class LoopCommits:
    """Rows inserted in one transaction each call, on a connection opened at the first call."""

    def __init__(self, db_name: str, insert_statement: str) -> None:
        self.db_name = db_name
        self.insert_statement = insert_statement
        self._connection: sqlite3.Connection | None = None

    def insert(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """All the rows or none: sqlite3.IntegrityError if one's version is taken, sqlite3.OperationalError
        (SQLITE_BUSY) at once if another connection holds the write lock; nothing is written then."""
        connection = self._connect()
        connection.execute("BEGIN")
        try:
            connection.executemany(self.insert_statement, rows)
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.rollback()
            raise

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            # timeout=0: never wait for another connection's lock (busy_timeout 0); autocommit: BEGIN is ours.
            self._connection = sqlite3.connect(
                self.db_name, uri=True, timeout=0, isolation_level=None, check_same_thread=False
            )
        return self._connection

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def check_sqlite_file(path: str) -> None:
    """Refuse a store file that exists but is empty, not SQLite, or shorter than its header says: SQLite
    would silently start an empty database in an empty file, and the matches in it would be lost."""
    if not os.path.exists(path):
        return  # a first start: the library creates it
    size = os.path.getsize(path)
    if size == 0:
        raise StartupRefused(f"store file {path} is empty (0 bytes); it was left as it is: restore it from a backup")
    with open(path, "rb") as file:
        header = file.read(100)
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        raise StartupRefused(f"store file {path} is not an SQLite database ({size} bytes); it was left as it is")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    if pages and header[24:28] == header[92:96] and size < page_size * pages:
        raise StartupRefused(
            f"store file {path} is truncated: {size} bytes where its header says {page_size * pages}; "
            "it was left as it is: restore it from a backup"
        )
