"""A match held in memory: its records, kept compactly, and the effective game state at any version.

state(N) = fold(evolve, initial(config, seed), effective records up to N); a rollback record's state
is the state at the version it rolls back to, so play resumes from there while the retracted records
stay in the log. Not every state is kept: the current one and those since the last batch began, one
after every `snapshot_every` versions or `snapshot_bytes` of records, and a few asked for lately.
`state_at` folds from the nearest kept state at or before the version asked for, and a read over a range
of versions (history, the audit trail) is one running fold (`walk`). Records are kept as compact JSON
bytes and decoded on access, so a live match holds less than twice its stored JSON (bench/memory.py).

Batches (the records of one command, deadline or host action) are kept by server/batches.py.
"""

from __future__ import annotations

import uuid
from array import array
from bisect import bisect_right
from collections import Counter, OrderedDict, deque
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from engine.contract import Game, Status, Viewer
from engine.registry import get_game
from server import envelope
from server.batches import Batches, starts_batch
from server.compact import RECORD_OVERHEAD, REQUEST_BYTES, CompactRecords, Header, RequestVersions, deep_size, encode
from server.envelope import Envelope, FromEnvelope, Token
from server.identities import SEAT_HOLDERS
from server.records import Record
from server.submissions import SubmissionIndex
from server.version_facts import VersionFacts

# A state is kept after at most SNAPSHOT_EVERY versions, or sooner, after the record that brings the records
# since the last kept state to SNAPSHOT_BYTES: StateAt decodes and folds at most that much (decoding dominates
# a fold of long records, such as mining's traced resolutions). Measured by bench/memory.py: a 20k-record
# mining match holds ~1.4x its stored JSON and folds under 1 ms at p50 of the worst versions.
SNAPSHOT_EVERY = 32
SNAPSHOT_BYTES = 96 * 1024
RECENT_STATES = 8  # states computed lately (a stream catching up, a page of history), kept for the next ask
# The states since the start of the last batch (at most TAIL_STATES), kept as they are applied: a write's
# answer and every stream's update show the records just appended, each redacted with the state before
# it, without a fold.
TAIL_STATES = 16


class LiveMatch:
    def __init__(
        self,
        id: uuid.UUID,
        game: Game[Any, Any],
        snapshot_every: int = SNAPSHOT_EVERY,
        snapshot_bytes: int = SNAPSHOT_BYTES,
    ) -> None:
        if snapshot_every < 1 or snapshot_bytes < 1:
            raise ValueError("snapshot_every and snapshot_bytes must be 1 or more")
        self.id = id
        self.game = game
        self.snapshot_every = snapshot_every
        self.snapshot_bytes = snapshot_bytes
        self.records = CompactRecords()
        self.version = 0  # the records applied: an attribute, read dozens of times a move
        self._header: Header | None = None
        self._last_hash: str | None = None
        self._state: Any = None  # the state after the last version
        self._tail: deque[Any] = deque([None], maxlen=TAIL_STATES)  # _tail[-1 - k]: the state after version - k
        self._batch_from = 0  # the version before the last batch: the tail keeps the states from it on
        self._snapshots: list[Any] = [None]  # _snapshots[i]: the state after version _snapshot_versions[i]
        self._snapshot_versions = array("q", [0])
        self._unsnapped_bytes = 0  # bytes of the records since the last snapshot
        self._recent: OrderedDict[int, Any] = OrderedDict()  # version -> state, most recently used last
        # One state's size, measured now and then, less its `config` (parsed once, shared by every state): approx_bytes.
        self._state_bytes = 0
        self._config_bytes = 0
        # moves[v]: game events in force after version v. Dice are keyed on it (not on the record count), so
        # joins and host records never change a draw, a re-decision after a rollback draws what the first
        # one drew, and a transcript replayed in process (engine.match.LocalMatch) draws the same values.
        self.moves = array("q", [0])
        self._pauses = bytearray(1)  # _pauses[v]: paused after version v
        self.batches = Batches()  # where each batch starts; the rollbacks (server/batches.py)
        self.envelope = Envelope()  # the server's own records folded (server/envelope.py)
        # (caller, request_id) -> the version of the record that carries it: idempotent retries (server/requests.py)
        self.requests = RequestVersions()
        self.submissions = SubmissionIndex()  # each seat's own submissions, for its page (server/submissions.py)
        # Each seat's submissions (replacements too) in the open phase: Limits.max_submissions_per_seat_per_phase.
        self.phase_submissions: Counter[str] = Counter()
        self._phase: tuple[str, float | None] | None = None
        self.facts = VersionFacts(self)  # the status and views of the latest versions asked for

    @staticmethod
    def from_records(
        match_id: uuid.UUID,
        records: Iterable[Record],
        snapshot_every: int = SNAPSHOT_EVERY,
        snapshot_bytes: int = SNAPSHOT_BYTES,
    ) -> LiveMatch:
        records = iter(records)
        header = next(records, None)  # the rules the match recorded, not today's: it replays as it was decided
        if header is None:
            raise IndexError("a match starts with its created record")
        game = get_game(header["game"], header.get("rules_version"))
        match = LiveMatch(match_id, game, snapshot_every, snapshot_bytes)
        match.apply(header)
        for record in records:
            match.apply(record)
        return match

    @property
    def header(self) -> Mapping[str, Any]:
        """The `created` record (see Header)."""
        if self._header is None:
            raise IndexError("the match has no records")
        return self._header

    # --- the envelope's facts (server/envelope.py), read where the match is -------------------------

    tokens: FromEnvelope[Mapping[str, Token]] = FromEnvelope()
    started_version: FromEnvelope[int] = FromEnvelope()
    started_at: FromEnvelope[int] = FromEnvelope()
    clock_offset: FromEnvelope[float] = FromEnvelope()
    paused_at: FromEnvelope[float | None] = FromEnvelope()
    seeds: FromEnvelope[tuple[tuple[int, int], ...]] = FromEnvelope()
    cancelled_at: FromEnvelope[int] = FromEnvelope()
    finished_last: FromEnvelope[int] = FromEnvelope()

    @property
    def seat_holders(self) -> Mapping[str, str]:
        """Seats held by identities (seat -> its bot): they act with their own keys."""
        return self.header.get(SEAT_HOLDERS) or {}

    @property
    def organised(self) -> bool:
        """Its seats are held by identities: its host credentials (an organiser) watch it as a spectator."""
        return bool(self.records) and bool(self.seat_holders)

    @property
    def seed(self) -> int:
        """The seed the next decision draws from."""
        return self.envelope.seed_at(self.version)

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self.header["players"])

    @property
    def game_version(self) -> int:
        """The number of game events in force: the position the next decision's dice are drawn at."""
        return self.moves[-1]

    @property
    def state(self) -> Any:
        return self._state

    @property
    def last_hash(self) -> str:
        if self.records and self._last_hash is None:
            raise KeyError("hash")
        return self._last_hash or ""

    def clock_at(self, server_now: float) -> float:
        """The match clock: frozen while paused; otherwise the server clock less the offset."""
        return self.paused_at if self.paused_at is not None else server_now - self.clock_offset

    def paused_after(self, version: int) -> bool:
        """Whether the match was paused (by the host, or by a rollback until the host resumes) after `version`."""
        if not 0 <= version <= self.version:
            raise IndexError(f"version {version} is outside 0..{self.version}")
        return bool(self._pauses[version])

    def cancelled(self, version: int | None = None) -> bool:
        """Whether the host had cancelled the match by `version` (default: now)."""
        return bool(self.cancelled_at) and (version is None or version >= self.cancelled_at)

    def status(self, version: int | None = None) -> Status:
        return self.facts.status(version)

    def view_at(self, version: int, viewer: Viewer) -> dict[str, Any]:
        """The game's view of `version` for `viewer` (kept: shared by those who ask; never change it)."""
        return self.facts.view(version, viewer)

    # --- a match waits for its players (created records since issue 24 carry `waits`) ---------------

    def waiting_at(self, version: int) -> bool:
        """Whether the match had not started at `version`: it waits for its players and no start record came yet."""
        if not self.version or not self.header.get("waits"):
            return False
        return self.started_at == 0 or version < self.started_at

    @property
    def waiting(self) -> bool:
        return self.waiting_at(self.version)

    # --- states at earlier versions ---------------------------------------------------------------

    def state_at(self, version: int) -> Any:
        """The state after `version` (0: before the first record), folded from the nearest kept state."""
        back = self.version - version
        if 0 <= back < len(self._tail):
            return self._tail[-1 - back]
        if not 0 <= version < self.version:
            raise IndexError(f"version {version} is outside 0..{self.version}")
        recent = self._recent.get(version)
        if recent is not None:
            self._recent.move_to_end(version)
            return recent
        index = bisect_right(self._snapshot_versions, version) - 1
        start, state = self._snapshot_versions[index], self._snapshots[index]
        for kept, kept_state in self._recent.items():  # a state kept since, nearer than the snapshot
            if start < kept < version:
                start, state = kept, kept_state
        for record in self.records[start:version]:
            state = self._step(state, record)
        self._remember(version, state)
        return state

    def walk(self, first: int, last: int) -> Iterator[tuple[int, Record, Any]]:
        """(version, record, the state before it) from `first` to `last`: one fold from the nearest kept state."""
        first = max(first, 1)
        last = min(last, self.version)
        if first > last:
            return
        state = self.state_at(first - 1)
        for version in range(first, last + 1):
            record = self.records[version - 1]  # one at a time: a long range is never decoded at once
            yield version, record, state
            if version < last:
                state = self._step(state, record)
        self._remember(last - 1, state)  # the next page starts one step from here

    def kept_versions(self) -> list[int]:
        """The versions whose states are kept (0 first): StateAt folds from the nearest one at or before it."""
        return list(self._snapshot_versions)

    def settle(self) -> None:
        """Idle: drop what only play reads again, derived and computed again when asked (states, decoded records,
        facts). A full collection walks every cached match, the loop stopped: this is a third to two thirds."""
        self._recent.clear()
        self._tail = deque([self._state], maxlen=TAIL_STATES)
        self.records.settle()
        self.facts.clear()

    def _step(self, state: Any, record: Record) -> Any:
        """The state after `record`, as `apply` computes it."""
        kind = record["kind"]
        if kind == "game":
            return self.game.evolve(state, record["event"])
        if kind == "created":
            return self.game.initial_state(record["config"], int(record["seed"]))
        if kind == "rollback":
            return self.state_at(int(record["to"]))
        return state

    def _remember(self, version: int, state: Any) -> None:
        self._recent[version] = state
        self._recent.move_to_end(version)
        while len(self._recent) > RECENT_STATES:
            self._recent.popitem(last=False)

    def _keep_tail(self, version: int, record: Record, state: Any) -> None:
        if starts_batch(record):
            self._batch_from = version - 1
        self._tail.append(state)
        while len(self._tail) > 1 and version - len(self._tail) + 1 < self._batch_from:
            self._tail.popleft()

    # --- memory ---------------------------------------------------------------------------------

    def approx_bytes(self) -> int:
        """An estimate of the memory this match holds (kept records, per-version entries, kept states,
        requests): a cache's size function. Kept up to date as records are applied, so cheap to call."""
        kept = len(self._snapshots) + len(self._recent) + len(self._tail)
        states = kept * self._state_bytes + self._config_bytes
        records = self.records.encoded_bytes + len(self.records) * RECORD_OVERHEAD
        return records + states + len(self.requests) * REQUEST_BYTES + self.submissions.bytes

    def _measure_state(self) -> None:
        """Re-measure one state's size (states grow): at the 1st, 2nd, 4th, 8th... kept state, then every
        64th (a measure walks the whole state: a few ms for a late mining state)."""
        count = len(self._snapshots) - 1
        if count & (count - 1) == 0 or count % 64 == 0:
            self._state_bytes = deep_size(self._state, getattr(self._state, "config", None))

    # --- applying a record ----------------------------------------------------------------------

    def apply(self, record: Record, row: bytes | None = None) -> None:  # row: encode(record), if the caller has it
        row = encode(record) if row is None else row  # first: a record that cannot be kept changes nothing
        version = self.version + 1  # the version this record becomes
        folded = envelope.evolve(self.envelope, record, version)  # an unknown kind changes nothing either
        state = self._step(self._state, record)
        self.envelope = folded
        self._index(version, record, state)
        self.records.append_encoded(row)
        self.version = version
        self._last_hash = str(record["hash"]) if "hash" in record else None
        self.batches.append(record)
        self.submissions.applied(version, record)
        self._state = state
        self._keep_tail(version, record, state)
        self._pauses.append(self.paused_at is not None)
        if record["kind"] in ("game", "rollback"):
            self._follow_status(version, record, self.facts.applied(version, self.game.status(state)))
        self._keep_snapshot(version, len(row), state)

    def _index(self, version: int, record: Record, state: Any) -> None:
        """The per-version facts of a record: its request id, the header, the game moves in force."""
        request = record.get("request")
        if request:
            self.requests[(str(request["caller"]), str(request["id"]))] = version
        kind = record["kind"]
        if version == 1:
            self._header = Header(record, self.records)
        if kind == "created":
            config = getattr(state, "config", None)
            self._config_bytes = deep_size(config) if config is not None else 0
            self._state_bytes = deep_size(state, config)  # until the first snapshot measures a grown one
        if kind == "game":
            self.moves.append(self.moves[-1] + 1)
        elif kind == "rollback":
            self.moves.append(self.moves[int(record["to"])])
        else:
            self.moves.append(self.moves[-1])

    def _keep_snapshot(self, version: int, row_bytes: int, state: Any) -> None:
        self._unsnapped_bytes += row_bytes
        if version - self._snapshot_versions[-1] >= self.snapshot_every or self._unsnapped_bytes >= self.snapshot_bytes:
            self._snapshots.append(state)
            self._snapshot_versions.append(version)
            self._unsnapped_bytes = 0
            self._measure_state()

    def _follow_status(self, version: int, record: Record, status: Status) -> None:
        """After a game record or rollback: when the match was last finished, and each seat's submissions
        in the phase now open."""
        if status.finished:
            self.envelope = self.envelope.finished(version)
        phase = (status.phase, status.deadline)
        if phase != self._phase:  # a new phase (a submission that closed the last one counts in neither)
            self._phase = phase
            self.phase_submissions = Counter()
            return
        why = record.get("cause") or {}
        actor = why.get("actor")
        if "command" in why and actor in self.header["players"]:  # a seat's own submission (not a deadline)
            self.phase_submissions[str(actor)] += 1
