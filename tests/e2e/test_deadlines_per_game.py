"""Each game's deadline behaviour over a real server, with a controllable match clock."""

from __future__ import annotations

import json
from typing import Any

from clients.client import MatchClient
from server.clock import ManualClock
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

DAY = 24 * 3600


def game_events(client: MatchClient, match_id: str, token: str, kind: str) -> list[dict[str, Any]]:
    records = [json.loads(event.json) for event in client.history(match_id, token)]
    return [r["event"] for r in records if r["kind"] == "game" and r["event"]["type"] == kind]


def seat(client: MatchClient, game: str, players: list[str]) -> tuple[str, str, dict[str, str]]:
    created = client.create(game, players, seed=17)
    tokens = {player: client.join(created.match_id, player) for player in players}
    return created.match_id, created.host_token, tokens


def test_last_gathering_missed_bid_and_placement_get_recorded_random_defaults_that_replay(
    server: ServerThread, clock: ManualClock
) -> None:
    client = server.client()
    match_id, host, tokens = seat(client, "last-gathering", ["a", "b", "c", "d"])
    first = client.state(match_id, host).status.deadline  # LG-13: the first noon UTC 48 h or more on
    clock.advance(first - clock.now() + 1)  # nobody bid for a frame: every non-bidder gets a random frame
    wait_until(lambda: game_events(client, match_id, host, "frame_round_resolved"), "the deadline applied")
    client.submit(match_id, tokens["a"], text="bid 1 junction")
    clock.advance(DAY + 1)
    wait_until(lambda: game_events(client, match_id, host, "step_resolved"), "the deadline applied")
    client.submit(match_id, tokens["a"], text="place A1 rotate 90")
    clock.advance(DAY + 1)
    wait_until(
        lambda: len(game_events(client, match_id, host, "step_resolved")) == 2, "the server applied the deadline"
    )
    first, second = game_events(client, match_id, host, "step_resolved")
    assert [bid["defaulted"] for bid in first["bids"]] == [False, True, True, True]
    assert all(bid["bid"] == 0 and bid["sheep"] is None for bid in first["bids"][1:])
    placements = {p["player"]: p for p in second["placements"]}
    assert placements["a"] == {"player": "a", "spot": "A1", "rotation": 90, "defaulted": False}
    assert all(placements[p]["defaulted"] and placements[p]["rotation"] in (0, 90, 180, 270) for p in "bcd")
    report = client.verify(match_id, host)  # re-deciding from the seed draws the same defaults
    assert report.ok and report.checked_batches >= 5


def test_mining_orders_missing_at_the_deadline_move_every_miner_one_space(
    server: ServerThread, clock: ManualClock
) -> None:
    client = server.client()
    players = ["a", "b", "c", "d", "e"]
    match_id, host, tokens = seat(client, "mining", players)
    for index, player in enumerate(players):
        starts = "; ".join(f"start {miner} {index + offset + 1}" for offset, miner in enumerate("bcpst"))
        client.submit(match_id, tokens[player], text=starts)
    clock.advance(DAY + 1)
    wait_until(lambda: game_events(client, match_id, host, "round_opened"), "the deadline applied")
    client.submit(match_id, tokens["a"], text="move b 2; move c 2; move p 2; move s 4; move t 3")
    clock.advance(DAY + 1)
    wait_until(lambda: game_events(client, match_id, host, "round_resolved"), "the deadline applied")
    resolved = game_events(client, match_id, host, "round_resolved")[0]
    assert resolved["defaulted"] == ["b", "c", "d", "e"]  # MN-P1
    assert resolved["orders"]["b"]["moves"] == dict.fromkeys("bcpst", 1)
    assert resolved["orders"]["a"]["moves"]["s"] == 4
    assert client.verify(match_id, host).ok


def test_cookoff_a_player_out_of_reserve_loses_while_the_other_wins(server: ServerThread, clock: ManualClock) -> None:
    client = server.client()
    match_id, host, tokens = seat(client, "cookoff", ["ann", "bob"])
    view = client.state(match_id, tokens["ann"]).view
    assert "reserve" in json.dumps(view)  # a bot can budget its time
    client.submit(match_id, tokens["ann"], text="I will not send any workers.")
    clock.advance(60 + 180 + 1)  # bob's base time and all of his reserve
    wait_until(lambda: client.state(match_id, host).status.finished, "the deadline applied")
    final = client.state(match_id, host)
    assert final.results["winner"] == "ann"
    assert final.results["lost_on_time"] == ["bob"]
    assert client.verify(match_id, host).ok


def test_a_phase_ends_early_when_everyone_submitted_and_asked_to(server: ServerThread, clock: ManualClock) -> None:
    client = server.client()
    match_id, host, tokens = seat(client, "last-gathering", ["a", "b", "c", "d"])
    for index, player in enumerate("abcd"):
        client.submit(match_id, tokens[player], text=f"bid {index} on frame F{index + 1}; end early")
    resolved = game_events(client, match_id, host, "frame_round_resolved")
    assert resolved and resolved[0]["missed"] == []
    state = client.state(match_id, host)
    assert "step 1" in state.status.phase or "auction" in state.status.phase
