"""clients/botloop.py without a server: when a seat owes a submission, where the notices resume after
the stream ends, which seated matches are played, how challenges are answered."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest

from clients import botloop
from clients.botloop import BotKeyRefused, BotLoop, Seating, follow, owes
from clients.bots import get_bot
from clients.client import RESUME_FROM, MatchClient, State
from matchserver.v1 import arena_pb2 as arena_pb
from matchserver.v1 import matchserver_pb2 as pb
from tests.support.arena_bots import ArenaBot
from tests.support.server import ServerThread


def notice(position: int, kind: str, **fields: Any) -> arena_pb.BotEventsResponse:
    return arena_pb.BotEventsResponse(position=position, kind=kind, **fields)


class Ended(grpc.RpcError):
    """A stream's end as grpc raises it: a code, details and the trailing metadata."""

    def __init__(self, code: grpc.StatusCode, trailer: int | None = None, details: str = "") -> None:
        self._code, self._details = code, details or code.name
        self._trailer = () if trailer is None else ((RESUME_FROM, str(trailer)),)

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._trailer


class Stream:
    """A scripted BotEvents call: these notices, then this end (None: a clean end without a trailer)."""

    def __init__(self, notices: list[arena_pb.BotEventsResponse], end: Ended | None = None) -> None:
        self.notices, self.end, self.cancelled = notices, end, False

    def __iter__(self) -> Iterator[arena_pb.BotEventsResponse]:
        yield from self.notices
        if self.end is not None:
            raise self.end

    def cancel(self) -> None:
        self.cancelled = True

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()


class NoticesClient:
    """Answers each BotEvents call with the next scripted stream, and remembers each `after` asked for."""

    def __init__(self, streams: list[Stream]) -> None:
        self.streams = streams
        self.asked: list[int] = []

    def bot_events(self, bot_key: str, after: int = 0) -> Stream:
        self.asked.append(after)
        return self.streams.pop(0)


@pytest.fixture(autouse=True)
def _no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    """No server to wait for, and no back-off pauses: the loop's decisions are what is tested."""
    monkeypatch.setattr(botloop, "pause_before", lambda failures: 0.0)
    monkeypatch.setattr(botloop, "wait_for_server", lambda client, timeout=60.0: True)


def status(awaiting: tuple[str, ...] = (), submitted: tuple[str, ...] = (), finished: bool = False) -> pb.Status:
    return pb.Status(awaiting=list(awaiting), submitted=list(submitted), finished=finished)


def test_a_seat_owes_a_submission_only_when_awaited_without_one_in_and_the_match_goes_on() -> None:
    assert owes(status(awaiting=("ann", "bob")), "ann")
    assert not owes(status(awaiting=("bob",)), "ann")
    assert not owes(status(awaiting=("ann", "bob"), submitted=("ann",)), "ann")
    assert not owes(status(awaiting=("ann",), finished=True), "ann")


def test_notices_resume_after_the_last_one_received_whatever_ended_the_stream() -> None:
    streams = [
        Stream([notice(1, "seated"), notice(2, "finished")], Ended(grpc.StatusCode.UNAVAILABLE)),  # a killed server
        Stream([notice(2, "finished"), notice(3, "seated")], Ended(grpc.StatusCode.UNAVAILABLE, trailer=3)),  # shutdown
        Stream([notice(4, "challenged")], Ended(grpc.StatusCode.UNAVAILABLE, trailer=6)),  # 5 and 6 lost on the way
        Stream([]),  # a clean end, no trailer
        Stream([notice(5, "finished"), notice(6, "tournament_finished"), notice(7, "seated")]),
    ]
    client = NoticesClient(list(streams))
    handled: list[int] = []
    lines: list[str] = []
    last = follow(
        client,  # type: ignore[arg-type]
        "msbk_x",
        lambda event: handled.append(event.position),
        after=0,
        until=lambda event: event.kind == "tournament_finished",
        log=lines.append,
    )
    assert last == 6
    assert client.asked == [0, 2, 3, 4, 4]
    assert handled == [1, 2, 3, 4, 5, 6]  # the resent #2 handled once; nothing after `until`
    assert streams[-1].cancelled and not streams[0].cancelled  # the stream `until` stopped is closed
    assert "the server had sent up to #6" in lines[2] and lines[2].endswith("resuming after #4")


def test_a_refused_key_ends_the_notices_with_the_position_to_resume_from() -> None:
    client = NoticesClient(
        [
            Stream([notice(8, "seated")], Ended(grpc.StatusCode.UNAVAILABLE, trailer=8)),  # the key was rotated
            Stream([], Ended(grpc.StatusCode.UNAUTHENTICATED, details="the token is not known to this server")),
        ]
    )
    with pytest.raises(BotKeyRefused, match="after=8") as refused:
        follow(client, "msbk_old", lambda event: None, after=7, log=lambda line: None)  # type: ignore[arg-type]
    assert refused.value.position == 8 and client.asked == [7, 8]


def test_another_error_is_raised_not_retried() -> None:
    client = NoticesClient([Stream([], Ended(grpc.StatusCode.INTERNAL))])
    with pytest.raises(grpc.RpcError):
        follow(client, "k", lambda event: None, log=lambda line: None)  # type: ignore[arg-type]
    assert client.asked == [0]


class Interrupted(Stream):
    """Ctrl-C while the bot waits for its next notice."""

    def __iter__(self) -> Iterator[arena_pb.BotEventsResponse]:
        yield from self.notices
        raise KeyboardInterrupt


def test_run_bot_returns_the_last_position_on_ctrl_c_and_when_until_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    streams = [Interrupted([notice(3, "tournament_created"), notice(5, "challenge_expired")])]

    class Client(NoticesClient):
        def __init__(self, server: str, tls: bool = False, ca: object = None) -> None:
            super().__init__(streams)
            self.closed = False

        def close(self) -> None:
            self.closed = True

    monkeypatch.setattr(botloop, "MatchClient", Client)
    lines: list[str] = []
    assert botloop.run_bot(lambda g, v, s: None, server="127.0.0.1:1", bot_key="k", after=2, log=lines.append) == 5
    assert lines == ["#3 tournament_created", "#5 challenge_expired"]
    streams.append(Stream([notice(6, "tournament_finished", tournament_id="t"), notice(7, "seated")]))
    until = botloop.run_bot(
        lambda g, v, s: None, server="x", bot_key="k", until=lambda n: n.kind == "tournament_finished", log=print
    )
    assert until == 6


class Later:
    """An executor that keeps the work until told to run it: as a busy pool would."""

    def __init__(self) -> None:
        self.queued: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []

    def submit(self, work: Callable[..., Any], *args: Any) -> None:
        self.queued.append((work, args))

    def run(self) -> None:
        while self.queued:
            work, args = self.queued.pop(0)
            work(*args)


class Update:
    def __init__(self, version: int, view: dict[str, Any] | None, st: pb.Status) -> None:
        self.event = pb.Event(version=version)
        self.view_json = json.dumps(view) if view is not None else ""
        self.status = st


class Updates:
    """A match's updates as the seat's Subscription gives them: an iterator, cancelled at the end."""

    def __init__(self, updates: list[Update]) -> None:
        self.updates, self.cancelled = iter(updates), False

    def __iter__(self) -> Iterator[Update]:
        return self

    def __next__(self) -> Update:
        update = next(self.updates, None)
        assert update is not None, "read past the last update: a real stream would wait here for good"
        return update

    def cancel(self) -> None:
        self.cancelled = True


class MatchesClient:
    """A seat's match: GetState, a scripted stream of updates after it, and Submit, as a bot key sees them."""

    def __init__(self, state: State, updates: list[Update], refuse: Collection[str] = ()) -> None:
        self.first, self.updates, self.refuse = state, Updates(updates), refuse
        self.states: list[str] = []
        self.submitted: list[str] = []
        self.answers: list[tuple[str, bool]] = []
        self.version = state.version
        self.after_submit: pb.Status = status()
        self.subscribed_from: int | None = None

    def state(self, match_id: str, token: str | None = None, at: int | None = None) -> State:
        self.states.append(match_id)
        return self.first

    def subscribe(self, match_id: str, token: str | None = None, from_version: int = 0) -> Updates:
        self.subscribed_from = from_version
        return self.updates

    def submit(self, match_id: str, token: str, text: str | None = None) -> pb.SubmitResponse:
        if text in self.refuse:
            raise Ended(grpc.StatusCode.FAILED_PRECONDITION, details="not now (MN-1)")
        assert text is not None
        self.submitted.append(text)
        self.version += 2
        return pb.SubmitResponse(version=self.version, status=self.after_submit)

    def answer_challenge(self, challenge_id: str, accept: bool, token: str) -> arena_pb.Challenge:
        if challenge_id == "gone":
            raise Ended(grpc.StatusCode.FAILED_PRECONDITION, details="the challenge expired")
        self.answers.append((challenge_id, accept))
        return arena_pb.Challenge(challenge_id=challenge_id)


def a_state(version: int, st: pb.Status, view: dict[str, Any] | None = None) -> State:
    return State("m", "mining", version, view or {}, st, "player:b1", ["b1", "b2"], {})


def test_a_match_known_finished_is_not_played_and_a_match_is_played_once() -> None:
    pool = Later()
    client = MatchesClient(a_state(3, status(finished=True)), [])
    loop = BotLoop(client, "k", lambda g, v, s: "x", pool, log=lambda line: None)  # type: ignore[arg-type]
    for event in (
        notice(1, "seated", match_id="old", seat="b1", game="mining"),
        notice(2, "finished", match_id="old", result_json='{"ranks": {"b1": 1}}'),
        notice(3, "seated", match_id="old", seat="b1", game="mining"),
        notice(4, "seated", match_id="new", seat="b1", game="mining"),
        notice(5, "seated", match_id="new", seat="b1", game="mining"),
    ):
        loop.handle(event)
    assert [args[0].match_id for _, args in pool.queued] == ["old", "new"]
    pool.run()
    assert client.states == ["new"]  # "old" finished while it waited for a worker: not even asked about


def test_a_seat_submits_what_decide_says_while_it_owes_and_skips_updates_up_to_its_own_submission() -> None:
    views: list[tuple[str, dict[str, Any], str]] = []

    def decide(game: str, view: dict[str, Any], seat: str) -> str | None:
        views.append((game, view, seat))
        return f"move {view['turn']}" if view["turn"] != 3 else None

    start = a_state(5, status(awaiting=("b1", "b2")), {"turn": 1})
    updates = [
        Update(6, None, status()),  # mid-batch: no view
        Update(7, {"turn": 1}, status(awaiting=("b1", "b2"))),  # before our own submission (version 7)
        Update(9, {"turn": 2}, status(awaiting=("b1",), submitted=())),
        Update(10, {"turn": 2}, status(awaiting=("b1",), submitted=("b1",))),  # our own, already in
        Update(12, {"turn": 3}, status(awaiting=("b1",))),  # decide() has nothing now
        Update(14, {"turn": 4}, status(awaiting=("b1",))),
        Update(16, {}, status(finished=True)),
        Update(17, {"turn": 9}, status(awaiting=("b1",))),  # never read: the match was over
    ]
    client = MatchesClient(start, updates)
    client.after_submit = status(awaiting=("b1", "b2"), submitted=("b1",))
    lines: list[str] = []
    BotLoop(client, "k", decide, Later(), log=lines.append).play(Seating("m", "b1", "mining"))  # type: ignore[arg-type]
    assert client.subscribed_from == 5  # no gap and no replay between GetState and the stream
    assert client.submitted == ["move 1", "move 2", "move 4"]
    assert [v["turn"] for _, v, _ in views] == [1, 2, 3, 4] and {(g, s) for g, _, s in views} == {("mining", "b1")}
    assert client.updates.cancelled and lines[-1] == "match m: over"


def test_a_refused_submission_is_logged_and_the_seat_waits_for_the_next_update() -> None:
    start = a_state(5, status(awaiting=("b1",)), {"turn": 1})
    updates = [Update(8, {"turn": 2}, status(awaiting=("b1",))), Update(9, {}, status(finished=True))]
    client = MatchesClient(start, updates, refuse={"move 1"})
    client.after_submit = status(awaiting=("b1",), submitted=("b1",))
    lines: list[str] = []
    loop = BotLoop(client, "k", lambda g, v, s: f"move {v['turn']}", Later(), log=lines.append)  # type: ignore[arg-type]
    loop.play(Seating("m", "b1", "mining"))
    assert client.submitted == ["move 2"]
    assert any("'move 1' refused: FAILED_PRECONDITION not now (MN-1)" in line for line in lines)


def test_a_submission_that_opens_a_phase_waiting_on_the_seat_alone_is_followed_by_get_state() -> None:
    start = a_state(5, status(awaiting=("b1",)), {"turn": 1})
    client = MatchesClient(start, [Update(20, {}, status(finished=True))])
    client.after_submit = status(awaiting=("b1",))  # the seat is awaited again: no update will come
    said: list[str] = []

    def decide(game: str, view: dict[str, Any], seat: str) -> str | None:
        said.append("x")
        return "x" if len(said) < 3 else None

    BotLoop(client, "k", decide, Later(), log=lambda line: None).play(Seating("m", "b1", "mining"))  # type: ignore[arg-type]
    assert client.submitted == ["x", "x"] and client.states == ["m", "m", "m"]


def test_a_seat_whose_own_submission_ends_the_match_stops_without_waiting_for_more() -> None:
    start = a_state(5, status(awaiting=("b1", "b2")), {"turn": 1})
    updates = [Update(6, {"turn": 1}, status(awaiting=("b1",)))]  # the other seat's, older than our last
    client = MatchesClient(start, updates)
    client.after_submit = status(finished=True)
    lines: list[str] = []
    BotLoop(client, "k", lambda g, v, s: "last", Later(), log=lines.append).play(Seating("m", "b1", "mining"))  # type: ignore[arg-type]
    assert client.submitted == ["last"] and lines[-1] == "match m: over"

    client = MatchesClient(start, [Update(7, {}, status(finished=True))])  # the stream's news of our own end
    client.after_submit = status(awaiting=("b2",), submitted=("b1",))
    BotLoop(client, "k", lambda g, v, s: "last", Later(), log=lines.append).play(Seating("m", "b1", "mining"))  # type: ignore[arg-type]
    assert client.submitted == ["last"] and client.updates.cancelled


def test_challenges_are_accepted_by_default_else_as_accept_says_and_a_stale_one_is_only_logged() -> None:
    client = MatchesClient(a_state(1, status()), [])
    lines: list[str] = []
    loop = BotLoop(client, "k", lambda g, v, s: None, Later(), log=lines.append)  # type: ignore[arg-type]
    loop.handle(notice(1, "challenged", challenge_id="c1", game="cookoff"))
    loop.handle(notice(2, "challenged", challenge_id="gone", game="cookoff"))
    picky = BotLoop(client, "k", lambda g, v, s: None, Later(), accept=lambda e: e.game == "mining", log=lines.append)  # type: ignore[arg-type]
    picky.handle(notice(3, "challenged", challenge_id="c3", game="cookoff"))
    assert client.answers == [("c1", True), ("c3", False)]
    assert "challenge gone: answer not taken: FAILED_PRECONDITION the challenge expired" in lines
    assert lines[0] == "#1 challenged: c1"


@pytest.mark.slow
def test_the_bot_loop_plays_every_seat_of_a_real_match_to_its_end(server: ServerThread) -> None:
    """A seat's worker against a real server (a seat token stands in for a bot key here: both are
    bearer tokens of one seat): every phase is played through, nothing refused."""
    client = server.client()
    match_id = client.create("cookoff", ["ann", "bob"], seed=11).match_id
    tokens = {seat: client.join(match_id, seat) for seat in ("ann", "bob")}
    lines: list[str] = []

    def decide(game: str, view: dict[str, Any], seat: str) -> str | None:
        return get_bot(game, "judge_bot")(view, seat, random.Random(seat))

    with ThreadPoolExecutor(max_workers=2) as pool:
        loops = {
            seat: BotLoop(MatchClient(server.address), token, decide, pool, log=lines.append)
            for seat, token in tokens.items()
        }
        plays = [pool.submit(loop.play, Seating(match_id, seat, "cookoff")) for seat, loop in loops.items()]
        for play in plays:
            play.result(timeout=120)
    final = client.state(match_id, server.admin_token)
    assert final.status.finished and final.results["results"]
    assert not [line for line in lines if "refused" in line], lines
    assert sorted(lines) == sorted(
        [f"match {match_id}: playing cookoff as {s}" for s in tokens] + [f"match {match_id}: over"] * 2
    )


@pytest.mark.slow
def test_run_bot_answers_a_challenge_plays_the_match_and_stops_at_its_finished_notice(server: ServerThread) -> None:
    client = server.client()
    keys = {name: client.create_bot(name).bot_key for name in ("chal-a", "chal-b")}
    challenge = client.create_challenge("cookoff", ["chal-a", "chal-b"], token=keys["chal-a"])
    assert challenge.state == "open"

    def until_finished(notice: arena_pb.BotEventsResponse) -> bool:
        return notice.kind == "finished"

    bots = {name: ArenaBot(name, key, until_finished).start(server.address) for name, key in keys.items()}
    positions = {name: bot.finish() for name, bot in bots.items()}
    answered = {name: [line for line in bot.lines if line.startswith("challenge ")] for name, bot in bots.items()}
    assert all(any(line.endswith(": accepted") for line in lines) for lines in answered.values()), answered
    kinds = {
        name: [line.split()[1].rstrip(":") for line in bot.lines if line.startswith("#")] for name, bot in bots.items()
    }
    for name, seen in kinds.items():
        assert seen[0] == "challenged" and "seated" in seen and seen[-1] == "finished", (name, seen)
        numbers = [int(line.split()[0][1:]) for line in bots[name].lines if line.startswith("#")]
        assert numbers == sorted(set(numbers)) and positions[name] == numbers[-1]  # in order, each once
    again = ArenaBot("chal-a", keys["chal-a"], until_finished).start(server.address, after=0)
    assert again.finish() == positions["chal-a"]  # from the start again: the history, the match not replayed
    assert not [line for line in again.lines if line.startswith("match ") and "playing" in line]
