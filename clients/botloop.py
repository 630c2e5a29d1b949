"""A bot's whole life in the arena: follow its notices (BotEvents), play every match it is seated in,
answer its challenges. Ships in the client wheel: the standard library, grpc, the generated stubs and
clients.client only.

    from clients.botloop import run_bot
    run_bot(lambda game, view, seat: "...", server="127.0.0.1:50051", bot_key="msbk_...")

`decide(game, view, seat)` returns the text to submit for the seat now (None: nothing now); it is asked
whenever the seat owes a submission (docs/BOTS.md, "The arena"), in the match's own worker thread, where
current_match() names the match.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import grpc

from clients.client import MatchClient, Subscription, messages, resume_trailer
from matchserver.v1 import arena_pb2 as arena_pb
from matchserver.v1 import matchserver_pb2 as pb

Decide = Callable[[str, dict[str, Any], str], str | None]
Notice = arena_pb.BotEventsResponse
Log = Callable[[str], None]

MAX_PAUSE = 5.0  # seconds between reconnections, at most, while the server is away
CLOSE_WAIT = 5.0  # seconds a Ctrl-C'd bot waits for its channel to close
REFUSED_KEY = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)
# Refusals that pass: the server away, out of streams for now, or a call that lost a race or ran out of time.
PASSING = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.ABORTED,
)


class BotKeyRefused(Exception):
    """The server no longer takes the bot key (rotated or revoked). `position` is the last notice
    received: a run with the new key resumes there (`after=position`)."""

    def __init__(self, position: int, details: str) -> None:
        super().__init__(f"the bot key was refused ({details}); resume with after={position}")
        self.position = position


_playing = threading.local()  # the match a worker thread plays, for current_match()


def current_match() -> str:
    """The match decide() is being asked about ("" outside a match's worker): e.g. to seed a random
    generator per match, as clients/examples/arena_bot.py does."""
    match_id: str = getattr(_playing, "match_id", "")
    return match_id


def owes(status: pb.Status, seat: str) -> bool:
    """Whether the seat must submit now: awaited, nothing in yet for this phase, the match not over."""
    return not status.finished and seat in status.awaiting and seat not in status.submitted


def pause_before(failures: int) -> float:
    """Back off while the server is away (a restart): short at first, MAX_PAUSE at most."""
    return 0.0 if failures <= 0 else min(MAX_PAUSE, 0.1 * 2**failures)


def notice_line(event: Notice) -> str:
    """One line per notice, for a person watching the bot: its position, kind and words (which name the
    match, challenge or tournament; the bare id when the server sent no words)."""
    said = event.text or event.match_id or event.challenge_id or event.tournament_id
    return f"#{event.position} {event.kind}: {said}" if said else f"#{event.position} {event.kind}"


@dataclass(frozen=True)
class Seating:
    match_id: str
    seat: str
    game: str


class BotLoop:
    """The bookkeeping of one bot: which matches it plays (each in a worker of `pool`), which are over."""

    def __init__(
        self,
        client: MatchClient,
        bot_key: str,
        decide: Decide,
        pool: Executor,
        accept: Callable[[Notice], bool] | None = None,
        log: Log = print,
    ) -> None:
        self.client = client
        self.bot_key = bot_key
        self.decide = decide
        self.pool = pool
        self.accept = accept or (lambda event: True)
        self.log = log
        self.finished: set[str] = set()  # matches a finished notice was seen for
        self.started: set[str] = set()
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._streams: dict[str, Subscription] = {}

    def handle(self, event: Notice) -> None:
        """Act on one notice: start playing a seat, note a finished match, answer a challenge."""
        self.log(notice_line(event))
        if event.kind == "finished":
            self.finished.add(event.match_id)
        elif event.kind == "seated" and event.match_id not in self.finished | self.started:
            self.started.add(event.match_id)
            seating = Seating(event.match_id, event.seat, event.game)
            self.pool.submit(self._play_logged, seating)
        elif event.kind == "challenged":
            self._answer(event)

    def _answer(self, event: Notice) -> None:
        try:
            accept = bool(self.accept(event))
        except Exception as exc:  # a broken accept() declines: the bot is not bound to terms it did not read
            self.log(f"challenge {event.challenge_id}: accept() failed ({exc!r}); declining")
            accept = False
        try:
            self.client.answer_challenge(event.challenge_id, accept, self.bot_key)
        except grpc.RpcError as exc:  # answered already, expired, or replayed from history
            self.log(f"challenge {event.challenge_id}: answer not taken: {exc.code().name} {exc.details()}")
            return
        self.log(f"challenge {event.challenge_id}: {'accepted' if accept else 'declined'}")

    def _play_logged(self, seating: Seating) -> None:
        """Play the seat; a passing refusal (the server away or out of streams, a lost race) is waited out,
        backing off, and play resumes from the state then: a bot that gave up would lose on time."""
        _playing.match_id = seating.match_id
        failures = 0
        try:
            while not self.stopping.is_set():
                try:
                    self.play(seating)
                    return
                except grpc.RpcError as exc:
                    if exc.code() not in PASSING or self.stopping.is_set():
                        raise
                    failures += 1
                    self.log(f"match {seating.match_id}: {_said(exc)}; trying again")
                    self.stopping.wait(pause_before(failures))
        except Exception as exc:  # one match's failure must not end the others, nor the bot
            if not self.stopping.is_set():
                self.log(f"match {seating.match_id}: stopped playing: {_said(exc)}")
        finally:
            _playing.match_id = ""

    def play(self, seating: Seating) -> None:
        """Play the seat until the match is over: act on the state now, then on each update's view."""
        if seating.match_id in self.finished or self.stopping.is_set():
            return  # it finished while this waited for a worker (history replayed from the start)
        match_id, seat = seating.match_id, seating.seat
        state = self.client.state(match_id, self.bot_key)
        if state.status.finished:
            return
        self.log(f"match {match_id}: playing {seating.game} as {seat}")
        updates = self.client.subscribe(match_id, self.bot_key, from_version=state.version)
        with self._lock:
            self._streams[match_id] = updates
        if self.stopping.is_set():
            updates.cancel()
        try:
            accepted, status = self._act(seating, state.view, state.status, 0)
            while not status.finished:  # our own submission may have ended it: the stream then holds only older news
                update = next(updates, None)
                if update is None:
                    break  # cancelled
                if not update.view_json:
                    continue  # mid-batch
                if update.event.version > accepted:
                    accepted, status = self._act(seating, _json(update.view_json), update.status, accepted)
                elif update.status.finished:  # at our own last submission (or before it): nothing to act on
                    status = update.status
        finally:
            updates.cancel()
            with self._lock:
                self._streams.pop(match_id, None)
        self.log(f"match {match_id}: over")

    def _act(self, seating: Seating, view: dict[str, Any], status: pb.Status, accepted: int) -> tuple[int, pb.Status]:
        """Submit while the seat owes a submission. Returns the version of the last accepted submission
        (`accepted` if none) and the latest status known (a reply's is newer than the update's)."""
        while owes(status, seating.seat) and not self.stopping.is_set():
            try:
                text = self.decide(seating.game, view, seating.seat)
            except Exception as exc:  # a bot's bug: wait for the next update rather than end the match
                self.log(f"match {seating.match_id}: decide() failed: {exc!r}")
                break
            if text is None:
                break
            try:
                reply = self.client.submit(seating.match_id, self.bot_key, text=text)  # with a request id
            except grpc.RpcError as exc:
                if exc.code() in REFUSED_KEY:
                    raise
                self.log(f"match {seating.match_id}: {text!r} refused: {exc.code().name} {exc.details()}")
                break  # e.g. the phase ended meanwhile: the next update says what now
            accepted, status = reply.version, reply.status
            if owes(status, seating.seat):  # our submission opened a phase that waits on us: no update will come
                state = self.client.state(seating.match_id, self.bot_key)
                view, status = state.view, state.status
        return accepted, status

    def stop(self) -> None:
        """End every match's stream; the workers then return."""
        self.stopping.set()
        with self._lock:
            streams = list(self._streams.values())
        for updates in streams:
            updates.cancel()


def follow(
    client: MatchClient,
    bot_key: str,
    handle: Callable[[Notice], None],
    after: int = 0,
    until: Callable[[Notice], bool] | None = None,
    log: Log = print,
    on_position: Callable[[int], None] = lambda position: None,
) -> int:
    """Read the bot's notices after `after` for good, resuming after the last one received whenever the
    stream ends (UNAVAILABLE, the resume trailer, a clean end). Returns the position of the notice
    `until` was true for; raises BotKeyRefused when the key stops working."""
    position: int = after
    failures = 0
    while True:
        call = client.bot_events(bot_key, position)
        ended: Any = call
        try:
            for event in messages(call):  # a Ctrl-C comes out as KeyboardInterrupt, which callers handle
                if event.position <= position:
                    continue  # sent again after a reconnection: handled already
                position = event.position
                on_position(position)
                failures = 0
                handle(event)
                if until is not None and until(event):
                    call.cancel()
                    return position
        except grpc.RpcError as exc:
            if exc.code() in REFUSED_KEY:
                raise BotKeyRefused(position, f"{exc.code().name}: {exc.details()}") from None
            if exc.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED):
                raise
            ended = exc
        # An end with the trailer came from a live server (shutdown, rotation): not a failure to back off from.
        # Either way the stream resumes after the last notice received, never the trailer's position: a
        # notice sent but lost on the way is asked for again, and one received twice is dropped above.
        trailer = resume_trailer(ended)
        failures = 0 if trailer is not None else failures + 1
        sent = "" if trailer is None else f"; the server had sent up to #{trailer}"
        log(f"-- the notices ended ({_why(ended)}{sent}); resuming after #{position}")
        time.sleep(pause_before(failures))
        if not wait_for_server(client):
            failures += 1  # still away: try again, backing off further


def wait_for_server(client: MatchClient, timeout: float = 60.0) -> bool:
    """Whether the connection is ready again within `timeout` seconds."""
    try:
        grpc.channel_ready_future(client.channel).result(timeout=timeout)
    except grpc.FutureTimeoutError:
        return False
    return True


def run_bot(
    decide: Decide,
    *,
    server: str,
    bot_key: str,
    tls: bool = False,
    ca: str | bytes | None = None,
    after: int = 0,
    accept: Callable[[Notice], bool] | None = None,
    until: Callable[[Notice], bool] | None = None,
    log: Log = print,
    max_workers: int = 8,
) -> int:
    """Run a bot until `until(notice)` is true (e.g. its tournament's `tournament_finished`) or Ctrl-C;
    returns the last notice's position (give it as `after` to carry on later). Challenges are answered
    with `accept(notice)` (default: accept every one). A server that is away is waited for, for good,
    backing off; raises BotKeyRefused when the key stops working (rotated or revoked)."""
    client = MatchClient(server, tls=tls, ca=ca)
    pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="match")
    loop = BotLoop(client, bot_key, decide, pool, accept=accept, log=log)
    last = after

    def seen(position: int) -> None:
        nonlocal last
        last = position

    interrupted = False
    try:
        return follow(client, bot_key, loop.handle, after=after, until=until, log=log, on_position=seen)
    except KeyboardInterrupt:
        interrupted = True
        return last
    finally:
        loop.stop()
        pool.shutdown(wait=not interrupted, cancel_futures=True)
        if interrupted:
            # A Ctrl-C that landed inside a gRPC call can leave close() waiting for good: close aside,
            # and give it a few seconds, so the bot always stops when asked.
            closing = threading.Thread(target=client.close, daemon=True)
            closing.start()
            closing.join(CLOSE_WAIT)
        else:
            client.close()


def _json(text: str) -> dict[str, Any]:
    value = json.loads(text or "{}")
    return value if isinstance(value, dict) else {}


def _why(ended: Any) -> str:
    if isinstance(ended, grpc.RpcError):
        why: str = ended.details() or ended.code().name
        return why
    return "the server closed the stream"


def _said(exc: Exception) -> str:
    if isinstance(exc, grpc.RpcError):
        return f"{exc.code().name} {exc.details()}"
    return repr(exc)
