"""The mining game as a decider: phases, submissions, deadlines and the fold over events."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.contract import Context, Event, Json, Status, Viewer
from engine.errors import MalformedCommand, NotYourTurn, RuleViolation
from engine.frozen import replace
from engine.mining import config as cfg
from engine.mining import rules, text, views
from engine.mining.commands import COMMAND_TYPES, Orders, Setup, Start
from engine.mining.config import COLOURS, ROLES
from engine.mining.state import (
    Final,
    Miner,
    Player,
    State,
    orders_from,
    orders_json,
    pile_from,
    pile_json,
    player_from,
    player_json,
    setup_from,
    setup_json,
)


class MiningGame:
    name = "mining"
    rules_version = "1"
    command_types: tuple[type, ...] = COMMAND_TYPES
    default_seats = 5  # the rule text's game is for five miners

    # --- configuration and opening -------------------------------------------------------------------

    def default_config(self, players: Sequence[str]) -> dict[str, Json]:
        return cfg.default_config(players)

    def initial_state(self, config: Mapping[str, Json], seed: int) -> State:
        conf = cfg.parse_config(config)
        players = tuple(Player(name, 0, (0, 0, 0, 0), conf.starting_garnets) for name in conf.players)
        return State(conf, seed, players, tuple((0, 0, 0, 0, 0) for _ in conf.spaces))

    def start(self, state: State, ctx: Context) -> list[Event]:
        deadline = ctx.now + state.config.setup_seconds
        return [
            {
                "type": "setup_opened",
                "deadline": deadline,
                "trace": [f"Setup: every player places five miners on five different spaces by {deadline}"],
            }
        ]

    # --- submissions ---------------------------------------------------------------------------------

    def decide(self, state: State, player: str, command: Any, ctx: Context) -> list[Event]:
        event: Event
        if state.phase == "setup":
            if not isinstance(command, Setup):
                raise RuleViolation(
                    "the set-up is open: it takes starting spaces ('start b 3' or 'Bully 3') and 'end early'",
                    rule="MN-P8",
                )
            for start in command.starts:
                _check_letter(start.miner, ROLES, "miner")
            previous = state.pending_of(player)
            if command.only_end_early:
                if not isinstance(previous, Setup):
                    raise RuleViolation("submit your set-up before asking to end early", rule="MN-P10")
                command = Setup(previous.starts, True)
            rules.check_setup(state, command)
            event = {"type": "setup_submitted", "player": player, **setup_json(command)}
        elif state.phase == "round":
            if not isinstance(command, Orders):
                raise RuleViolation(
                    f"round {state.round} is open: it takes orders ('move s 4', 'upgrade b r', 'bully 1')"
                    " and 'end early'",
                    rule="MN-1",
                )
            for move in command.moves:
                _check_letter(move.miner, ROLES, "miner")
            for upgrade in command.upgrades:
                _check_letter(upgrade.miner, ROLES, "miner")
                _check_letter(upgrade.crystal, COLOURS, "crystal")
            previous = state.pending_of(player)
            if command.only_end_early:
                if not isinstance(previous, Orders):
                    raise RuleViolation("submit your orders before asking to end early", rule="MN-P10")
                command = Orders(previous.moves, previous.upgrades, previous.bully, True)
            rules.check_orders(state, state.player(player), command)
            event = {"type": "orders_submitted", "player": player, **orders_json(command)}
        else:
            raise NotYourTurn("nothing to submit now")
        after = self.evolve(state, event)
        everyone_done = all((c := after.pending_of(p)) is not None and c.end_early for p in state.config.players)
        return [event] + (self._resolve(after, ctx) if everyone_done else [])

    def timeout(self, state: State, ctx: Context) -> list[Event]:
        if state.phase not in ("setup", "round"):
            return []
        return self._resolve(state, ctx)

    # --- resolution ----------------------------------------------------------------------------------

    def _resolve(self, state: State, ctx: Context) -> list[Event]:
        events: list[Event] = []
        if state.phase == "setup":
            events.append(self._resolve_setup(state, ctx))
        else:
            events.append(self._resolve_round(state))
        after = state
        for event in events:
            after = self.evolve(after, event)
        if after.round < after.config.rounds:
            events.append(self._open_round(after, ctx))
        else:
            events.append(self._finish(after))
        return events

    def _resolve_setup(self, state: State, ctx: Context) -> Event:
        starts: dict[str, Json] = {}
        defaulted = []
        trace = []
        for name in state.config.players:
            command = state.pending_of(name)
            if isinstance(command, Setup):
                starts[name] = setup_json(command)["starts"]
                trace.append(f"Setup: {name} places " + _placing(command))
            else:
                drawn = ctx.rng.sample(range(1, len(state.config.spaces) + 1), len(ROLES))
                default = Setup(tuple(Start(role, space) for role, space in zip(ROLES, drawn, strict=True)))
                starts[name] = setup_json(default)["starts"]
                defaulted.append(name)
                trace.append(f"MN-P1: {name} missed the set-up; random distinct spaces drawn: " + _placing(default))
        trace.append("Setup: miners take no action on their starting spaces")
        return {"type": "setup_resolved", "starts": starts, "defaulted": defaulted, "trace": trace}

    def _resolve_round(self, state: State) -> Event:
        orders: dict[str, Orders] = {}
        defaulted = []
        for name in state.config.players:
            command = state.pending_of(name)
            if isinstance(command, Orders):
                orders[name] = command
            else:
                orders[name] = rules.default_orders()
                defaulted.append(name)
        resolution = rules.resolve_round(state, orders)
        trace = [
            f"MN-P1: {name} missed round {state.round}: every miner moves 1, no bully, no upgrades"
            for name in defaulted
        ]
        trace += [f"{name} orders: {text.format_command(orders[name])}" for name in state.config.players]
        return {
            "type": "round_resolved",
            "round": state.round,
            "orders": {name: orders_json(orders[name]) for name in state.config.players},
            "defaulted": defaulted,
            "moves": resolution.moves,
            "spaces": resolution.spaces,
            "players": [player_json(p) for p in resolution.players],
            "piles": [pile_json(p) for p in resolution.piles],
            "trace": trace + resolution.trace,
        }

    def _open_round(self, state: State, ctx: Context) -> Event:
        number = state.round + 1
        income = [space.income(number) for space in state.config.spaces]
        piles = [
            tuple(a + b for a, b in zip(pile, gain, strict=True))
            for pile, gain in zip(state.piles, income, strict=True)
        ]
        deadline = ctx.now + state.config.round_seconds
        trace = [f"MN-1 step 1: round {number}: every space gains its resources, gold spaces also +{number} gold"]
        for index, (gain, pile) in enumerate(zip(income, piles, strict=True), start=1):
            if any(gain):
                gained = ", ".join(f"{n} {_WORDS[r]}" for r, n in zip(cfg.RESOURCES, gain, strict=True) if n)
                held = ", ".join(f"{n} {_WORDS[r]}" for r, n in zip(cfg.RESOURCES, pile, strict=True) if n)
                trace.append(f"Space {index} gains {gained}: now {held}")
        return {
            "type": "round_opened",
            "round": number,
            "deadline": deadline,
            "income": [pile_json(g) for g in income],
            "piles": [pile_json(p) for p in piles],
            "trace": trace,
        }

    def _finish(self, state: State) -> Event:
        players, outcome, trace = rules.finish(state.players)
        return {"type": "match_finished", "players": [player_json(p) for p in players], **outcome, "trace": trace}

    # --- the fold ------------------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        kind = event["type"]
        if kind == "setup_opened":
            return replace(state, phase="setup", deadline=event["deadline"], pending=())
        if kind in ("setup_submitted", "orders_submitted"):
            submitted = dict(state.pending)
            submitted[event["player"]] = setup_from(event) if kind == "setup_submitted" else orders_from(event)
            pending = tuple((p, submitted[p]) for p in state.config.players if p in submitted)  # in seat order
            return replace(state, pending=pending)
        if kind == "setup_resolved":
            starts = event["starts"]
            players = tuple(
                Player(
                    p.name,
                    p.gold,
                    p.crystals,
                    p.garnets,
                    p.replacements,
                    tuple(Miner(m.role, starts[p.name][m.role], m.levels) for m in p.miners),
                )
                for p in state.players
            )
            return replace(state, players=players, pending=(), deadline=None, phase="between")
        if kind == "round_opened":
            piles = tuple(pile_from(p) for p in event["piles"])
            return replace(
                state, phase="round", round=event["round"], piles=piles, deadline=event["deadline"], pending=()
            )
        if kind == "round_resolved":
            return replace(
                state,
                players=_players_from(state, event["players"]),
                piles=tuple(pile_from(p) for p in event["piles"]),
                pending=(),
                deadline=None,
                phase="between",
                last_resolution={"round": event["round"], "moves": event["moves"], "spaces": event["spaces"]},
            )
        if kind == "match_finished":
            final = Final(
                tokens=tuple(event["tokens"].items()),
                candidates=tuple(event["candidates"]),
                garnets_earned=tuple(event["garnets_earned"].items()),
            )
            return replace(
                state, players=_players_from(state, event["players"]), phase="finished", deadline=None, final=final
            )
        raise ValueError(f"unknown mining event {kind!r}")

    # --- who acts, who sees what ---------------------------------------------------------------------

    def status(self, state: State) -> Status:
        if state.phase == "finished":
            return Status(phase="finished", awaiting=frozenset(), finished=True)
        if state.phase not in ("setup", "round"):
            return Status(phase=state.phase, awaiting=frozenset())
        phase = "setup" if state.phase == "setup" else f"round {state.round} of {state.config.rounds}"
        # LG-10: a submission may be replaced until the phase ends, so everyone may still submit.
        return Status(
            phase=phase,
            awaiting=frozenset(state.config.players),
            submitted=frozenset(p for p, _ in state.pending),
            deadline=state.deadline,
        )

    def players(self, state: State) -> tuple[str, ...]:
        return state.config.players

    def view(self, state: State, viewer: Viewer) -> dict[str, Json]:
        return views.view(state, viewer, self.status(state).phase)

    def redact(self, state: State, event: Event, viewer: Viewer) -> Event | None:
        return views.redact(event, viewer)

    def explain(self, event: Event) -> list[str]:
        return list(event.get("trace", []))

    def results(self, state: State) -> dict[str, Json]:
        return views.results(state)

    # --- text ----------------------------------------------------------------------------------------

    def parse(self, state: State, player: str, line: str) -> Setup | Orders:
        return text.parse(line, setup=state.phase == "setup")

    def format(self, command: Any) -> str:
        return text.format_command(command)


_WORDS = {"gold": "gold", **cfg.COLOUR_NAMES}


def _players_from(state: State, snapshots: list[dict[str, Json]]) -> tuple[Player, ...]:
    """The players of a resolution event, keeping each one's unchanged parts from `state`."""
    before = {player.name: player for player in state.players}
    return tuple(player_from(snapshot, before.get(snapshot["name"])) for snapshot in snapshots)


def _check_letter(letter: str, allowed: tuple[str, ...], what: str) -> None:
    if letter not in allowed:
        raise MalformedCommand(f"unknown {what} {letter!r}; expected one of {' '.join(allowed)}")


def _placing(command: Setup) -> str:
    return ", ".join(f"{cfg.ROLE_NAMES[s.miner]} on {s.space}" for s in command.starts)
