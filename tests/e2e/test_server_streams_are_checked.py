"""The server's own streams (host keys and bots; the arena) are keyed hash chains, checked as they are
loaded and by `matchctl verify --identities --arena` (issue 23, item 8). The adversary has write access
to the store: an edited bot-key digest must not let their key act as the bot, and swapped ranks must not
count on the leaderboard."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from clients import cli
from matchserver.v1 import arena_pb2 as apb
from matchserver.v1 import matchserver_pb2 as pb
from server.app import Settings
from server.arena.log import ARENA_STREAM
from server.clock import ManualClock
from server.identities import IDENTITIES_STREAM
from server.records import token_hash
from tests.e2e.arena.support import Arena, auth
from tests.support import storefile
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

ATTACKER = "msbk_the-attackers-own-key"


def _start(tmp_path: Path) -> tuple[ServerThread, Arena]:
    settings = Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"), clock=ManualClock(), tick_interval=0.05)
    server = ServerThread(settings).start()
    return server, Arena(server)


def _stop(server: ServerThread, arena: Arena) -> None:
    arena.close()
    server.stop()


def _version_of(path: Path, stream: str, wanted: object) -> int:
    records = storefile.records(path, stream)
    return next(v for v, record in enumerate(records, start=1) if wanted(record))  # type: ignore[operator]


def test_an_edited_bot_key_digest_lets_no_key_act_and_verify_names_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, arena = _start(tmp_path)
    arena.bot("ann")
    _stop(server, arena)
    store = tmp_path / "var" / "matches.db"
    edited = _version_of(store, str(IDENTITIES_STREAM), lambda r: r.get("bot") == "ann")
    storefile.rewrite(store, str(IDENTITIES_STREAM), edited, lambda r: {**r, "digest": token_hash(ATTACKER)})
    server, arena = _start(tmp_path)
    try:
        with pytest.raises(grpc.RpcError) as refused:
            next(iter(arena.stub.BotEvents(apb.BotEventsRequest(), metadata=auth(ATTACKER), timeout=30)))
        assert refused.value.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)
        report = arena.stub.VerifyServerStreams(
            apb.VerifyServerStreamsRequest(identities=True), metadata=auth(arena.admin)
        )
        (identities,) = report.streams
        assert not identities.ok and identities.first_bad_version == edited
        with pytest.raises(grpc.RpcError) as no_write:  # nothing more is written after a broken record
            arena.matches.CreateHostKey(pb.CreateHostKeyRequest(name="x"), metadata=auth(arena.admin))
        assert no_write.value.code() == grpc.StatusCode.DATA_LOSS
        code = cli.main(["--server", server.address, "--var", str(tmp_path / "var"), "verify", "--identities"])
        said = capsys.readouterr().out
        assert code == 1 and f"identities: BROKEN at record {edited}" in said
        with pytest.raises(grpc.RpcError) as not_admin:
            arena.stub.VerifyServerStreams(apb.VerifyServerStreamsRequest(identities=True), metadata=auth(None))
        assert not_admin.value.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)
    finally:
        _stop(server, arena)


def test_swapped_ranks_in_the_arena_stream_do_not_count_and_verify_names_the_record(tmp_path: Path) -> None:
    server, arena = _start(tmp_path)
    arena.bot("ann")
    arena.bot("bob")
    challenge = arena.stub.CreateChallenge(
        apb.CreateChallengeRequest(game="duel", bots=["ann", "bob"]), metadata=auth(arena.admin)
    ).challenge
    arena.finish_by_defaults(challenge.match_id)
    board = apb.LeaderboardRequest(game="duel")
    wait_until(lambda: len(arena.stub.Leaderboard(board).ratings) == 2, "the result is rated")
    clean = arena.stub.VerifyServerStreams(apb.VerifyServerStreamsRequest(arena=True), metadata=auth(arena.admin))
    assert all(stream.ok for stream in clean.streams) and clean.streams[0].name == "arena"
    _stop(server, arena)
    store = tmp_path / "var" / "matches.db"
    finished = _version_of(store, str(ARENA_STREAM), lambda r: r["kind"] == "finished")

    def swap(record: dict[str, object]) -> dict[str, object]:
        ranks = dict(record["ranks"])  # type: ignore[call-overload]
        return {**record, "ranks": {"ann": ranks["bob"], "bob": ranks["ann"]}}

    storefile.rewrite(store, str(ARENA_STREAM), finished, swap)
    server, arena = _start(tmp_path)
    try:
        assert len(arena.stub.Leaderboard(board).ratings) == 0  # the edited result is not applied
        report = arena.stub.VerifyServerStreams(apb.VerifyServerStreamsRequest(arena=True), metadata=auth(arena.admin))
        assert not report.streams[0].ok and report.streams[0].first_bad_version == finished
        assert "edited" in report.streams[0].problem
    finally:
        _stop(server, arena)
