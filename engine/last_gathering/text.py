"""Text commands as players write them; the canonical forms (what `format_command` writes) are

bid 3 on frame F2         (also `bid 3 garnets for the frame f2`, `bid 3 on F2`)
bid 3 junction            bid 5 bend with sheep on A    (kinds by name or letter: - I L T +; the text's own
                          `bid 3 garnets to choose a junction (T) tile with an extra sheep on section B`)
place B3 rotate 90        (`place the tile at B3, rotated 90 degrees clockwise`; spots A1-D4, rotation
                          0/90/180/270 clockwise, or counter-clockwise turned into clockwise)
end early

Several orders per message; quotes, lead-ins such as `I` or `I'd like to`, and separators are read by
engine/phrasing.py. A frame named without the word `frame` must be one of the match's frames; a name
that is both a frame and a tile kind is refused with both readings.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.errors import MalformedCommand
from engine.last_gathering.board import KIND_LETTERS, ROTATIONS, SPOTS
from engine.last_gathering.commands import FrameBid, Placement, Submit, TileBid
from engine.last_gathering.config import DEFAULT_FRAMES, KINDS
from engine.last_gathering.state import Phase, State
from engine.phrasing import EndEarly, NotUnderstood, Phrase, did_you_mean, read

EXPECTED = (
    "expected orders such as 'bid 3 on frame F2', 'bid 3 junction', 'bid 5 bend with sheep on A',"
    " 'place B3 rotate 90' or 'end early', joined by ';', ',' or new lines"
)
# The sentences as templates, in format_command's canonical words (the contract's `forms`).
FRAME_BID_FORM = "bid N on frame FRAME"
TILE_BID_FORMS = ("bid N KIND", "bid N KIND with sheep on SECTION")
PLACE_FORM = "place SPOT rotate R"
END_EARLY_FORM = "end early"
_BID = r"bid\s+(?P<bid>\S+)(?:\s+garnets?)?"
FRAME_BID = re.compile(_BID + r"\s+(?:on|for)\s+(?:the\s+)?frame\s+(?P<frame>.+)")
NAMED_BID = re.compile(_BID + r"\s+(?:on|for)\s+(?:the\s+)?(?P<frame>.+)")
TILE_BID = re.compile(
    _BID
    + r"(?:\s+(?:on|for|to\s+(?:choose|pick|get|take)|choosing))?(?:\s+(?:an?|the))?\s+(?P<kind>[^\s(]+)"
    + r"(?:\s*\((?P<letter>[^)\s]+)\))?(?:\s+tile)?"
    + r"(?:\s+(?:(?:with|and|plus)\s+(?:an?\s+)?(?:extra\s+)?sheep\s+(?:on|in)\s+(?:section\s+)?(?P<sheep>\S+)"
    + r"|(?P<unpopulated>(?:with\s+)?no\s+(?:extra\s+)?sheep|without\s+(?:an?\s+)?(?:extra\s+)?sheep)))?"
)
PLACE = re.compile(
    r"(?:place|put|lay)\s+(?:(?:the|my|this|it)\s+)?(?:tile\s+)?(?:(?:at|on|in|to|onto|into)\s+)?"
    r"(?:(?:the\s+)?(?:spot|square|position)\s+)?(?P<spot>\S+)"
    r"(?:\s+(?:(?:and\s+)?(?:with\s+)?(?:a\s+)?(?:rotated|rotate|rotation|rotating|turned|turn)\s+(?:of\s+|by\s+)?)?"
    r"(?P<rot>\d+)\s*(?:°|degrees?|deg)?"
    r"(?:\s+(?:(?P<cw>clockwise|cw)|(?P<ccw>counter-?clockwise|anti-?clockwise|ccw)))?"
    r"|\s+(?:(?:with\s+)?no\s+rotation|not\s+rotated|unrotated))?"
)
KIND_WORDS = {**{kind: kind for kind in KINDS}, **{letter.lower(): kind for letter, kind in KIND_LETTERS.items()}}

Order = FrameBid | TileBid | Placement | EndEarly


def _whole(phrase: Phrase, token: str) -> int:
    if not re.fullmatch(r"\d+", token):
        raise MalformedCommand(f"{token!r} is not a whole number of garnets in {phrase.original!r}; {EXPECTED}")
    return int(token)


def _kind(phrase: Phrase, word: str, letter: str | None) -> str | None:
    kind = KIND_WORDS.get(word)
    if kind is not None and letter is not None and KIND_WORDS.get(letter) != kind:
        raise MalformedCommand(f"{word} ({letter}) names two tile kinds in {phrase.original!r}; {EXPECTED}")
    return kind


def _frames(state: State | None) -> dict[str, str]:
    """The match's frame names, keyed by their upper-case spelling with spaces collapsed."""
    names = state.config.frame_names if state is not None else tuple(DEFAULT_FRAMES)
    return {" ".join(name.upper().split()): name for name in names}


def _tile_bid(phrase: Phrase, frames: dict[str, str]) -> TileBid | None:
    m = TILE_BID.fullmatch(phrase.words)
    if m is None:
        return None
    kind = _kind(phrase, m["kind"], m["letter"])
    if kind is None:
        raise MalformedCommand(
            f"unknown tile kind {m['kind']!r} in {phrase.original!r}: the kinds are {', '.join(KINDS)} (or - I L T +)"
            f" and the frames of this match are {', '.join(frames.values())}; {EXPECTED}"
        )
    return TileBid(_whole(phrase, m["bid"]), kind, m["sheep"].upper() if m["sheep"] else None)


def _placement(phrase: Phrase, m: re.Match[str]) -> Placement:
    spot = m["spot"].upper()
    if spot not in SPOTS:
        raise MalformedCommand(f"{spot!r} in {phrase.original!r} is not a spot (A1 to D4); {EXPECTED}")
    rotation = int(m["rot"] or 0)
    if rotation not in ROTATIONS:
        raise MalformedCommand(f"rotation {rotation} in {phrase.original!r} is not 0, 90, 180 or 270 (clockwise)")
    return Placement(spot, (360 - rotation) % 360 if m["ccw"] else rotation)


def _reader(state: State | None) -> Callable[[Phrase], Order]:
    frames = _frames(state)

    def read_order(phrase: Phrase) -> Order:
        words = phrase.words
        if end := EndEarly.read(words):
            return end
        if (m := FRAME_BID.fullmatch(words)) and (
            " ".join(m["frame"].upper().split()) in frames or " " not in m["frame"]
        ):
            # A frame the match lacks is still a frame bid (refused by LG-4), but only as one word.
            name = " ".join(m["frame"].upper().split())
            return FrameBid(frames.get(name, name), _whole(phrase, m["bid"]))
        named = NAMED_BID.fullmatch(words)
        frame = frames.get(" ".join(named["frame"].upper().split())) if named else None
        if named and frame is not None:
            bid = FrameBid(frame, _whole(phrase, named["bid"]))
            tile = _tile_bid(phrase, frames) if named["frame"] in KIND_WORDS else None
            if tile is not None:  # a frame named like a tile kind: two readings
                raise did_you_mean(phrase.original, [_order_text(bid), _order_text(tile)])
            return bid
        if tile := _tile_bid(phrase, frames):
            return tile
        if m := PLACE.fullmatch(words):
            return _placement(phrase, m)
        raise NotUnderstood(f"could not understand {phrase.original!r}; {EXPECTED}")

    return read_order


def _order_text(order: Order) -> str:
    if isinstance(order, FrameBid):
        return format_command(Submit(frame_bid=order))
    if isinstance(order, TileBid):
        return format_command(Submit(tile_bid=order))
    if isinstance(order, Placement):
        return format_command(Submit(placement=order))
    return "end early"


def _describe(orders: list[Order]) -> str:
    return "; ".join(_order_text(o) for o in orders)


def parse(state: State | None, text: str) -> Submit:
    frame_bid: FrameBid | None = None
    tile_bid: TileBid | None = None
    placement: Placement | None = None
    end_early = False
    readings = read(text, _reader(state), _describe)
    if not readings:
        raise MalformedCommand(f"an empty submission; {EXPECTED}")
    for reading in readings:
        order, part = reading.order, reading.original
        if isinstance(order, FrameBid):
            if frame_bid is not None:
                raise MalformedCommand(f"two frame bids in one submission: {part!r}; send one")
            frame_bid = order
        elif isinstance(order, TileBid):
            if tile_bid is not None:
                raise MalformedCommand(f"two tile bids in one submission: {part!r}; send one")
            tile_bid = order
        elif isinstance(order, Placement):
            if placement is not None:
                raise MalformedCommand(f"two placements in one submission: {part!r}; send one")
            placement = order
        else:
            end_early = True
    return Submit(frame_bid, tile_bid, placement, end_early)


def format_command(command: Submit) -> str:
    parts = []
    if command.frame_bid is not None:
        parts.append(f"bid {command.frame_bid.bid} on frame {command.frame_bid.frame}")
    if command.tile_bid is not None:
        bid = command.tile_bid
        parts.append(f"bid {bid.bid} {bid.kind}" + (f" with sheep on {bid.sheep}" if bid.sheep else ""))
    if command.placement is not None:
        parts.append(f"place {command.placement.spot} rotate {command.placement.rotation}")
    if command.end_early:
        parts.append("end early")
    return "; ".join(parts)


def forms(state: State, sheep_cost: int) -> tuple[str, ...]:
    """The open phase's sentences as templates, with the public choices (frames still offered, kinds still
    available); a message may join them with ';' (LG-10: each replaces the pending order of its kind)."""
    out: list[str] = []
    if state.phase == Phase.FRAMES:
        out.append(f"{FRAME_BID_FORM} (FRAME one of {', '.join(state.open_frames)}; N garnets, 0 or more)")
    if state.auction_open:
        kinds = ", ".join(state.available_kinds)
        bid, sheep = TILE_BID_FORMS
        out += [
            f"{bid} (KIND one of {kinds}; N garnets, 0 or more)",
            f"{sheep} (the sheep costs {sheep_cost} garnets more)",
        ]
    if state.placement_open:
        out.append(f"{PLACE_FORM} (SPOT an empty spot of your board, A1 to D4; R 0, 90, 180 or 270 clockwise)")
    return (*out, END_EARLY_FORM) if out else ()
