"""A tiny two-phase game for platform tests: each round both players pick 1-3 in secret; the higher
pick scores. Three rounds. Missed picks default to a random 1-3 drawn from the match seed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.contract import Context, Event, Json, Status, Viewer
from engine.errors import InvalidConfig, MalformedCommand, RuleViolation


@dataclass(frozen=True, slots=True)
class Pick:
    number: int


@dataclass(frozen=True, slots=True)
class DuelState:
    players: tuple[str, ...]
    round: int = 0
    deadline: float | None = None
    picks: tuple[tuple[str, int], ...] = ()
    scores: tuple[tuple[str, int], ...] = ()
    duration: float = 60.0


class Duel:
    name = "duel"
    rules_version = "1"
    default_seats = 2
    allowed_seats = range(2, 3)
    wire_field = ""  # no typed command on the wire: a duel is played by text
    arena_formats = ("round-robin",)
    secret_config_keys = ()
    round_keys = ()
    phase_seconds_keys = ()  # its one phase length is not bounded by the server (a fixture)
    reserve_seconds_keys = ()
    command_types = (Pick,)

    def default_config(self, players: Sequence[str]) -> dict[str, Json]:
        return {"players": list(players), "duration": 60}

    def initial_state(self, config: Mapping[str, Json], seed: int) -> DuelState:
        players = tuple(config["players"])
        if len(players) != 2:
            raise InvalidConfig("duel needs exactly 2 players")
        return DuelState(players, duration=float(config["duration"]), scores=tuple((p, 0) for p in players))

    def start(self, state: DuelState, ctx: Context) -> list[Event]:
        return [{"type": "RoundOpened", "round": 1, "deadline": ctx.now + state.duration}]

    def parse(self, state: DuelState, player: str, text: str) -> Pick:
        words = text.lower().split()
        if len(words) != 2 or words[0] != "pick" or not words[1].isdigit():
            raise MalformedCommand(f"not understood: {text!r}; expected 'pick N'")
        return Pick(int(words[1]))

    def format(self, command: Pick) -> str:
        return f"pick {command.number}"

    def decide(self, state: DuelState, player: str, command: Any, ctx: Context) -> list[Event]:
        if not 1 <= command.number <= 3:
            raise RuleViolation(f"pick 1, 2 or 3, not {command.number}", rule="DUEL-1")
        events: list[Event] = [{"type": "Picked", "player": player, "number": command.number}]
        picks = dict(state.picks) | {player: command.number}
        if len(picks) == len(state.players):
            events += self._resolve(state, picks, ctx)
        return events

    def timeout(self, state: DuelState, ctx: Context) -> list[Event]:
        picks = dict(state.picks)
        events: list[Event] = []
        for player in state.players:
            if player not in picks:
                picks[player] = ctx.rng.randint(1, 3)
                events.append({"type": "Defaulted", "player": player, "number": picks[player]})
        return events + self._resolve(state, picks, ctx)

    def _resolve(self, state: DuelState, picks: dict[str, int], ctx: Context) -> list[Event]:
        best = max(picks.values())
        winners = sorted(p for p, n in picks.items() if n == best)
        events: list[Event] = [
            {
                "type": "Resolved",
                "picks": dict(picks),
                "winners": winners,
                "trace": [f"highest pick {best} by {', '.join(winners)} (DUEL-2)"],
            }
        ]
        if state.round < 3:
            events.append({"type": "RoundOpened", "round": state.round + 1, "deadline": ctx.now + state.duration})
        else:
            events.append({"type": "Finished"})
        return events

    def evolve(self, state: DuelState, event: Event) -> DuelState:
        kind = event["type"]
        if kind == "RoundOpened":
            return replace(state, round=event["round"], deadline=event["deadline"], picks=())
        if kind in ("Picked", "Defaulted"):
            return replace(state, picks=state.picks + ((event["player"], event["number"]),))
        if kind == "Resolved":
            scores = dict(state.scores)
            for winner in event["winners"]:
                scores[winner] += 1
            return replace(state, scores=tuple(scores.items()))
        if kind == "Finished":
            return replace(state, deadline=None, round=4)
        raise ValueError(f"unknown event {kind}")

    def status(self, state: DuelState) -> Status:
        if state.round > 3:
            return Status("finished", frozenset(), finished=True)
        picked = frozenset(p for p, _ in state.picks)
        return Status(f"round {state.round}", frozenset(state.players) - picked, picked, state.deadline, binding=True)

    def players(self, state: DuelState) -> tuple[str, ...]:
        return state.players

    def view(self, state: DuelState, viewer: Viewer) -> dict[str, Json]:
        picks = {p: n for p, n in state.picks if viewer.is_host or viewer.is_player(p)}
        return {
            "round": state.round,
            "scores": dict(state.scores),
            "my_picks": picks,
            "picked": sorted(p for p, _ in state.picks),
        }

    def redact(self, state: DuelState, event: Event, viewer: Viewer) -> Event | None:
        if event["type"] in ("Picked", "Defaulted") and not (viewer.is_host or viewer.is_player(event["player"])):
            return {"type": event["type"], "player": event["player"]}
        return event

    def explain(self, event: Event) -> list[str]:
        return list(event.get("trace", []))

    def results(self, state: DuelState) -> dict[str, Json]:
        scores = dict(state.scores)
        order = sorted(state.players, key=lambda p: -scores[p])
        return {"results": [{"player": p, "rank": i + 1, "score": scores[p]} for i, p in enumerate(order)]}


GAME = Duel()


def seat_duel(client: Any, seed: int) -> tuple[str, str, str, str]:
    """Create a duel over a real client and join both seats: (match id, host, ann's, bob's token)."""
    created = client.create("duel", ["ann", "bob"], seed=seed)
    return (
        created.match_id,
        created.host_token,
        client.join(created.match_id, "ann"),
        client.join(created.match_id, "bob"),
    )


def started_duel(client: Any, seed: int | None = None) -> Any:
    """Create a duel and open its first phase at once (host action start), before anyone joins: a match
    otherwise waits for its players. Returns the CreateMatchResponse."""
    created = client.create("duel", ["ann", "bob"], seed=seed)
    client.host_action(created.match_id, created.host_token, "start", "the test starts it")
    return created
