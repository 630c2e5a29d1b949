"""What a seat's page and a host's console show: whole values built from one match, each for its caller.

A seat sees its own view (its private part included, no one else's), what the phase asks of it, its own
clock, who is still awaited and its own submissions with their receipts; what a text would do is checked
by the game's own parser and rules without writing anything. A host sees the seats and their invitations.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from engine.errors import GameError
from server.application.callers import Callers
from server.application.queries import MatchQueries
from server.application.values import StateView, receipt_at
from server.clock import Clock
from server.decisions import decide_submission
from server.disputes.log import Dispute, disputes_of
from server.disputes.replay import is_resolution
from server.errors import NotFound, PermissionDenied, engine_step
from server.live import LiveMatch
from server.records import Receipt, token_hash
from server.repository import LiveMatches
from server.seats import invitation_matches, seat_claimed, valid_invitation
from server.submissions import head_text
from server.turns import turn_view

END_EARLY = "end early"


@dataclass(frozen=True)
class Submitted:
    """One of the seat's own submissions: its words, and the receipt its Submit answered."""

    version: int
    text: str
    receipt: Receipt
    retracted: bool  # a rollback took it back: the seat may have to submit again


@dataclass(frozen=True)
class SeatView:
    state: StateView
    seat: str
    turn_version: int | None  # the seat's open turn (None: it may not act now)
    forms: tuple[str, ...]  # the sentences the phase accepts from it now
    example: str | None
    deadline_in: float | None  # match-clock seconds until the seat's own deadline
    reserve: float | None  # the reserve seconds it still holds (Cookoff)
    awaiting: tuple[str, ...]  # seats the phase still waits for
    unseated: tuple[str, ...]  # seats nobody has claimed yet (the match waits for them)
    waiting: bool  # the match has not started: its clocks do not run yet
    cancelled: bool
    submissions: tuple[Submitted, ...]
    resolutions: tuple[tuple[int, str], ...] = ()  # (version, the phase it ended) the seat may dispute, latest first
    disputes: tuple[dict[str, Any], ...] = ()  # the match's disputes, as every viewer sees them
    asked_again: tuple[str, ...] = ()  # a correction retracted this seat's inputs: what it must do again

    @property
    def ends_early(self) -> bool:
        return any(END_EARLY in form for form in self.forms)


@dataclass(frozen=True)
class Understood:
    """What a text would be as the seat's command now: the game's words for it, or why not."""

    ok: bool
    words: str


@dataclass(frozen=True)
class SeatEntry:
    seat: str
    claimed: bool
    invitation_open: bool  # an invitation could still claim it


@dataclass(frozen=True)
class InvitationView:
    """What an invitation link shows before it is used: the match and the seat it opens."""

    match_id: str
    game: str
    seat: str
    players: tuple[str, ...]
    valid: bool  # false once used, replaced or the seat has acted
    finished: bool


RESOLUTIONS_SHOWN = 10  # the latest resolutions a seat's page offers to dispute
RESOLUTIONS_WALK = 300  # versions looked back for them: a page drawn on every move stays cheap


def recent_resolutions(live: LiveMatch) -> tuple[tuple[int, str], ...]:
    found: list[tuple[int, str]] = []
    version = live.version
    while version > max(live.started_version, live.version - RESOLUTIONS_WALK) and len(found) < RESOLUTIONS_SHOWN:
        if is_resolution(live, version):
            found.append((version, live.status(live.batches.start_at(version) - 1).phase))
        version -= 1
    return tuple(found)


def seat_submissions(live: LiveMatch, seat: str) -> list[Submitted]:
    """The seat's own submissions (a timeout's or the host's records name no command of the seat's), from
    the match's index: no record is decoded but the last batch's end."""
    retracted = live.batches.retracted()
    out = []
    last: Receipt | None = None
    for version, text, end, chain_head, key_id in live.submissions.entries(seat):
        if end is None:  # the last batch: it ends at the log's end
            last = last or receipt_at(live, live.version)
            receipt = last
        else:
            receipt = Receipt(end, head_text(chain_head), key_id)
        out.append(Submitted(version, text, receipt, version in retracted))
    return out


def asked_again(disputes: list[Dispute], seat: str, submissions: list[Submitted]) -> tuple[str, ...]:
    """The seat's inputs the corrections retracted and did not re-apply, while it has submitted none since."""
    said: list[str] = []
    last = max((s.version for s in submissions), default=0)
    for dispute in disputes:
        for asked in dispute.decision.get("asked_again", []):
            if asked.get("seat") == seat and last < dispute.decided_version:
                said.append(
                    f"the host corrected dispute {dispute.id}: your input at version {asked['version']} no longer "
                    "applies; submit again"
                )
    return tuple(said)


class SeatViews:
    def __init__(self, matches: LiveMatches, callers: Callers, queries: MatchQueries, clock: Clock) -> None:
        self.matches = matches
        self.callers = callers
        self.queries = queries
        self.clock = clock

    async def _seat(self, match_id: uuid.UUID, token: str | None) -> tuple[LiveMatch, str]:
        live = await self.matches.load(match_id)
        viewer = await self.callers.viewer_for(live, token)
        if viewer.kind != "player" or viewer.player is None:
            raise PermissionDenied("a seat's page needs that seat's token")
        return live, viewer.player

    async def seat(self, match_id: uuid.UUID, token: str | None, resolutions: bool = False) -> SeatView:
        """`resolutions`: also the latest ones the seat may dispute (its page's form; not its live updates)."""
        live, seat = await self._seat(match_id, token)
        state = await self.queries.state(match_id, token, None)
        now = self.clock.now()
        turn = turn_view(live, seat, now)
        status = live.status()
        deadline, reserve = engine_step(lambda: live.game.clock_of(live.state, seat))
        clock = live.clock_at(now)
        running = not status.finished and not live.waiting and live.paused_at is None
        submissions, disputes = seat_submissions(live, seat), disputes_of(live)
        return SeatView(
            state=state,
            seat=seat,
            turn_version=turn.version if turn is not None else None,
            forms=turn.forms if turn is not None else (),
            example=turn.example if turn is not None else None,
            deadline_in=max(0.0, deadline - clock) if running and deadline is not None else None,
            reserve=reserve,
            awaiting=tuple(p for p in live.players if p in status.awaiting and p not in status.submitted),
            unseated=tuple(p for p in live.players if not seat_claimed(live.tokens, p)),
            waiting=live.waiting,
            cancelled=bool(live.cancelled_at),
            submissions=tuple(submissions),
            resolutions=recent_resolutions(live) if resolutions else (),
            disputes=tuple(d.as_json() for d in disputes),
            asked_again=asked_again(disputes, seat, submissions),
        )

    async def understand(self, match_id: uuid.UUID, token: str | None, text: str) -> Understood:
        """The seat's text as its command now, decided by the game on the current state and thrown away:
        nothing is written, and the words are the same the Submit would answer or refuse with."""
        live, seat = await self._seat(match_id, token)
        if live.waiting:
            return Understood(False, f"the match has not started: it is {live.status().phase}")
        game, state = live.game, live.state
        try:
            typed = engine_step(lambda: game.parse(state, seat, text))
            decide_submission(live, seat, typed, live.clock_at(self.clock.now()))
        except GameError as exc:  # the game's refusal (a parse or rules error): its words are the answer
            return Understood(False, str(exc))
        return Understood(True, engine_step(lambda: game.format(typed)))

    async def seats(self, match_id: uuid.UUID, token: str | None) -> tuple[SeatEntry, ...]:
        """Host or admin: each seat, whether it is claimed and whether an invitation could still claim it."""
        live = await self.matches.load(match_id)
        await self.callers.require_host(live, token)
        return tuple(
            SeatEntry(p, seat_claimed(live.tokens, p), valid_invitation(live.records, p) is not None)
            for p in live.players
        )

    async def invitation(self, match_id: uuid.UUID, seat: str, code: str) -> InvitationView:
        """The match and seat an invitation link names, and whether it would still claim the seat. Nothing
        is spent. A private match is shown only to a link that is valid: to anyone else it does not exist."""
        live = await self.matches.load(match_id)
        valid = seat in live.players and invitation_matches(valid_invitation(live.records, seat), token_hash(code))
        if not valid and (live.header.get("private") or seat not in live.players):
            raise NotFound("no such invitation")
        return InvitationView(str(live.id), live.game.name, seat, live.players, valid, live.status().finished)
