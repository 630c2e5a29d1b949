"""Shared set-ups for The Last Gathering tests (a plain module, imported by the test modules beside it)."""

from __future__ import annotations

from typing import Any

from engine.contract import Event
from engine.errors import GameError
from engine.last_gathering import GAME
from engine.last_gathering.board import SPOTS, Board, PlacedTile
from engine.last_gathering.config import FRAME_SPOKES
from engine.match import LocalMatch

PLAYERS = ("Ann", "Bob", "Cy", "Di")
ALL_SPOKES = frozenset(FRAME_SPOKES)


def new_match(players: tuple[str, ...] = PLAYERS, seed: int = 1, now: float = 0.0, **overrides: Any) -> LocalMatch:
    config = GAME.default_config(list(players))
    config.update(overrides)
    return LocalMatch(GAME, config, seed, now=now)


def frames_done(match: LocalMatch) -> LocalMatch:
    """Everyone bids 0 on a different frame and ends early: the match reaches step 1."""
    for player, frame in zip(GAME.players(match.state), ("F1", "F2", "F3", "F4", "F5", "F6"), strict=False):
        match.submit_text(player, f"bid 0 on frame {frame}; end early")
    assert match.state.step == 1
    return match


def in_steps(players: tuple[str, ...] = PLAYERS, seed: int = 1, **overrides: Any) -> LocalMatch:
    return frames_done(new_match(players, seed, **overrides))


def everyone(match: LocalMatch, texts: dict[str, str]) -> list[Event]:
    events: list[Event] = []
    for player, text in texts.items():
        events += match.submit_text(player, text)
    return events


def refused(match: LocalMatch, player: str, text: str) -> GameError:
    """Submit `text`, expecting a refusal that appends no event and changes nothing."""
    before_events, before_state = list(match.events), match.state
    try:
        match.submit_text(player, text)
    except GameError as exc:
        assert match.events == before_events
        assert match.state == before_state
        return exc
    raise AssertionError(f"{text!r} by {player} was accepted")


def board_of(tiles: dict[str, tuple[str, int] | tuple[str, int, str | None]]) -> Board:
    """A board from {"B3": ("junction", 90), "A1": ("cross", 0, "A"), ...}; other spots empty."""
    board: list[PlacedTile | None] = [None] * 16
    for spot, spec in tiles.items():
        kind, rotation, *sheep = spec
        board[SPOTS.index(spot)] = PlacedTile(kind, rotation, sheep[0] if sheep else None)
    return tuple(board)


def crosses_except(tiles: dict[str, tuple[str, int] | tuple[str, int, str | None]], lake: str) -> Board:
    """Crosses everywhere but the lake spot and the given tiles."""
    spec: dict[str, tuple[str, int] | tuple[str, int, str | None]] = {s: ("cross", 0) for s in SPOTS if s != lake}
    spec.update(tiles)
    return board_of(spec)


def last(events: list[Event], kind: str) -> Event:
    return [e for e in events if e["type"] == kind][-1]
