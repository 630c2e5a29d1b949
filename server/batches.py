"""A match's batches: the records appended by one accepted command, deadline or host action.

Their boundaries are derived from the records (so stores written before batches were named keep working):
a game record with a `cause` opens one, except the game's start records, which join the `created` record
before them; a game record without a cause continues the batch; every other record is a batch of its own.
A rollback or a fork returns to a batch end: a state inside a batch awaits nobody and has no deadline.
"""

from __future__ import annotations

from server.records import Record


def starts_batch(record: Record) -> bool:
    if record["kind"] != "game":
        return True
    return "cause" in record and not record.get("start")


class Batches:
    def __init__(self) -> None:
        self._starts = bytearray()  # _starts[v - 1]: record v starts a batch
        self._rollbacks: list[tuple[int, int]] = []  # (version, the version it rolled back to)

    def __len__(self) -> int:
        return len(self._starts)

    def append(self, record: Record) -> None:
        self._starts.append(starts_batch(record))
        if record["kind"] == "rollback":
            self._rollbacks.append((len(self._starts), int(record["to"])))

    def is_end(self, version: int) -> bool:
        """Whether `version` is the last record of a batch (a state a rollback or fork may return to)."""
        if not 1 <= version <= len(self):
            return False
        return version == len(self) or bool(self._starts[version])

    def end_from(self, first: int) -> int:
        """The last version of the batch that starts at `first`."""
        version = first
        while version < len(self) and not self._starts[version]:
            version += 1
        return version

    def start_at(self, version: int) -> int:
        """The first version of the batch that holds `version` (where its cause is recorded)."""
        while version > 1 and not self._starts[version - 1]:
            version -= 1
        return version

    def nearest_ends(self, version: int) -> tuple[int | None, int | None]:
        """The last batch end before `version` and the first after it (None where there is none)."""
        before = next((v for v in range(version - 1, 0, -1) if self.is_end(v)), None)
        after = next((v for v in range(version + 1, len(self) + 1) if self.is_end(v)), None)
        return before, after

    def retracted(self) -> set[int]:
        """Versions undone by a later rollback (server/records.py retracted_versions, from the rollbacks kept)."""
        retracted: set[int] = set()
        for version, to in self._rollbacks:
            retracted.update(range(to + 1, version))
        return retracted
