"""Example bots for The Last Gathering: pure functions of the player's own view (a JSON dict).

Each returns the text command to submit now, or None when its orders for this phase are all pending
and it has asked to end early.
"""

from __future__ import annotations

import random
from typing import Any

from engine.last_gathering.board import ROTATIONS, PlacedTile, place, sections, spot_index
from engine.last_gathering.scoring import score_board, settled_loose_ends

NAMES = ("random_bot", "greedy_bot")  # this module's bots: the plainest first, the strongest last

View = dict[str, Any]


def _done(you: dict[str, Any]) -> bool:
    pending = you["pending"]
    return bool(you["must_submit"]) and all(pending[o] is not None for o in you["must_submit"]) and you["end_early"]


def random_bot(view: View, player: str, rng: random.Random) -> str | None:
    """Legal random orders: a random frame, small random bids, random spots and rotations."""
    you = view.get("you")
    if not you or not you["must_submit"] or _done(you):
        return None
    orders: list[str] = []
    garnets = you["garnets"]
    if "frame_bid" in you["must_submit"]:
        orders.append(f"bid {rng.randint(0, min(garnets, 3))} on frame {rng.choice(view['open_frames'])}")
    if "tile_bid" in you["must_submit"]:
        kind = rng.choice(view["available_kinds"])
        bid = rng.randint(0, min(garnets, 4))
        if garnets >= bid + 3 and rng.random() < 0.2:
            orders.append(f"bid {bid} {kind} with sheep on {rng.choice(sections(kind))}")
        else:
            orders.append(f"bid {bid} {kind}")
    if "placement" in you["must_submit"]:
        orders.append(f"place {rng.choice(you['empty_spots'])} rotate {rng.choice(ROTATIONS)}")
    return "; ".join([*orders, "end early"])


def _own_board(view: View, player: str) -> tuple[PlacedTile | None, ...]:
    me = next(p for p in view["players"] if p["name"] == player)
    board: list[PlacedTile | None] = [None] * 16
    for item in me["board"]:
        board[spot_index(item["spot"])] = PlacedTile(item["kind"], item["rotation"], item["sheep"])
    return tuple(board)


def _value(board: tuple[PlacedTile | None, ...], frame: frozenset[str]) -> float:
    """Higher is better. Near the end, the real score with the last empty spot as the lake; before,
    fewer loose ends that no later tile can fix."""
    empty = [i for i, t in enumerate(board) if t is None]
    if len(empty) <= 1:
        return float(score_board(board, frame).score)
    return -float(settled_loose_ends(board, frame))


def best_placement(
    board: tuple[PlacedTile | None, ...], frame: frozenset[str], kind: str, sheep: str | None, rng: random.Random
) -> tuple[float, str, int]:
    best: list[tuple[float, str, int]] = []
    for index, tile in enumerate(board):
        if tile is not None:
            continue
        spot = "ABCD"[index % 4] + str(index // 4 + 1)
        for rotation in ROTATIONS:
            value = _value(place(board, spot, PlacedTile(kind, rotation, sheep)), frame)
            best.append((value, spot, rotation))
    top = max(v for v, _, _ in best)
    return rng.choice([b for b in best if b[0] == top])


def greedy_bot(view: View, player: str, rng: random.Random) -> str | None:
    """Places where the fewest unfixable loose ends appear (the true score for the last tile) and bids
    for the kind that suits its own board best."""
    you = view.get("you")
    if not you or not you["must_submit"] or _done(you):
        return None
    garnets = you["garnets"]
    orders: list[str] = []
    if "frame_bid" in you["must_submit"]:
        # More frame spokes close more regions: prefer the fullest frame still offered.
        frame = max(view["open_frames"], key=lambda f: (len(view["frames"][f]), f))
        orders.append(f"bid {min(garnets, 2)} on frame {frame}")
        return "; ".join([*orders, "end early"])
    board = _own_board(view, player)
    frame_spokes = frozenset(view["frames"][you["frame"]])
    if "placement" in you["must_submit"]:
        tile = view["tile_to_place"]
        _, spot, rotation = best_placement(board, frame_spokes, tile["kind"], tile["sheep"], rng)
        board = place(board, spot, PlacedTile(tile["kind"], rotation, tile["sheep"]))
        orders.append(f"place {spot} rotate {rotation}")
    if "tile_bid" in you["must_submit"]:
        options = [(best_placement(board, frame_spokes, kind, None, rng)[0], kind) for kind in view["available_kinds"]]
        top = max(v for v, _ in options)
        kind = rng.choice([k for v, k in options if v == top])
        bid = min(garnets, 1 + garnets // 6)
        orders.append(f"bid {bid} {kind}")
    return "; ".join([*orders, "end early"])
