"""What each viewer may see (rule text: boards public at the start of each round; LG-8: bids sealed).

Public: everyone's garnets, frames and boards as of the last resolved step, resolved bids, and THAT a
player has submitted. Private until the step resolves: the pending orders, seen only by their owner and
the host.
"""

from __future__ import annotations

import copy
import json

from engine.contract import Event, Json, Viewer
from engine.last_gathering.board import SPOTS, Board, empty_spots
from engine.last_gathering.rules import frame_bid_json, placement_json, tile_bid_json, tile_json
from engine.last_gathering.state import Phase, PlayerState, State


def phase_text(state: State) -> str:
    if state.phase == Phase.FRAMES:
        return f"frame round {state.frame_round}"
    if state.phase == Phase.STEPS:
        parts = []
        if state.auction_open:
            parts.append(f"auction {state.step}")
        if state.placement_open:
            parts.append(f"placement {state.step - 1}")
        return f"step {state.step}: {' and '.join(parts)}"
    if state.phase == Phase.OVER:
        return "finished"
    return "setting up"


def board_json(board: Board) -> list[dict[str, Json]]:
    return [
        {"spot": SPOTS[i], "kind": t.kind, "rotation": t.rotation, "sheep": t.sheep}
        for i, t in enumerate(board)
        if t is not None
    ]


def pending_json(player: PlayerState) -> dict[str, Json]:
    return {
        "frame_bid": frame_bid_json(player.pending.frame_bid),
        "tile_bid": tile_bid_json(player.pending.tile_bid),
        "placement": placement_json(player.pending.placement),
        "end_early": player.pending.end_early,
    }


def must_submit(state: State, name: str) -> list[str]:
    if state.phase == Phase.FRAMES and state.player(name).frame is None:
        return ["frame_bid"]
    if state.phase == Phase.STEPS:
        return (["tile_bid"] if state.auction_open else []) + (["placement"] if state.placement_open else [])
    return []


def view(state: State, viewer: Viewer, results: dict[str, Json] | None = None) -> dict[str, Json]:
    acting = state.acting()
    out: dict[str, Json] = {
        "game": "last-gathering",
        "phase": state.phase.value,
        "status": phase_text(state),
        "frame_round": state.frame_round,
        "step": state.step,
        "rounds": state.config.rounds,
        "deadline": state.deadline,
        "auction_open": state.auction_open,
        "placement_open": state.placement_open,
        "tile_to_place": tile_json(state.tile_to_place) if state.placement_open else None,
        "supply": dict(state.supply),
        "available_kinds": list(state.available_kinds),
        "tiebreak_order": list(state.order),
        "frames": {name: sorted(spokes) for name, spokes in state.config.frames},
        "open_frames": list(state.open_frames),
        "players": [
            {
                "name": p.name,
                "garnets": p.garnets,
                "frame": p.frame,
                "board": board_json(p.board),
                "empty_spots": list(empty_spots(p.board)),
                "submitted": p.name in acting and state.complete(p.name),
            }
            for p in state.players
        ],
        "auctions": [
            {"step": a.step, "winner": a.winner, "kind": a.kind, "sheep": a.sheep, "paid": a.paid}
            for a in state.auctions
        ],
        "last_resolution": copy.deepcopy(state.last_resolution),  # a copy: the event itself stays untouched
        "you": None,
    }
    if viewer.kind == "player" and viewer.player in state.config.players:
        me = state.player(viewer.player)
        out["you"] = {
            "player": me.name,
            "garnets": me.garnets,
            "frame": me.frame,
            "empty_spots": list(empty_spots(me.board)),
            "must_submit": must_submit(state, me.name),
            "pending": pending_json(me),
            "end_early": me.pending.end_early,
            "submitted": me.name in acting and state.complete(me.name),
        }
    if viewer.is_host:
        out["pending"] = {p.name: pending_json(p) for p in state.players}
    if results is not None:
        out["results"] = results
    return out


def redact(state: State, event: Event, viewer: Viewer) -> Event:
    """Sealed orders reach only their owner and the host; others learn only THAT the player submitted."""
    if event["type"] != "orders_submitted" or viewer.is_host or viewer.is_player(event["player"]):
        return event
    return {"type": "orders_submitted", "player": event["player"], "sealed": True}


def results(state: State) -> dict[str, Json]:
    """Every player's garnets and frame; once over, the ranking with scores, lakes and regions (LG-6)."""
    rows: list[Json] = []
    if state.final is None:
        for p in state.players:
            rows.append({"player": p.name, "rank": None, "score": None, "garnets": p.garnets, "frame": p.frame})
        return {"results": rows, "tiebreak_order": list(state.order)}
    final = json.loads(state.final)
    scores = {s["player"]: s for s in final["scores"]}
    lakes = final["lakes"]
    for rank, name in enumerate(final["ranking"], start=1):
        p = state.player(name)
        rows.append(
            {
                "player": name,
                "rank": rank,
                "score": scores[name]["score"],
                "garnets": p.garnets,
                "frame": p.frame,
                "lake": lakes[name],
                "regions": scores[name]["regions"],
            }
        )
    return {"results": rows, "tiebreak_order": list(state.order)}
