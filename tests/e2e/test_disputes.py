"""Disputes over gRPC against a real server: a seat contests a resolution, the host reviews it, tries a
correction on a private copy, and upholds or corrects it (docs/AUDIT.md, "Disputes"). The adversaries: a
rival or a spectator who would read what the review shows the host, a filer who would flood the log, and
an insider who edits a decided dispute's records."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from clients.bots import bot_names, get_bot
from clients.client import MatchClient, State
from server import chainkey
from server.app import Settings
from server.clock import ManualClock
from server.records import chain
from tests.support import storefile
from tests.support.server import ServerThread

COOKOFF = {"rounds": 2, "judge_reveal_after": [0, 1, 2]}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerThread]:
    settings = Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"), clock=ManualClock(), tick_interval=0.05)
    running = ServerThread(settings).start()
    yield running
    running.stop()


def seated(
    client: MatchClient, game: str, seats: list[str], config: dict[str, Any] | None = None
) -> tuple[str, str, dict[str, str]]:
    made = client.create(game, seats, seed=11, config=config)
    tokens = {s.player: client.join(made.match_id, s.player, invitation=s.invitation) for s in made.invitations}
    return made.match_id, made.host_token, tokens


def play(
    client: MatchClient,
    match_id: str,
    tokens: dict[str, str],
    until: Callable[[State], bool],
    seats: list[str] | None = None,
) -> State:
    """Bots play the seats (all, or `seats`) until `until` holds or none of them may act."""
    game = client.state(match_id).game
    bot = get_bot(game, bot_names(game)[0])
    rng = random.Random(3)
    for _ in range(2000):
        state = client.state(match_id)
        if until(state) or state.status.finished:
            return state
        acted = False
        for seat in seats or list(tokens):
            mine = client.state(match_id, tokens[seat])
            if seat in mine.status.awaiting and seat not in mine.status.submitted:
                text = bot(mine.view, seat, rng)
                if text:
                    client.submit(match_id, tokens[seat], text)
                    acted = True
                    break
        if not acted:
            return client.state(match_id)
    raise AssertionError("the bots did not get there")


def resolutions(client: MatchClient, match_id: str) -> list[int]:
    """Versions after which the phase is not the one before the batch (a resolution's last record), read as
    a spectator would: the phase at each version of the public history."""
    events = client.history(match_id)
    starts = [e.version for e in events if e.kind == "game" and "cause" in json.loads(e.json)][1:]  # not the start
    if not starts:
        return []
    ends = [later - 1 for later in starts[1:]] + [events[-1].version]
    phase = {v: client.state(match_id, at=v).status.phase for v in {*ends, *(s - 1 for s in starts)} if v >= 1}
    return [end for start, end in zip(starts, ends, strict=True) if phase[start - 1] != phase[end]]


def history_kinds(client: MatchClient, match_id: str) -> list[str]:
    return [e.kind for e in client.history(match_id)]


def test_a_cookoff_judging_disputed_tried_and_corrected_with_reapply_finishes_with_the_corrected_result(
    server: ServerThread,
) -> None:
    client = server.client()
    match_id, host, tokens = seated(client, "cookoff", ["ann", "bob"], COOKOFF)
    # The last dish removal: bob removes first, then ann's removal ends the match and the judges rule.
    play(client, match_id, tokens, lambda s: s.status.phase == "round 2: dish removal")
    play(client, match_id, tokens, lambda s: "bob" in s.status.submitted, seats=["bob"])
    judged_state = play(client, match_id, tokens, lambda s: False, seats=["ann"])
    assert judged_state.status.finished
    judged = client.history(match_id)[-1]
    assert judged.type == "match_judged"
    filed = client.file_dispute(
        match_id, tokens["ann"], judged.version, "the judges saw a dish I did not mean to serve"
    )
    assert filed.dispute_id == f"{match_id}.1"
    review = client.review_dispute(filed.dispute_id, host)
    assert review["redecided"]["same"] is True
    assert set(review["views"]) == {"ann", "bob", "spectator"} and review["changes"]["ann"]
    assert any(rule["id"] == "CK-6" or rule["id"].startswith("CK") for e in review["trace"] for rule in e["rules"])
    ann = next(i for i in review["inputs"] if i["actor"] == "ann")
    removed = ann["text"].removeprefix("I remove the dish on ").rstrip(".").split(", ")
    pot = review["views"]["ann"]["before"]["players"]["ann"]["pot"]  # her pot just before, as the host sees it
    other = f"I remove the dish on {next(square for square in sorted(pot) if square not in removed)}."
    before = client.state(match_id).version
    tried = client.try_dispute(filed.dispute_id, {"ann": other}, token=host)
    assert client.state(match_id).version == before  # a what-if writes nothing
    assert tried["actual"]["finished"] and tried["tried"]["finished"]
    assert tried["tried"]["lines"] != tried["actual"]["lines"]  # another dish before the judges
    corrected = client.decide_dispute(
        filed.dispute_id, "correct", "ann's removal was misread", {"ann": other}, reapply=True, token=host
    )
    decided = json.loads(corrected.decision_json)
    assert decided["decision"] == "corrected" and decided["replacements"] == {"ann": other}
    after = client.state(match_id, host)
    assert after.status.finished
    assert after.results == tried["tried"]["results"]  # the match ends as the what-if showed
    assert client.verify(match_id, host).ok
    assert [d["state"] for d in client.list_disputes(match_id)] == ["corrected"]


def test_a_mining_dispute_corrected_without_reapply_asks_exactly_the_affected_seats_again(server: ServerThread) -> None:
    client = server.client()
    seats = ["a", "b", "c", "d", "e"]
    match_id, host, tokens = seated(client, "mining", seats)
    first = play(client, match_id, tokens, lambda s: len(resolutions(client, match_id)) >= 2)
    resolved = resolutions(client, match_id)[-1]
    # Two seats act in the next phase; then the resolution before it is disputed.
    play(client, match_id, tokens, lambda s: len(s.status.submitted) >= 2, seats=["b", "d"])
    acted = sorted(client.state(match_id).status.submitted)
    assert acted and first.version < client.state(match_id).version
    filed = client.file_dispute(match_id, host, resolved, "the host's own check: the deadline was wrong")
    answer = client.decide_dispute(filed.dispute_id, "correct", "re-run the phase", {}, reapply=False, token=host)
    decided = json.loads(answer.decision_json)
    assert sorted(asked["seat"] for asked in decided["asked_again"]) == acted
    now = client.state(match_id)
    assert not set(acted) & set(now.status.submitted)  # they must submit again
    assert set(acted) <= set(now.status.awaiting)
    assert client.verify(match_id, host).ok


def test_an_upheld_dispute_changes_nothing_but_the_log(server: ServerThread) -> None:
    client = server.client()
    match_id, host, tokens = seated(client, "cookoff", ["ann", "bob"], COOKOFF)
    play(client, match_id, tokens, lambda s: len(resolutions(client, match_id)) >= 2)
    at = resolutions(client, match_id)[-1]
    before = client.state(match_id, host)
    filed = client.file_dispute(match_id, tokens["bob"], at, "ann got too many berries")
    client.decide_dispute(filed.dispute_id, "uphold", "floor division is the rule (CK-5)", token=host)
    after = client.state(match_id, host)
    assert after.version == before.version + 2  # the dispute and its decision
    assert after.view == before.view and after.status == before.status
    assert history_kinds(client, match_id)[-2:] == ["dispute", "dispute_decided"]
    with pytest.raises(grpc.RpcError) as again:
        client.decide_dispute(filed.dispute_id, "correct", "changed my mind", token=host)
    assert again.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_a_what_if_leaves_the_match_and_every_stream_untouched(server: ServerThread) -> None:
    client = server.client()
    match_id, host, tokens = seated(client, "cookoff", ["ann", "bob"], COOKOFF)
    play(client, match_id, tokens, lambda s: len(resolutions(client, match_id)) >= 1)
    at = resolutions(client, match_id)[-1]
    filed = client.file_dispute(match_id, tokens["ann"], at, "my workers went to the wrong tree")
    version = client.state(match_id).version
    stream = client.subscribe(match_id, tokens["bob"], from_version=version)
    tried = client.try_dispute(filed.dispute_id, {"ann": "I will send no workers."}, forward=True, token=host)
    assert "forward" in tried
    assert client.state(match_id).version == version
    client.host_action(match_id, host, "pause", "a marker after the what-if")
    update = next(iter(stream))
    assert update.event.version == version + 1 and update.event.kind == "host"  # nothing of the what-if came first
    stream.cancel()


def test_a_rival_a_spectator_and_errors_never_see_the_review(server: ServerThread) -> None:
    client = server.client()
    match_id, host, tokens = seated(client, "cookoff", ["ann", "bob"], COOKOFF)
    play(client, match_id, tokens, lambda s: len(resolutions(client, match_id)) >= 1)
    at = resolutions(client, match_id)[-1]
    filed = client.file_dispute(match_id, tokens["ann"], at, "recount please")
    review = client.review_dispute(filed.dispute_id, host)
    secret = json.dumps(review["views"]["ann"]["before"], sort_keys=True)
    for token in (tokens["bob"], tokens["ann"], None):
        for call in (
            lambda t=token: client.review_dispute(filed.dispute_id, t or "Spectator"),
            lambda t=token: client.try_dispute(filed.dispute_id, {"ann": "I will send no workers."}, token=t or "x"),
        ):
            with pytest.raises(grpc.RpcError) as refused:
                call()
            assert refused.value.code() in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED)
            assert "workers" not in (refused.value.details() or "")
    for shown in (client.list_disputes(match_id, tokens["bob"]), client.list_disputes(match_id)):
        assert json.dumps(shown, sort_keys=True).find(secret) == -1
        assert shown[0]["text"] == "recount please"  # the dispute itself is public


def test_filing_is_bounded_and_refuses_what_is_not_a_resolution(server: ServerThread) -> None:
    client = server.client()
    match_id, _, tokens = seated(client, "cookoff", ["ann", "bob"], COOKOFF)
    play(client, match_id, tokens, lambda s: len(resolutions(client, match_id)) >= 1)
    at = resolutions(client, match_id)[-1]
    for version, text, code in (
        (1, "the match was created wrong", grpc.StatusCode.INVALID_ARGUMENT),
        (at, "x" * 1001, grpc.StatusCode.INVALID_ARGUMENT),
        (at, "   ", grpc.StatusCode.INVALID_ARGUMENT),
        (10_000, "from the future", grpc.StatusCode.INVALID_ARGUMENT),
    ):
        with pytest.raises(grpc.RpcError) as refused:
            client.file_dispute(match_id, tokens["ann"], version, text)
        assert refused.value.code() == code
    for n in range(3):
        client.file_dispute(match_id, tokens["ann"], at, f"complaint {n}")
    with pytest.raises(grpc.RpcError) as flood:
        client.file_dispute(match_id, tokens["ann"], at, "one more")
    assert flood.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert client.file_dispute(match_id, tokens["bob"], at, "bob's own").dispute_id.endswith(".4")
    with pytest.raises(grpc.RpcError) as spectator:
        client.file_dispute(match_id, "Spectator", at, "I only watch")
    assert spectator.value.code() in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED)


def test_verify_catches_a_decided_dispute_whose_records_were_edited_and_re_chained_with_the_key(
    server: ServerThread,
) -> None:
    client = server.client()
    match_id, host, tokens = seated(client, "cookoff", ["ann", "bob"], COOKOFF)
    play(client, match_id, tokens, lambda s: len(resolutions(client, match_id)) >= 1)
    at = resolutions(client, match_id)[-1]
    filed = client.file_dispute(match_id, tokens["ann"], at, "I sent no one")
    client.decide_dispute(
        filed.dispute_id, "correct", "she sent no one", {"ann": "I will send no workers."}, token=host
    )
    assert client.verify(match_id, host).ok
    path = Path(server.settings.var_dir) / "matches.db"
    stored = storefile.records(path, match_id)
    decided_at = next(v for v, r in enumerate(stored, start=1) if r["kind"] == "dispute_decided")
    # An insider with the disk and the chain key says the host replaced bob's input instead, and re-chains.
    edited = [dict(r) for r in stored]
    edited[decided_at - 1]["replacements"] = {"bob": "I will send no workers."}
    key = chainkey.load_or_create(server.settings.var_dir)
    bodies = [{k: v for k, v in r.items() if k not in ("hash", "prev", "key_id")} for r in edited[decided_at - 1 :]]
    for version, body in enumerate(chain(stored[decided_at - 2]["hash"], bodies, key), start=decided_at):
        storefile.rewrite(path, match_id, version, lambda _, body=body: body)
    report = client.verify(match_id, host)
    assert not report.ok and f"dispute {filed.dispute_id}" in report.problem
