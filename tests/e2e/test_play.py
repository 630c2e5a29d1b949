"""The Play stream over a real server (issue 27): one Turn per decision point, stale and second moves
refused with nothing applied, a resumed stream with no gap and no repeat, and the adversaries (another
seat's token, a spectator, a flood of moves) refused."""

from __future__ import annotations

import contextlib
import json
import threading
from collections import Counter
from typing import Any

import grpc
import pytest

from clients.client import MatchClient
from clients.play_stream import PlaySession
from engine.registry import get_game, shipped
from matchserver.v1 import matchserver_pb2 as pb
from server.grpc.convert import play_update
from tests.support.duel import seat_duel
from tests.support.server import ServerThread
from tests.support.waiting import wait_until


class Seat:
    """A seat played over Play in a thread: every message kept; each Turn answered by `choose`."""

    def __init__(
        self, client: MatchClient, match_id: str, token: str, choose: Any, from_version: int = 0, bundle: bool = False
    ) -> None:
        self.session = PlaySession(client, match_id, token, from_version=from_version, bundle=bundle)
        self.messages: list[pb.PlayResponse] = []
        self.choose = choose
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for message in self.session:
                self.messages.append(message)
                if message.WhichOneof("kind") == "turn" and self.choose is not None:
                    text = self.choose(message.turn)
                    if text is not None:
                        self.session.move(message.turn.version, text=text)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                self.error = exc

    def of(self, kind: str) -> list[Any]:
        return [getattr(m, kind) for m in list(self.messages) if m.WhichOneof("kind") == kind]

    def done(self) -> bool:
        return bool(self.of("ended")) or self.error is not None

    def close(self) -> None:
        self.session.close()
        self.thread.join(30)


@pytest.mark.parametrize("bundle", [False, True], ids=["one-by-one", "bundled"])
def test_each_seat_gets_one_turn_per_decision_point_and_the_match_ends(server: ServerThread, bundle: bool) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=4)
    pairs = (("ann", ann), ("bob", bob))
    seats = {name: Seat(client, match_id, token, lambda turn: "pick 2", bundle=bundle) for name, token in pairs}
    try:
        wait_until(lambda: all(seat.done() for seat in seats.values()), "both seats saw the end", 60)
        for name, seat in seats.items():
            assert seat.error is None
            turns, results = seat.of("turn"), seat.of("result")
            assert len(turns) == 3  # three rounds, one decision each
            assert [t.seat for t in turns] == [name] * 3 and all(t.game == "duel" for t in turns)
            assert len({t.version for t in turns}) == 3
            assert all(r.accepted and r.text == "pick 2" for r in results) and len(results) == 3
            updates = [u.event.version for u in seat.of("update")]
            assert updates == sorted(set(updates))  # every version once, in order
            assert seat.of("ended")[0].status.finished
            assert json.loads(seat.of("ended")[0].results_json)["results"]
    finally:
        for seat in seats.values():
            seat.close()
    assert client.state(match_id, host).status.finished


@pytest.mark.parametrize("game", shipped())
def test_a_whole_match_of_each_game_has_one_turn_per_decision_and_every_example_is_taken(
    server: ServerThread, game: str
) -> None:
    """Every seat answers each Turn with its example (what a shell-script bot does): every move is
    accepted, so each Turn was a decision point the seat had not answered, and the match ends."""
    client = server.client()
    seats = [f"p{n}" for n in range(get_game(game).default_seats)]
    created = client.create(game, seats, seed=11)
    tokens = {seat: client.join(created.match_id, seat) for seat in seats}
    players = {seat: Seat(client, created.match_id, token, lambda turn: turn.example) for seat, token in tokens.items()}
    try:
        wait_until(lambda: all(p.done() for p in players.values()), f"a whole {game} match over Play", 120)
        for seat, player in players.items():
            assert player.error is None, seat
            turns, results = player.of("turn"), player.of("result")
            assert turns, seat
            assert [r.accepted for r in results] == [True] * len(turns), (seat, [r.message for r in results])
            assert len({t.version for t in turns}) == len(turns)  # never the same turn twice
            assert all(t.forms and t.example for t in turns)
            timed = [t for t in turns if t.status.HasField("deadline")]
            assert all(t.HasField("deadline") and t.deadline >= t.status.deadline for t in timed)
            assert all(t.HasField("reserve") for t in turns) == (game == "cookoff")  # its reserve clock (CK-7)
    finally:
        for player in players.values():
            player.close()
    assert client.state(created.match_id, created.host_token).status.finished


def test_a_stale_move_and_a_second_move_for_one_turn_are_refused_and_change_nothing(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, _bob = seat_duel(client, seed=5)
    seat = Seat(client, match_id, ann, None)
    try:
        wait_until(lambda: seat.of("turn"), "ann's first turn")
        turn = seat.of("turn")[0]
        before = client.state(match_id, host).version
        seat.session.move(turn.version - 1, text="pick 3")  # decided on another version: stale
        wait_until(lambda: seat.of("result"), "the stale move's result")
        stale = seat.of("result")[0]
        assert not stale.accepted and stale.code == "ABORTED" and "stale move" in stale.message
        assert client.state(match_id, host).version == before  # nothing applied
        seat.session.move(turn.version, text="pick 3")
        seat.session.move(turn.version, text="pick 1")  # a second decision for the same turn
        wait_until(lambda: len(seat.of("result")) == 3, "both answers")
        first, second = seat.of("result")[1:]
        assert first.accepted and first.text == "pick 3" and first.receipt.version == first.version
        assert not second.accepted and second.code == "ABORTED" and "may not act now" in second.message
        assert client.state(match_id, ann).view["my_picks"] == {"ann": 3}  # the first stood, alone
    finally:
        seat.close()


def test_a_resumed_stream_gets_what_it_missed_and_nothing_twice(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, bob = seat_duel(client, seed=6)
    first = Seat(client, match_id, ann, lambda turn: "pick 1")
    wait_until(lambda: first.of("result"), "ann moved")
    first.close()
    seen = max(u.event.version for u in first.of("update"))
    client.submit(match_id, bob, text="pick 2")  # round 1 resolves while ann is away
    second = Seat(client, match_id, ann, None, from_version=seen)
    try:
        wait_until(lambda: second.of("turn"), "ann's round-2 turn on the resumed stream")
        missed = [u.event.version for u in second.of("update")]
        assert missed == list(range(seen + 1, client.state(match_id, host).version + 1))
        assert len(second.of("turn")) == 1 and second.of("turn")[0].version > seen
    finally:
        second.close()


def test_a_seat_plays_only_its_own_seat_and_spectators_cannot_play(server: ServerThread) -> None:
    client = server.client()
    match_id, host, _ann, bob = seat_duel(client, seed=7)
    for token, player, code in (
        (bob, "ann", grpc.StatusCode.PERMISSION_DENIED),  # another seat's token
        (host, "", grpc.StatusCode.PERMISSION_DENIED),  # the host watches, it does not play
        (None, "ann", grpc.StatusCode.PERMISSION_DENIED),  # a spectator
    ):
        session = PlaySession(client, match_id, token or "", player=player)
        with pytest.raises(grpc.RpcError) as refused:
            list(session)
        assert refused.value.code() == code, (player, refused.value.details())
        assert "Play is a seat's stream" in str(refused.value.details()) or "themself" in str(refused.value.details())


def test_a_flood_of_moves_applies_one_and_refuses_the_rest(server: ServerThread) -> None:
    client = server.client()
    match_id, host, ann, _bob = seat_duel(client, seed=8)
    seat = Seat(client, match_id, ann, None)
    try:
        wait_until(lambda: seat.of("turn"), "ann's turn")
        turn = seat.of("turn")[0]
        for n in range(40):
            seat.session.move(turn.version, text=f"pick {1 + n % 3}")
        wait_until(lambda: len(seat.of("result")) == 40, "every move answered")
        verdicts = Counter((r.accepted, r.code) for r in seat.of("result"))
        assert verdicts == {(True, ""): 1, (False, "ABORTED"): 39}
        picks = [json.loads(e.json) for e in client.history(match_id, host) if e.type == "Picked"]
        assert len(picks) == 1
    finally:
        seat.close()


def test_a_sealed_pick_never_reaches_the_other_seats_stream(server: ServerThread) -> None:
    client = server.client()
    match_id, _host, ann, bob = seat_duel(client, seed=9)
    seat = Seat(client, match_id, ann, None)
    try:
        wait_until(lambda: seat.of("turn"), "ann's turn")
        client.submit(match_id, bob, text="pick 3")
        wait_until(lambda: any(u.event.type in ("Picked", "hidden") for u in seat.of("update")), "bob's pick seen")
        for message in seat.messages:
            text = message.SerializeToString()
            assert b'"number": 3' not in text and b'bob": 3' not in text
    finally:
        seat.close()


def test_a_play_update_is_the_subscribe_update_framed_unchanged() -> None:
    update = pb.SubscribeResponse(event=pb.Event(version=7, kind="game", json="{}"), view_json='{"a": 1}')
    update.status.phase = "round 2"
    update.rolled_back_to = 3
    framed = pb.PlayResponse.FromString(play_update(update.SerializeToString()))
    assert framed.WhichOneof("kind") == "update"
    assert framed.update.event == update.event and framed.update.view_json == update.view_json
    assert framed.update.status == update.status and framed.update.rolled_back_to == 3


def test_a_play_stream_must_start_with_play_start(server: ServerThread) -> None:
    client = server.client()
    requests = iter([pb.PlayRequest(move=pb.Move(turn_version=1, text="pick 1"))])
    with pytest.raises(grpc.RpcError) as refused:
        list(client.stub.Play(requests, metadata=[("authorization", "Spectator")]))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "starts with a PlayStart" in str(refused.value.details())


def test_a_move_without_a_command_or_with_a_huge_text_is_refused_and_the_stream_goes_on(
    server: ServerThread,
) -> None:
    client = server.client()
    match_id, host, ann, _bob = seat_duel(client, seed=10)
    seat = Seat(client, match_id, ann, None)
    try:
        wait_until(lambda: seat.of("turn"), "ann's turn")
        turn = seat.of("turn")[0]
        seat.session._requests.put(pb.PlayRequest(move=pb.Move(request_id="empty", turn_version=turn.version)))
        seat.session.move(turn.version, text="pick " + "9" * 10_000, request_id="huge")
        seat.session.move(turn.version, text="pick 2", request_id="fine")
        wait_until(lambda: len(seat.of("result")) == 3, "three answers")
        empty, huge, fine = seat.of("result")
        assert (empty.request_id, empty.accepted, empty.code) == ("empty", False, "INVALID_ARGUMENT")
        assert "a move needs a command" in empty.message
        assert (huge.request_id, huge.accepted, huge.code) == ("huge", False, "INVALID_ARGUMENT")
        assert len(huge.message) <= 256  # the details never echo the input at length
        assert fine.accepted and fine.text == "pick 2"
        assert client.state(match_id, host).view["my_picks"] == {"ann": 2}
    finally:
        seat.close()


def test_a_write_the_client_does_not_take_ends_after_the_write_timeout_and_a_taken_one_never_does() -> None:
    """server.fanout.WriteWatch, the Play stream's write deadline: one timer per stream, not one per message."""
    import asyncio

    from server.fanout import WriteWatch

    async def write(watch: WriteWatch, taken: asyncio.Future[None]) -> bool:
        watch.start()
        try:
            await taken
        except asyncio.CancelledError:
            current = asyncio.current_task()
            assert current is not None and watch.expired
            current.uncancel()
            return False
        finally:
            watch.done()
        return True

    async def scenario() -> tuple[list[bool], bool]:
        loop = asyncio.get_running_loop()
        watch = WriteWatch(0.5)
        taken = []
        until = loop.time() + 1.2
        while loop.time() < until:  # writes taken at once, one after another, for longer than the timeout
            future: asyncio.Future[None] = loop.create_future()
            loop.call_soon(future.set_result, None)
            taken.append(await write(watch, future))
            await asyncio.sleep(0.01)
        stuck = await write(watch, loop.create_future())  # never taken
        watch.close()
        return taken, stuck

    taken, stuck = asyncio.run(scenario())
    assert taken and all(taken)
    assert stuck is False


@pytest.mark.slow
def test_kill_9_while_seats_play_over_play_keeps_every_acknowledged_move(tmp_path: Any) -> None:
    """Moves acknowledged over Play streams (a MoveResult) are durable: the real server process is killed
    with SIGKILL while four matches are played over Play, each seat answering its Turns with their example;
    restarted, every acknowledged move's receipt verifies against the stored chain, once per version."""
    import signal

    from engine.registry import seats
    from tests.support.process import WAIT, start_process

    var = tmp_path / "var"
    server = start_process(var, tmp_path / "server-0.log")
    address, port, admin = server.address, server.port, server.admin_token()
    acks: list[tuple[str, pb.MoveResult]] = []
    acked = threading.Condition()
    try:

        def play(match_id: str, token: str) -> None:
            client = MatchClient(address, host_credential=admin)
            session = PlaySession(client, match_id, token)
            with contextlib.suppress(grpc.RpcError):  # the server was killed: the stream breaks
                for message in session:
                    kind = message.WhichOneof("kind")
                    if kind == "turn" and message.turn.example:
                        session.move(message.turn.version, text=message.turn.example)
                    elif kind == "result" and message.result.accepted:
                        with acked:
                            acks.append((match_id, message.result))
                            acked.notify_all()

        host = MatchClient(address, host_credential=admin)
        threads = []
        for seed in range(4):
            players = seats("cookoff")
            match_id = host.create("cookoff", players, seed=seed).match_id
            for player in players:
                token = host.join(match_id, player)
                threads.append(threading.Thread(target=play, args=(match_id, token), daemon=True))
        for thread in threads:
            thread.start()
        with acked:
            assert acked.wait_for(lambda: len(acks) >= 40, WAIT), f"only {len(acks)} moves acknowledged"
        assert server.stop(signal.SIGKILL) == -signal.SIGKILL
        for thread in threads:
            thread.join(WAIT)
        with acked:
            kept = list(acks)
        server = start_process(var, tmp_path / "server-1.log", port)
        client = MatchClient(server.address, timeout=WAIT, host_credential=admin)
        by_match: dict[str, list[pb.MoveResult]] = {}
        for match_id, result in kept:
            by_match.setdefault(match_id, []).append(result)
        for match_id, results in by_match.items():
            versions = [result.version for result in results]
            assert len(set(versions)) == len(versions), f"{match_id}: two moves acknowledged at one version"
            assert client.state(match_id).version >= max(versions)
            report = client.verify(match_id, admin, [result.receipt for result in results])
            assert report.ok and report.receipts_checked == len(results), f"{match_id}: {report}"
        client.close()
    finally:
        if server.process.poll() is None:
            server.stop()


def test_a_bundled_stream_sends_the_same_messages_in_order_in_fewer_grpc_messages(server: ServerThread) -> None:
    client = server.client()
    match_id, _, ann, bob = seat_duel(client, seed=4)
    seats = [Seat(client, match_id, token, lambda turn: "pick 2", bundle=True) for token in (ann, bob)]
    try:
        wait_until(lambda: all(seat.done() for seat in seats), "both seats saw the end", 60)
    finally:
        for seat in seats:
            seat.close()

    def replayed(bundle: bool) -> tuple[list[tuple[str, int]], int]:
        """A finished match from version 0: (each message's kind and version, the gRPC messages received)."""
        start = pb.PlayStart(match_id=match_id, from_version=0, bundle=bundle)
        call = client.stub.Play(iter([pb.PlayRequest(start=start)]), metadata=client._auth(ann))
        received, flat = 0, []
        for message in call:
            received += 1
            for item in message.bundle.items if message.WhichOneof("kind") == "bundle" else [message]:
                kind = item.WhichOneof("kind")
                assert kind != "bundle"  # never a bundle inside a bundle
                flat.append((kind, item.update.event.version if kind == "update" else item.ended.version))
        return flat, received

    one_by_one, messages = replayed(False)
    bundled, bundles = replayed(True)
    assert bundled == one_by_one and messages == len(one_by_one)
    assert bundles == 1 < messages  # the whole catch-up and its end in one message
