"""Text commands in the rule text's words (case-insensitive), several orders joined by ';' or new lines.

bid 3 on frame F2
bid 3 junction            bid 5 bend with sheep on A        (kinds also by letter: - I L T +)
place B3 rotate 90        (spots A1-D4, rotation clockwise 0/90/180/270)
end early
"""

from __future__ import annotations

import re

from engine.errors import MalformedCommand
from engine.last_gathering.board import KIND_LETTERS, ROTATIONS
from engine.last_gathering.commands import FrameBid, Placement, Submit, TileBid
from engine.last_gathering.state import State

EXPECTED = (
    "expected orders such as 'bid 3 on frame F2', 'bid 3 junction', 'bid 5 bend with sheep on A',"
    " 'place B3 rotate 90' or 'end early', joined by ';'"
)
_BID = r"bid\s+(?P<bid>\d+)(?:\s+garnets?)?"
_KIND = r"(?P<kind>end|straight|bend|junction|cross|-|i|l|t|\+)"
FRAME_BID = re.compile(_BID + r"\s+(?:on|for)\s+(?:the\s+)?frame\s+(?P<frame>\S+)")
TILE_BID = re.compile(
    _BID
    + r"(?:\s+(?:on|for|to\s+choose))?(?:\s+an?)?\s+"
    + _KIND
    + r"(?:\s+\((?:-|i|l|t|\+)\))?(?:\s+tile)?"
    + r"(?:\s+with\s+(?:an?\s+)?(?:extra\s+)?sheep\s+on\s+(?:section\s+)?(?P<sheep>[a-z]))?"
)
PLACE = re.compile(
    r"place\s+(?:at\s+|on\s+)?(?P<spot>[a-d][1-4])"
    r"(?:\s+(?:rotate|rotated|rotation)\s+(?P<rot>\d+)(?:\s+degrees)?(?:\s+clockwise)?)?"
)
END_EARLY = re.compile(r"end\s+early")


def _kind(word: str) -> str:
    return KIND_LETTERS.get(word.upper(), word) if word != "-" else "end"


def parse(state: State | None, text: str) -> Submit:
    frame_bid: FrameBid | None = None
    tile_bid: TileBid | None = None
    placement: Placement | None = None
    end_early = False
    parts = [part.strip() for part in re.split(r"[;\n]", text) if part.strip()]
    if not parts:
        raise MalformedCommand(f"an empty submission; {EXPECTED}")
    for part in parts:
        words = " ".join(part.lower().rstrip(".").split())
        if m := FRAME_BID.fullmatch(words):
            if frame_bid is not None:
                raise MalformedCommand(f"two frame bids in one submission: {part!r}; send one")
            frame = m["frame"].upper()
            if state is not None:
                frame = {n.upper(): n for n in state.config.frame_names}.get(frame, frame)
            frame_bid = FrameBid(frame, int(m["bid"]))
        elif m := TILE_BID.fullmatch(words):
            if tile_bid is not None:
                raise MalformedCommand(f"two tile bids in one submission: {part!r}; send one")
            sheep = m["sheep"].upper() if m["sheep"] else None
            tile_bid = TileBid(int(m["bid"]), _kind(m["kind"]), sheep)
        elif m := PLACE.fullmatch(words):
            if placement is not None:
                raise MalformedCommand(f"two placements in one submission: {part!r}; send one")
            rotation = int(m["rot"] or 0)
            if rotation not in ROTATIONS:
                raise MalformedCommand(f"rotation {rotation} in {part!r} is not 0, 90, 180 or 270 (clockwise)")
            placement = Placement(m["spot"].upper(), rotation)
        elif END_EARLY.fullmatch(words):
            end_early = True
        else:
            raise MalformedCommand(f"could not understand {part!r}; {EXPECTED}")
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
