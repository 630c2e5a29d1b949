"""The decider contract every game implements, and the small value types it speaks in.

A game is a decider: `initial_state(config, seed)`, then `start` (the opening events, e.g. the first
phase with its deadline), `decide(state, player, command, ctx) -> events` (raises a RuleViolation),
`timeout(state, ctx) -> events` when the phase deadline passes, `evolve(state, event) -> state`, and
`view`/`redact` so that nobody sees what the rules hide from them; `forms` and `example` tell a seat what
it may send now.

Events are JSON-plain dicts with a "type" key (string keys, lists, ints, strs, bools, None): they are
stored as they are, so what comes back from the store equals what went in. Resolution events carry a
"trace": a list of plain-word lines naming the rule or ruling each step applied.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

Json = Any  # JSON-plain value: dict[str, Json] | list[Json] | str | int | float | bool | None
Event = dict[str, Json]


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking: the host sees everything, a player their own secrets, a spectator the public."""

    kind: str  # "host" | "player" | "spectator"
    player: str | None = None

    @staticmethod
    def host() -> Viewer:
        return Viewer("host")

    @staticmethod
    def spectator() -> Viewer:
        return Viewer("spectator")

    @staticmethod
    def of(player: str) -> Viewer:
        return Viewer("player", player)

    @property
    def is_host(self) -> bool:
        return self.kind == "host"

    def is_player(self, name: str) -> bool:
        return self.kind == "player" and self.player == name


@dataclass(frozen=True, slots=True)
class Context:
    """What a decision may use besides state and command: the time (recorded) and seeded dice."""

    now: float  # seconds on the match clock, given by the caller; write it into events that need it
    rng: random.Random  # derived from (seed, version); write every value drawn into the events
    version: int = 0  # number of events in the match before this decision


@dataclass(frozen=True, slots=True)
class Status:
    """Where the match stands: the phase, who may still act, and when the phase ends."""

    phase: str  # plain words, e.g. "round 3: auction 3 and placement 2"
    awaiting: frozenset[str]  # players who may submit now
    submitted: frozenset[str] = frozenset()  # players with a submission in this phase
    deadline: float | None = None  # match-clock seconds at which `timeout` applies
    finished: bool = False
    binding: bool = False  # True when the first submission is final (Cookoff)


S = TypeVar("S")  # a game's state: a frozen value folded from its events
C = TypeVar("C")  # a game's command: a frozen dataclass (or a union of them) of its `command_types`


class Game(Protocol[S, C]):
    """One module-level object per game implements this (engine/<game>/game.py, exported as GAME).

    Besides the rules, a game carries its own facts, so that nothing else keeps a list of games
    (engine/registry.py is the one list; engine/README.md says how to add a game).
    """

    name: str  # as in the API and CLI, e.g. "last-gathering"
    rules_version: str  # bump when a rules fix may change outcomes (recorded in every match)
    command_types: tuple[type, ...]  # frozen dataclasses; names match the protobuf messages
    default_seats: int  # the players the rule text's game is for (a tournament's default table size)
    allowed_seats: range  # the numbers of players the rules allow (`initial_state` refuses others)
    wire_field: str  # GameCommand's oneof field that carries this game's typed command (protos/)
    arena_formats: tuple[str, ...]  # the tournament formats that suit it, the default first
    secret_config_keys: tuple[str, ...]  # config keys (e.g. host-set judges) only the host sees until the end
    # The config keys the server bounds (server/limits.py): a number of rounds; the seconds of a phase (a
    # key may name a mapping of phases to seconds); seconds that may be 0 (a reserve clock).
    round_keys: tuple[str, ...]
    phase_seconds_keys: tuple[str, ...]
    reserve_seconds_keys: tuple[str, ...]

    def default_config(self, players: Sequence[str]) -> dict[str, Json]: ...

    def initial_state(self, config: Mapping[str, Json], seed: int) -> S:
        """Validate `config` (raise InvalidConfig) and build the state before any event."""
        ...

    def start(self, state: S, ctx: Context) -> list[Event]:
        """The events that open the match (first phase, its deadline, first reveals)."""
        ...

    def parse(self, state: S, player: str, text: str) -> C:
        """A text submission in the rule text's words -> one command; MalformedCommand quotes the part
        not understood and shows the expected form."""
        ...

    def format(self, command: C) -> str:
        """A command back to text that `parse` accepts (transcripts round-trip through this)."""
        ...

    def forms(self, state: S, player: str) -> tuple[str, ...]:
        """The sentences the current phase takes from `player`, as templates in the rule text's words, the
        way `parse` reads them (`pick N (1 to 3)`, `bid N on frame FRAME`); () when `player` may not act
        now. A bot in any language is shown them with its turn (issue 27), so it needs no grammar of its
        own; they come from the game's text module, which also writes its parse errors."""
        ...

    def example(self, state: S, player: str) -> str | None:
        """One text `player` could send now: canonical (`format(parse(text)) == text`), read by `parse`
        and accepted by `decide` after the generic checks; None when `player` may not act now. The
        deadline's default when that is a command, else the simplest legal one (pass, bid 0, the first
        free spot), with `end early` where the phase takes it: a table of bots that only echo it plays
        every match to its end (issue 27). Computed from the state alone (no dice, no clock) and from
        what `player` may know, so it reveals no other seat's secret."""
        ...

    def decide(self, state: S, player: str, command: C, ctx: Context) -> list[Event]:
        """Events for an accepted command; raise RuleViolation (with the rule) when illegal now.
        When the command completes a phase (everyone submitted), include its resolution."""
        ...

    def timeout(self, state: S, ctx: Context) -> list[Event]:
        """The phase deadline passed (ctx.now is the deadline): apply the defaults and resolve."""
        ...

    def evolve(self, state: S, event: Event) -> S:
        """Apply one event; raise on an event type the game does not know (a store from elsewhere)."""
        ...

    def status(self, state: S) -> Status: ...

    def players(self, state: S) -> tuple[str, ...]: ...

    def view(self, state: S, viewer: Viewer) -> dict[str, Json]:
        """What `viewer` may see now; JSON-plain."""
        ...

    def redact(self, state: S, event: Event, viewer: Viewer) -> Event | None:
        """`event` as `viewer` may see it (state is the state before it), or None to hide it whole."""
        ...

    def explain(self, event: Event) -> list[str]:
        """Plain-word lines that justify a resolution event (usually its "trace"); [] if none."""
        ...

    def results(self, state: S) -> dict[str, Json]:
        """{"results": [{"player", "rank", "score", ...}], ...game extras}; ranks only once finished."""
        ...
