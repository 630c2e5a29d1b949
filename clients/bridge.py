"""`matchctl bridge`: any program as a seat's bot, over the Play stream (docs/BOTS.md, "Any program as a
bot"). One process of the program per seat, for the whole match: for each Turn it reads ONE JSON line on
stdin (turn_line) and answers ONE line of command text on stdout, which is sent as a Move for that turn.

- A refused answer is offered back, the line with `"refused": "CODE: message"`, up to MAX_OFFERS times
  per turn; then the bridge waits for the next Turn. A stale refusal (ABORTED: the turn has passed) is not.
- A turn the program does not answer within its time left (or the cap, --timeout) is left to the deadline:
  the server plays the game's recorded default. A late answer is dropped when it comes.
- The program's stderr is appended to VAR/bot-logs/MATCH/SEAT.log (`matchctl bot log`), with the bridge's
  own notes (starts, exits) as lines beginning `-- bridge:`.
- A program that dies (or closes its stdout) is started again, backing off, and given the open turn again.
- A dropped stream is resumed from the last Update's version (the server sends the open Turn again).

Seat mode (`SeatBridge.run`) ends at the match's end; arena mode (`run_arena`, a BotLoop whose `play`
bridges each seat the bot is given) follows the bot's notices until stopped.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TextIO

import grpc

from clients.botloop import BotLoop, Notice, Seating, follow, pause_before
from clients.client import MatchClient
from clients.play_stream import PlaySession
from matchserver.v1 import matchserver_pb2 as pb

MAX_OFFERS = 3  # a refused answer is offered back to the program this many times per turn
ANSWER_CAP = 60.0  # seconds: the longest wait for one answer by default (--timeout), time left or not
MIN_WAIT = 1.0  # seconds: the shortest wait, even on a turn whose deadline is (nearly) due
EOF_WAIT = 1.0  # seconds a program is given to exit by itself once its stdin is closed, at the end
STOP_WAIT = 5.0  # seconds a program is given to exit once terminated, before it is killed
RESUMABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.DEADLINE_EXCEEDED)
NOTE = "-- bridge: "  # the bridge's own lines in a seat's log
READER = "play-stream-reader"  # the thread that reads a seat's Play stream
READER_WAIT = 30.0  # seconds: a bound on a hang; a closed stream's reader leaves at once

Say = Callable[[str], None]


def printer(stream: TextIO) -> Say:
    """A Say for several threads: one whole line at a time, flushed (a person or a log follows it)."""
    lock = threading.Lock()

    def say(text: str) -> None:
        with lock:
            print(text, file=stream, flush=True)

    return say


def logs_folder(var: str | os.PathLike[str]) -> Path:
    """Where the bridge keeps its programs' stderr: one folder per match, one file per seat."""
    return Path(var) / "bot-logs"


def log_path(var: str | os.PathLike[str], match_id: str, seat: str) -> Path:
    return logs_folder(var) / _safe(match_id) / f"{_safe(seat)}.log"


def _safe(name: str) -> str:
    """A file name from a match id or a seat name: never a path of its own."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "_", name).lstrip(".")
    return cleaned or "_"


def deadline_of(turn: pb.Turn) -> float | None:
    """The seat's own deadline (with a reserve clock, later than the phase's), else the phase's, else None."""
    if turn.HasField("deadline"):
        return turn.deadline
    return turn.status.deadline if turn.status.HasField("deadline") else None


def time_left(turn: pb.Turn) -> float | None:
    """Seconds until the seat's deadline (by the match clock the Turn carries), None without one."""
    deadline = deadline_of(turn)
    return None if deadline is None else deadline - turn.clock


def turn_line(turn: pb.Turn, match_id: str, refused: str | None = None) -> str:
    """The JSON line the program reads for a turn. `example` is the last field, so that a line tool can
    pick it out with a greedy match; `refused` is there only when the last answer for this turn was."""
    line: dict[str, Any] = {
        "game": turn.game,
        "seat": turn.seat,
        "match_id": match_id,
        "version": turn.version,
        "match_version": turn.match_version,
        "phase": turn.status.phase,
        "awaiting": list(turn.status.awaiting),
        "deadline": deadline_of(turn),
        "time_left": time_left(turn),
        "reserve": turn.reserve if turn.HasField("reserve") else None,
    }
    if refused is not None:
        line["refused"] = refused
    line["view"] = json.loads(turn.view_json or "{}")
    line["forms"] = list(turn.forms)
    line["example"] = turn.example or None
    return json.dumps(line, ensure_ascii=False)


class Program:
    """One seat's program: started when first asked, started again (backing off) when it has died, its
    stderr appended to `log`. `ask` gives it one line and waits for its one line back."""

    def __init__(self, argv: Sequence[str], log: Path) -> None:
        self.argv = list(argv)
        self.log = log
        self.process: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()  # its stdout; None: closed
        self.late = 0  # answers owed to lines given up on: dropped when they come
        self.deaths = 0  # since its last answer, for backing off
        self.starts = 0
        self.stopping = threading.Event()
        self.closed = False
        self._closing = threading.Lock()

    def note(self, text: str) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("a", encoding="utf-8") as log:
            log.write(f"{NOTE}{text}\n")

    def _start(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("a", encoding="utf-8") as err:
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                encoding="utf-8",
                bufsize=1,
                start_new_session=True,  # its own process group: stopped with everything it started
            )
        self.starts += 1
        self.process, self.lines, self.late = process, queue.Queue(), 0
        threading.Thread(target=_read_lines, args=(process, self.lines), daemon=True).start()
        self.note(f"started {' '.join(self.argv)} (pid {process.pid}, start {self.starts})")

    def _restart(self) -> None:
        """Start the program, or start it again after it died: backing off, and saying so in the log."""
        if self.process is not None:
            self._end()
            self.deaths += 1
            pause = pause_before(self.deaths)
            self.note(f"the program exited ({self.process.returncode}); starting it again in {pause:.1f} s")
            if self.stopping.wait(pause):
                return
        self._start()

    def ask(self, line: str, timeout: float) -> str | None:
        """The program's answer to `line` within `timeout` seconds (None: none in time, or stopping). A
        program that dies meanwhile is started again and given the same line."""
        give_up = time.monotonic() + timeout
        while not self.stopping.is_set() and time.monotonic() < give_up:
            if self.process is None or self.process.poll() is not None:
                self._restart()
                continue
            try:
                assert self.process.stdin is not None
                self.process.stdin.write(line + "\n")
                self.process.stdin.flush()
            except (OSError, ValueError):  # it died before reading (or is being stopped): start it again
                self._end()
                continue
            alive, answer = self._answer(give_up)
            if alive:
                return answer
            self._end()  # (a program that closed its stdout is dead to us)
        return None

    def _answer(self, give_up: float) -> tuple[bool, str | None]:
        """(whether the program is still there, its answer or None if none came in time)."""
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, give_up - time.monotonic()))
            except queue.Empty:
                self.late += 1  # its answer, should it come, is not for the next line
                return True, None
            if line is None:
                return False, None
            if self.late:
                self.late -= 1
                continue
            self.deaths = 0
            return True, line

    def _end(self) -> None:
        """Stop the program's whole process group (a shell's children too, even once the shell has exited):
        SIGTERM, up to STOP_WAIT seconds for it to exit, then SIGKILL for whatever is left. Its stdout is
        left to its reader, which sees the end of it once every writer has gone."""
        process = self.process
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(STOP_WAIT)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()

    def close(self) -> None:
        """Stop the program (and whatever it started) for good (from any thread: an `ask` returns None)."""
        with self._closing:
            if self.closed:
                return
            self.closed = True
        self.stopping.set()
        process = self.process
        if process is None:
            return
        if process.stdin is not None:  # the end of its input first: a chance to exit by itself
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                process.stdin.close()
                process.wait(EOF_WAIT)
        self._end()
        self.note(f"stopped (exit {process.returncode})")


_CLOSED = object()


def _read_lines(process: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
    assert process.stdout is not None
    try:
        for text in process.stdout:
            lines.put(text.rstrip("\r\n"))
    except (OSError, ValueError):  # closed under us: the program is being stopped
        pass
    lines.put(None)


class SeatBridge:
    """One seat played over Play by one Program, until the match ends (`run` returns its Ended)."""

    def __init__(
        self,
        client: MatchClient,
        match_id: str,
        token: str,
        program: Program,
        seat: str = "",
        say: Say = print,
        verbose: bool = False,
        cap: float = ANSWER_CAP,
    ) -> None:
        self.client, self.match_id, self.token, self.program = client, match_id, token, program
        self.seat, self.say, self.verbose, self.cap = seat, say, verbose, cap
        self.stopping = threading.Event()
        self.session: PlaySession | None = None
        self.newest = 0  # the version of the newest Turn the stream has sent
        self.pending: dict[str, tuple[pb.Turn, str]] = {}  # request id: the turn and the answer sent
        self.offers = 0  # refused answers offered back on the current turn

    def run(self) -> pb.Ended | None:
        """Play to the match's end, resuming a dropped stream from the last Update's version; None when
        stopped. Raises grpc.RpcError for a refusal that does not pass (e.g. UNAUTHENTICATED)."""
        version, failures = 0, 0
        while not self.stopping.is_set():
            session = PlaySession(
                self.client, self.match_id, self.token, player=self.seat, from_version=version, bundle=True
            )
            self.session = session
            if self.stopping.is_set():
                session.close()
            messages: queue.Queue[Any] = queue.Queue()  # from the stream's reader: messages, an error, _CLOSED
            reader = threading.Thread(target=self._read, args=(session, messages), daemon=True, name=READER)
            reader.start()
            try:
                ended = self._play(session, messages)
            except grpc.RpcError as exc:
                if self.stopping.is_set() or exc.code() == grpc.StatusCode.CANCELLED:
                    return None
                if exc.code() not in RESUMABLE:
                    raise
                failures += 1
                self.say(f"{self._who()}: the stream ended ({exc.code().name}); resuming from version {version}")
                self.stopping.wait(pause_before(failures))
                continue
            finally:
                session.close()
                # The reader leaves the call before anything else. Still inside it as the process exited, it
                # woke holding the call's lock and was frozen there, and gRPC's finalizer of the call then
                # waited for that lock for good: a bridge said the match was over and never exited.
                reader.join(READER_WAIT)
                version = max(version, session.version)
            if ended is not None:
                return ended
            failures += 1  # closed without Ended: resume
            self.stopping.wait(pause_before(failures))
        return None

    def _read(self, session: PlaySession, messages: queue.Queue[Any]) -> None:
        """The stream's messages, read as they come (the program's thinking never holds the stream up)."""
        try:
            for message in session:
                if message.WhichOneof("kind") == "turn":
                    self.newest = message.turn.version
                messages.put(message)
        except grpc.RpcError as exc:
            messages.put(exc)
            return
        messages.put(_CLOSED)

    def _play(self, session: PlaySession, messages: queue.Queue[Any]) -> pb.Ended | None:
        while True:
            message = messages.get()
            if isinstance(message, grpc.RpcError):
                raise message
            if message is _CLOSED:
                return session.ended
            kind = message.WhichOneof("kind")
            if kind == "turn":
                self.offers = 0
                self._decide(session, message.turn, None)
            elif kind == "result":
                self._result(session, message.result)
            elif kind == "ended":
                ended: pb.Ended = message.ended
                self.say(f"{self._who()}: the match is over (version {ended.version})")
                return ended

    def _decide(self, session: PlaySession, turn: pb.Turn, refused: str | None) -> None:
        """Ask the program about the turn, and send its answer as a Move for it."""
        self.seat = self.seat or turn.seat
        left = time_left(turn)
        wait = self.cap if left is None else max(MIN_WAIT, min(self.cap, left))
        answer = self.program.ask(turn_line(turn, self.match_id, refused), wait)
        if self.stopping.is_set():
            return
        if answer is None:
            self.say(
                f"{self._who()}: no answer to the turn at version {turn.version} within {wait:g} s; "
                "the deadline will play the game's default"
            )
            return
        if self.newest != turn.version:
            self.say(f"{self._who()}: {answer!r} came after the turn at version {turn.version} had passed; dropped")
            return
        request_id = session.move(turn.version, text=answer)
        self.pending[request_id] = (turn, answer)
        if self.verbose:
            self.say(f"{self._who()} @{turn.version} {turn.status.phase}: {answer}")

    def _result(self, session: PlaySession, result: pb.MoveResult) -> None:
        turn, answer = self.pending.pop(result.request_id, (None, ""))
        if turn is None:
            return
        if result.accepted:
            if self.verbose:
                self.say(f"{self._who()} @{turn.version}: accepted as {result.text!r} (version {result.version})")
            return
        refused = f"{result.code}: {result.message}"
        again = result.code != "ABORTED" and self.newest == turn.version and self.offers < MAX_OFFERS
        self.say(f"{self._who()} @{turn.version}: {answer!r} refused, {refused}" + ("" if again else "; waiting"))
        if again:
            self.offers += 1
            self._decide(session, turn, refused)

    def _who(self) -> str:
        return f"{self.seat or 'seat'} in {self.match_id[:8]}"

    def stop(self) -> None:
        """End the stream and the program (from any thread): `run` returns."""
        self.stopping.set()
        self.program.close()
        if self.session is not None:
            self.session.close()


def bridge_seat(
    client: MatchClient,
    match_id: str,
    token: str,
    argv: Sequence[str],
    log: Path,
    seat: str = "",
    say: Say = print,
    verbose: bool = False,
    cap: float = ANSWER_CAP,
) -> pb.Ended | None:
    """Play one seat with `argv` to the match's end (seat mode); the program is stopped at the end."""
    program = Program(argv, log)
    bridge = SeatBridge(client, match_id, token, program, seat, say, verbose, cap)
    try:
        return bridge.run()
    finally:
        bridge.stop()
        program.close()


class BridgeLoop(BotLoop):
    """A bot (arena mode) whose every seat is played by its own process of one program."""

    def __init__(
        self,
        client: MatchClient,
        bot_key: str,
        pool: ThreadPoolExecutor,
        argv: Sequence[str],
        var: str,
        say: Say = print,
        verbose: bool = False,
        cap: float = ANSWER_CAP,
        accept: Callable[[Notice], bool] | None = None,
    ) -> None:
        super().__init__(client, bot_key, lambda game, view, seat: None, pool, accept=accept, log=say)
        self.argv, self.var, self.verbose, self.cap = list(argv), var, verbose, cap
        self._bridges: dict[str, SeatBridge] = {}
        self._guard = threading.Lock()

    def play(self, seating: Seating) -> None:
        if seating.match_id in self.finished or self.stopping.is_set():
            return
        program = Program(self.argv, log_path(self.var, seating.match_id, seating.seat))
        bridge = SeatBridge(
            self.client, seating.match_id, self.bot_key, program, seating.seat, self.log, self.verbose, self.cap
        )
        with self._guard:
            self._bridges[seating.match_id] = bridge
        if self.stopping.is_set():
            bridge.stop()
        self.log(f"match {seating.match_id}: playing {seating.game} as {seating.seat} with {self.argv[0]}")
        try:
            bridge.run()
        finally:
            bridge.stop()
            program.close()
            with self._guard:
                self._bridges.pop(seating.match_id, None)

    def stop(self) -> None:
        super().stop()
        with self._guard:
            bridges = list(self._bridges.values())
        for bridge in bridges:
            bridge.stop()


def run_arena(
    client: MatchClient,
    bot_key: str,
    argv: Sequence[str],
    var: str,
    say: Say = print,
    verbose: bool = False,
    cap: float = ANSWER_CAP,
    after: int = 0,
    until_tournament: str | None = None,
) -> int:
    """Follow the bot's notices and bridge every seat it is given (challenges accepted) until stopped
    (KeyboardInterrupt) or, with `until_tournament`, that tournament's end. Returns the last position."""
    pool = ThreadPoolExecutor(max_workers=16, thread_name_prefix="bridge")
    loop = BridgeLoop(client, bot_key, pool, argv, var, say, verbose, cap)
    last = [after]

    def until(notice: Notice) -> bool:
        return (
            bool(until_tournament)
            and notice.kind == "tournament_finished"
            and (notice.tournament_id == until_tournament)
        )

    try:
        return follow(client, bot_key, loop.handle, after=after, until=until, log=say, on_position=last.append)
    except KeyboardInterrupt:
        say(f"stopped after notice #{last[-1]} (resume with --after {last[-1]})")
        return last[-1]
    finally:
        loop.stop()
        pool.shutdown(wait=True, cancel_futures=True)
