"""decide / timeout / evolve: the orders of play (LG-8), auctions, placements, and the end (LG-6).

Every random default is drawn here from ctx.rng and written into the event that applies it (LG-9);
`evolve` only reads events.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

from engine.contract import Context, Event
from engine.errors import InvalidConfig, MalformedCommand, RuleViolation
from engine.frozen import replace
from engine.last_gathering.board import (
    KIND_LETTERS,
    ROTATIONS,
    SPOTS,
    PlacedTile,
    Tile,
    empty_spots,
    place,
    sections,
    spot_index,
)
from engine.last_gathering.commands import FrameBid, Placement, Submit, TileBid
from engine.last_gathering.config import KINDS
from engine.last_gathering.scoring import score_board
from engine.last_gathering.state import AuctionResult, Pending, Phase, PlayerState, State

POPULATE_COST = 3


# ---------------------------------------------------------------- orders <-> JSON


def frame_bid_json(bid: FrameBid | None) -> dict[str, Any] | None:
    return None if bid is None else {"frame": bid.frame, "bid": bid.bid}


def tile_bid_json(bid: TileBid | None) -> dict[str, Any] | None:
    return None if bid is None else {"bid": bid.bid, "kind": bid.kind, "sheep": bid.sheep}


def placement_json(placement: Placement | None) -> dict[str, Any] | None:
    return None if placement is None else {"spot": placement.spot, "rotation": placement.rotation}


def tile_json(tile: Tile | None) -> dict[str, Any] | None:
    return None if tile is None else {"kind": tile.kind, "sheep": tile.sheep}


def describe_tile(kind: str, sheep: str | None) -> str:
    return f"{kind} with an extra sheep on {sheep}" if sheep else kind


# ---------------------------------------------------------------- decide


def start(state: State, ctx: Context) -> list[Event]:
    config = state.config
    deadline = ctx.now + config.first_frame_round_seconds
    if config.grid and config.first_deadline_at is not None:
        if config.first_deadline_at <= ctx.now:
            raise InvalidConfig(
                f"first_deadline_at {utc_text(config.first_deadline_at)} is not after the match's start at"
                f" {utc_text(ctx.now)}: give a later UTC time, or none for the start plus first_frame_round_seconds"
            )
        deadline = config.first_deadline_at  # LG-12: the host anchors the grid at a UTC time
    elif config.noon and config.step_seconds == DAY:
        deadline = first_noon_utc(deadline)  # LG-13: the text's "usual time"; a host's own period keeps LG-12's
    return [{"type": "frame_round_opened", "round": 1, "deadline": deadline}]


DAY = 24 * 3600
NOON = 12 * 3600


def first_noon_utc(earliest: float) -> float:
    """The first noon UTC at or after `earliest` (match-clock seconds are Unix seconds on a live server)."""
    return NOON + math.ceil((earliest - NOON) / DAY) * DAY


def utc_text(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


GRID_SLACK = 1e-6  # seconds: a phase opening on a grid point (a timeout at its deadline) is not pushed a period on


def next_deadline(state: State, now: float, duration: float) -> float:
    """The deadline of a phase opening at `now`.

    Rules version 2, LG-12: the first grid point (the first frame deadline plus a whole number of
    `step_seconds`, before or after it) at least `duration` after `now`; so an early end never moves later
    deadlines, and a phase lasts at least its duration and less than its duration plus one period.
    Rules version 1, LG-P4: `now` plus `duration`.
    """
    anchor = state.grid_anchor
    if not state.config.grid or anchor is None:
        return now + duration
    period = state.config.step_seconds
    periods = math.ceil((now + duration - anchor - GRID_SLACK) / period)
    return anchor + periods * period


def normalize(command: Submit) -> Submit:
    """Shape checks (MalformedCommand) and canonical spellings, for commands built without `parse`."""
    if not isinstance(command, Submit):
        raise MalformedCommand(f"expected a Submit command, got {type(command).__name__}")
    if command.frame_bid is None and command.tile_bid is None and command.placement is None and not command.end_early:
        raise MalformedCommand("an empty submission: send a bid, a placement or 'end early'")
    frame_bid, tile_bid, placement = command.frame_bid, command.tile_bid, command.placement
    if frame_bid is not None:
        if frame_bid.bid < 0:
            raise MalformedCommand(f"a bid must be a whole number of garnets, at least 0, got {frame_bid.bid}")
        frame_bid = FrameBid(frame_bid.frame.strip(), frame_bid.bid)
    if tile_bid is not None:
        if tile_bid.bid < 0:
            raise MalformedCommand(f"a bid must be a whole number of garnets, at least 0, got {tile_bid.bid}")
        kind = tile_bid.kind.strip()
        kind = KIND_LETTERS.get(kind.upper() if kind != "-" else kind, kind.lower())
        if kind not in KINDS:
            raise MalformedCommand(f"unknown tile kind {tile_bid.kind!r}; expected one of {', '.join(KINDS)}")
        sheep = tile_bid.sheep.strip().upper() if tile_bid.sheep else None
        tile_bid = TileBid(tile_bid.bid, kind, sheep)
    if placement is not None:
        spot = placement.spot.strip().upper()
        if spot not in SPOTS:
            raise MalformedCommand(f"unknown spot {placement.spot!r}; spots are A1 to D4")
        if placement.rotation not in ROTATIONS:
            raise MalformedCommand(f"rotation must be 0, 90, 180 or 270, got {placement.rotation}")
        placement = Placement(spot, placement.rotation)
    return Submit(frame_bid, tile_bid, placement, command.end_early)


def check(state: State, player: str, command: Submit) -> None:
    """RuleViolation when the submission is well formed but not legal now."""
    if state.phase == Phase.FRAMES:
        _check_frame_round(state, player, command)
        return
    if command.frame_bid is not None:
        raise RuleViolation(f"the frame auction is over; {_takes(state)}", rule="LG-8")
    if command.tile_bid is not None:
        _check_tile_bid(state, player, command.tile_bid)
    if command.placement is not None:
        _check_placement(state, player, command.placement)


def _check_frame_round(state: State, player: str, command: Submit) -> None:
    me = state.player(player)
    if command.tile_bid is not None or command.placement is not None:
        raise RuleViolation(
            f"frame round {state.frame_round} takes only 'bid N on frame F' and 'end early';"
            " tile auctions and placements start once everyone has a frame",
            rule="LG-8",
        )
    bid = command.frame_bid
    if bid is not None:
        if bid.frame not in state.config.frame_names:
            raise RuleViolation(
                f"there is no frame {bid.frame!r}; offered: {', '.join(state.config.frame_names)}",
                rule="LG-4",
            )
        if bid.frame not in state.open_frames:
            raise RuleViolation(
                f"frame {bid.frame} is already taken; still offered: {', '.join(state.open_frames)}",
                rule="Frame",
            )
        if bid.bid > me.garnets:
            raise RuleViolation(f"a bid of {bid.bid} is more than your {me.garnets} garnets", rule="Auction phase")


def _check_tile_bid(state: State, player: str, tile_bid: TileBid) -> None:
    me = state.player(player)
    if not state.auction_open:
        raise RuleViolation(
            f"step {state.step} has no tile auction: all {state.config.rounds} auctions are over; {_takes(state)}",
            rule="LG-8",
        )
    if state.left(tile_bid.kind) <= 0:
        left = ", ".join(state.available_kinds)
        raise RuleViolation(
            f"the {tile_bid.kind} tiles have all been won; still available: {left}", rule="Auction phase"
        )
    cost = tile_bid.bid
    if tile_bid.sheep is not None:
        if tile_bid.sheep not in sections(tile_bid.kind):
            raise RuleViolation(
                f"a {tile_bid.kind} has sections {', '.join(sections(tile_bid.kind))}, not {tile_bid.sheep}",
                rule="LG-7",
            )
        cost += POPULATE_COST
    if cost > me.garnets:
        extra = f" plus {POPULATE_COST} for the sheep" if tile_bid.sheep else ""
        raise RuleViolation(
            f"a bid of {tile_bid.bid}{extra} is more than your {me.garnets} garnets", rule="Auction phase"
        )


def _check_placement(state: State, player: str, placement: Placement) -> None:
    me = state.player(player)
    if not state.placement_open:
        raise RuleViolation(
            f"step {state.step} has no tile to place yet: the first auction has not been resolved; {_takes(state)}",
            rule="LG-8",
        )
    if me.board[spot_index(placement.spot)] is not None:
        raise RuleViolation(
            f"spot {placement.spot} of your board already holds a tile; empty spots:"
            f" {', '.join(empty_spots(me.board))}",
            rule="Placement phase",
        )


def _takes(state: State) -> str:
    """What the open step takes, for a refusal of an order it does not (LG-8)."""
    orders = ["a tile bid ('bid 3 junction')"] if state.auction_open else []
    orders += ["a placement ('place B3 rotate 90')"] if state.placement_open else []
    return f"step {state.step} takes {', '.join(orders)} and 'end early'" if orders else "nothing is open"


def example_command(state: State, player: str) -> Submit | None:
    """What `player` could send now, every default of LG-9 being a random draw: a bid of 0 on the first
    frame still offered, or on the first kind still available, the tile at the first empty spot of
    `player`'s own board unrotated, and `end early` (LG-10), so that seats which all send it end the
    phase. Only public facts and `player`'s own board are read."""
    if state.phase == Phase.FRAMES:
        return Submit(frame_bid=FrameBid(state.open_frames[0], 0), end_early=True)
    if state.phase != Phase.STEPS:
        return None
    kinds = state.available_kinds
    tile_bid = TileBid(0, kinds[0]) if state.auction_open and kinds else None
    spots = empty_spots(state.player(player).board)
    placement = Placement(spots[0], 0) if state.placement_open and spots else None
    return Submit(tile_bid=tile_bid, placement=placement, end_early=True)


def decide(state: State, player: str, command: Submit, ctx: Context) -> list[Event]:
    command = normalize(command)
    if command.frame_bid is not None:  # frame names are case-insensitive, like every command word
        names = {name.upper(): name for name in state.config.frame_names}
        frame = names.get(command.frame_bid.frame.upper(), command.frame_bid.frame)
        command = replace(command, frame_bid=FrameBid(frame, command.frame_bid.bid))
    check(state, player, command)
    events: list[Event] = [
        {
            "type": "orders_submitted",
            "player": player,
            "frame_bid": frame_bid_json(command.frame_bid),
            "tile_bid": tile_bid_json(command.tile_bid),
            "placement": placement_json(command.placement),
            "end_early": command.end_early,
        }
    ]
    after = evolve(state, events[0])
    acting = after.acting()
    if all(after.complete(p) and after.player(p).pending.end_early for p in acting):
        events += resolve(after, ctx)  # LG-10: everyone submitted and asked to end early
    return events


def timeout(state: State, ctx: Context) -> list[Event]:
    if state.phase not in (Phase.FRAMES, Phase.STEPS):
        return []
    return resolve(state, ctx)


def resolve(state: State, ctx: Context) -> list[Event]:
    if state.phase == Phase.FRAMES:
        return resolve_frames(state, ctx)
    return resolve_step(state, ctx)


# ---------------------------------------------------------------- frame auction


def resolve_frames(state: State, ctx: Context) -> list[Event]:
    config = state.config
    acting = state.acting()
    bids = [(p, state.player(p).pending.frame_bid) for p in acting]
    placed = [(p, b) for p, b in bids if b is not None]
    missed = [p for p, b in bids if b is None]
    trace = [f"frame round {state.frame_round}: players without a frame: {', '.join(acting)}"]
    if placed:
        trace.append("sealed bids: " + ", ".join(f"{p} {b.bid} on {b.frame}" for p, b in placed))
    awards: list[dict[str, Any]] = []
    losers: list[str] = []
    order = state.order
    for frame in config.frame_names:
        bidders = [(p, b.bid) for p, b in placed if b.frame == frame]
        if not bidders:
            continue
        if len(bidders) == 1:
            awards.append({"player": bidders[0][0], "frame": frame, "paid": 0, "how": "sole bidder"})
            trace.append(f"{frame}: {bidders[0][0]} is the only bidder and gets it free (rule text: Frame)")
            continue
        ranked = sorted(
            bidders,
            key=lambda pb: (-pb[1], -config.starting_garnets[config.index(pb[0])], order.index(pb[0])),
        )
        winner, paid = ranked[0]
        tied = [p for p, b in bidders if b == paid]
        line = f"{frame}: bids " + ", ".join(f"{p} {b}" for p, b in bidders) + f"; highest {paid}"
        if len(tied) > 1:
            garnets = ", ".join(f"{p} {config.starting_garnets[config.index(p)]}" for p in tied)
            line += (
                f", tied between {', '.join(tied)}; starting garnets {garnets}; then the tiebreak order"
                f" {', '.join(order)} (LG-8)"
            )
        trace.append(f"{line}: {winner} pays {paid} and gets {frame} (rule text: Frame)")
        awards.append({"player": winner, "frame": frame, "paid": paid, "how": "highest bid"})
        losers += [p for p, _ in ranked[1:]]
    for p in losers:
        trace.append(f"{p} gets no frame and bids again on the frames left (rule text: Frame)")
    if missed and losers:
        trace.append(
            f"{', '.join(missed)} did not bid, and a bidder is left without a frame, so they get no frame"
            " and bid in the next round (rule text: Frame, LG-9)"
        )
    elif missed:
        remaining = [f for f in state.open_frames if f not in {a["frame"] for a in awards}]
        for p in [p for p in order if p in missed]:
            frame = ctx.rng.choice(remaining)
            remaining.remove(frame)
            awards.append({"player": p, "frame": frame, "paid": 0, "how": "random"})
            trace.append(
                f"{p} did not bid and every bidder has a frame: random remaining frame {frame} (rule text: Frame, LG-9)"
            )
    trace.append("frame rounds do not change the tiebreak order (LG-8)")
    resolved: Event = {
        "type": "frame_round_resolved",
        "round": state.frame_round,
        "bids": [{"player": p, "frame": b.frame, "bid": b.bid} for p, b in placed],
        "missed": missed,
        "awards": awards,
        "trace": trace,
    }
    after = evolve(state, resolved)
    if after.acting():
        deadline = next_deadline(state, ctx.now, config.frame_round_seconds)
        return [resolved, {"type": "frame_round_opened", "round": state.frame_round + 1, "deadline": deadline}]
    return [
        resolved,
        {"type": "step_opened", "step": 1, "deadline": next_deadline(state, ctx.now, config.step_seconds)},
    ]


# ---------------------------------------------------------------- steps: placement t-1, auction t


def resolve_step(state: State, ctx: Context) -> list[Event]:
    config = state.config
    trace: list[str] = []
    placements: list[dict[str, Any]] = []
    if state.placement_open and state.tile_to_place is not None:
        tile = state.tile_to_place
        trace.append(
            f"placement {state.step - 1}: everyone places the same tile, a {describe_tile(tile.kind, tile.sheep)}"
            " (rule text: Placement phase, LG-8)"
        )
        for p in config.players:
            me = state.player(p)
            chosen = me.pending.placement
            if chosen is None:
                spot = ctx.rng.choice(empty_spots(me.board))
                rotation = ctx.rng.choice(ROTATIONS)
                trace.append(f"{p} missed the placement: random empty spot {spot}, rotation {rotation} (LG-9)")
                placements.append({"player": p, "spot": spot, "rotation": rotation, "defaulted": True})
            else:
                trace.append(f"{p} places it at {chosen.spot} rotated {chosen.rotation}")
                placements.append({"player": p, "spot": chosen.spot, "rotation": chosen.rotation, "defaulted": False})
    bids: list[dict[str, Any]] = []
    winner: str | None = None
    paid = 0
    won: dict[str, Any] | None = None
    order_after = list(state.order)
    if state.auction_open:
        available = state.available_kinds
        for p in config.players:
            bid = state.player(p).pending.tile_bid
            if bid is None:
                kind = ctx.rng.choice(available)
                bids.append({"player": p, "bid": 0, "kind": kind, "sheep": None, "defaulted": True})
                trace.append(f"{p} missed the auction: bid 0, random available kind {kind}, no sheep (LG-9)")
            else:
                bids.append({"player": p, "bid": bid.bid, "kind": bid.kind, "sheep": bid.sheep, "defaulted": False})
        trace.append(
            f"auction {state.step}: bids "
            + ", ".join(f"{b['player']} {b['bid']} on {describe_tile(b['kind'], b['sheep'])}" for b in bids)
        )
        trace.append(f"tiebreak order before the auction: {', '.join(state.order)} (rule text: Tiebreaking order)")
        high = max(b["bid"] for b in bids)
        tied = [b["player"] for b in bids if b["bid"] == high]
        winner = min(tied, key=state.order.index)
        if len(tied) > 1:
            trace.append(
                f"highest bid {high}, tied between {', '.join(tied)}; tiebreak order {', '.join(state.order)}"
                f" consulted: {winner} is earliest and wins (LG-11)"
            )
        else:
            trace.append(f"highest bid {high}: {winner} wins (rule text: Auction phase)")
        winning = next(b for b in bids if b["player"] == winner)
        paid = winning["bid"] + (POPULATE_COST if winning["sheep"] else 0)
        garnets = state.player(winner).garnets
        if winning["sheep"]:
            trace.append(
                f"{winner} pays the bid {winning['bid']} + {POPULATE_COST} for the extra sheep = {paid};"
                f" {garnets} - {paid} = {garnets - paid} garnets left"
            )
        else:
            trace.append(f"{winner} pays the bid {paid}; {garnets} - {paid} = {garnets - paid} garnets left")
        order_after = [p for p in state.order if p != winner] + [winner]
        trace.append(
            f"{winner} moves to the end of the tiebreak order: {', '.join(order_after)} (rule text: Tiebreaking)"
        )
        left = state.left(winning["kind"]) - 1
        trace.append(f"{winning['kind']} may be won {left} more time(s) (rule text: Auction phase)")
        won = {"kind": winning["kind"], "sheep": winning["sheep"]}
    resolved: Event = {
        "type": "step_resolved",
        "step": state.step,
        "tile_placed": tile_json(state.tile_to_place) if placements else None,
        "placements": placements,
        "bids": bids,
        "winner": winner,
        "paid": paid,
        "tile": won,
        "order_before": list(state.order),
        "order_after": order_after,
        "trace": trace,
    }
    after = evolve(state, resolved)
    if state.step < config.steps:
        deadline = next_deadline(state, ctx.now, config.step_seconds)
        return [resolved, {"type": "step_opened", "step": state.step + 1, "deadline": deadline}]
    return [resolved, finish(after)]


def finish(state: State) -> Event:
    """LG-6: the last empty spot becomes the lake; score every board; rank by score then the order."""
    trace: list[str] = []
    lakes: dict[str, list[str]] = {}
    scores: list[dict[str, Any]] = []
    for p in state.config.players:
        me = state.player(p)
        lakes[p] = list(empty_spots(me.board))
        trace.append(f"{p}: the last empty spot {', '.join(lakes[p])} becomes the lake (LG-6)")
        result = score_board(me.board, state.config.frame_spokes(me.frame or ""))
        trace += result.trace(p)
        scores.append({"player": p, "score": result.score, "regions": [r.to_json() for r in result.regions]})
    ranking = sorted(state.config.players, key=lambda p: (-_score_of(scores, p), state.order.index(p)))
    trace.append(
        "ranking by score, ties by the tiebreak order after the last auction"
        f" {', '.join(state.order)} (LG-11): {', '.join(ranking)}"
    )
    return {"type": "match_finished", "lakes": lakes, "scores": scores, "ranking": ranking, "trace": trace}


def _score_of(scores: list[dict[str, Any]], player: str) -> int:
    return int(next(s["score"] for s in scores if s["player"] == player))


# ---------------------------------------------------------------- evolve


def evolve(state: State, event: Event) -> State:
    """Apply an event `decide` or `timeout` made: every value is in it and was checked when it was made."""
    kind = event["type"]
    if kind == "orders_submitted":
        index = state.config.index(event["player"])
        me = state.players[index]
        old = me.pending
        frame_bid = event["frame_bid"]
        tile_bid = event["tile_bid"]
        placement = event["placement"]
        pending = Pending(
            frame_bid=FrameBid(frame_bid["frame"], frame_bid["bid"]) if frame_bid else old.frame_bid,
            tile_bid=TileBid(tile_bid["bid"], tile_bid["kind"], tile_bid["sheep"]) if tile_bid else old.tile_bid,
            placement=Placement(placement["spot"], placement["rotation"]) if placement else old.placement,
            end_early=bool(event["end_early"]),
        )
        players = list(state.players)
        players[index] = replace(me, pending=pending)
        return replace(state, players=tuple(players))
    if kind == "step_opened":
        return replace(state, phase=Phase.STEPS, step=event["step"], deadline=event["deadline"])
    if kind == "step_resolved":
        seat_of = state.config.index
        players = list(state.players)
        placed = event["tile_placed"]
        for item in event["placements"]:
            at = seat_of(item["player"])
            tile = PlacedTile(placed["kind"], item["rotation"], placed["sheep"])
            players[at] = replace(players[at], board=place(players[at].board, item["spot"], tile))
        tile_to_place = None
        supply, auctions = state.supply, state.auctions
        if event["winner"] is not None:
            at = seat_of(event["winner"])
            players[at] = replace(players[at], garnets=players[at].garnets - event["paid"])
            won = event["tile"]
            tile_to_place = Tile(won["kind"], won["sheep"])
            supply = tuple((k, n - 1 if k == won["kind"] else n) for k, n in supply)
            result = AuctionResult(event["step"], event["winner"], won["kind"], won["sheep"], event["paid"])
            auctions = (*auctions, result)
        return replace(
            state,
            players=_cleared(players),
            supply=supply,
            auctions=auctions,
            order=tuple(event["order_after"]),
            tile_to_place=tile_to_place,
            last_resolution=event,
            deadline=None,
        )
    if kind == "frame_round_opened":
        if event["round"] == 1:  # LG-12: the grid starts at the first frame round's deadline
            return replace(
                state, phase=Phase.FRAMES, frame_round=1, deadline=event["deadline"], grid_anchor=event["deadline"]
            )
        return replace(state, phase=Phase.FRAMES, frame_round=event["round"], deadline=event["deadline"])
    if kind == "frame_round_resolved":
        players = list(state.players)
        for award in event["awards"]:
            at = state.config.index(award["player"])
            players[at] = replace(players[at], frame=award["frame"], garnets=players[at].garnets - award["paid"])
        return replace(state, players=_cleared(players), last_resolution=event, deadline=None)
    if kind == "match_finished":
        # Kept as its text: the decoded event (every region's cells) held four times its size in the state.
        return replace(state, phase=Phase.OVER, deadline=None, final=json.dumps(event, separators=(",", ":")))
    raise ValueError(f"unknown event type {kind!r}")


NO_ORDERS = Pending()


def _cleared(players: list[PlayerState]) -> tuple[PlayerState, ...]:
    """The players with no pending orders (a phase resolved), each replaced only if it had some."""
    return tuple(p if p.pending == NO_ORDERS else replace(p, pending=NO_ORDERS) for p in players)
