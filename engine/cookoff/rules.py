"""Decide, timeout and evolve: the turn order of CK-4, the clocks of CK-7.

`decide` checks a submission (CK-5b) and records it sealed with its time and reserve used; the last
needed submission of a phase also resolves it and opens the next phase. `evolve` only applies what the
events say: every draw (schedule, judges) and every time is in an event.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.codec import from_json, to_json
from engine.contract import Context, Event, Json
from engine.cookoff import text
from engine.cookoff.commands import (
    COMMAND_TYPES,
    ChooseDish,
    Command,
    MoveBerries,
    PlaceBerries,
    RemoveDish,
    Sabotage,
    SendHarvesters,
)
from engine.cookoff.config import COOK_BANDS, FAMILIES, FLAVOURS, SIZES, Config, Judge, Tree
from engine.cookoff.scoring import band, final_decision, judge_one
from engine.cookoff.state import (
    Dish,
    DishBerry,
    JudgeResult,
    Outcome,
    Phase,
    PotBerry,
    Seat,
    State,
    connected,
    neighbours,
    square_index,
    square_name,
)
from engine.errors import MalformedCommand, RuleViolation
from engine.frozen import replace

EXPECTED_COMMAND = {
    Phase.GATHERING: SendHarvesters,
    Phase.PLACEMENT: PlaceBerries,
    Phase.SABOTAGE: Sabotage,
    Phase.MOVES: MoveBerries,
    Phase.REMOVAL: RemoveDish,
    Phase.FINAL_CHOICE: ChooseDish,
}
PHASE_WORDS = {
    Phase.GATHERING: "berry gathering",
    Phase.PLACEMENT: "placement",
    Phase.SABOTAGE: "sabotage",
    Phase.MOVES: "moves",
    Phase.REMOVAL: "dish removal",
    Phase.FINAL_CHOICE: "final dish choice",
}


def num(value: float) -> int | float:
    """Times as ints when whole, so events and transcripts read cleanly."""
    return int(value) if float(value).is_integer() else round(float(value), 6)


# ---------------------------------------------------------------- setup


def initial_state(config: Config, seed: int, final_choice_on_clock: bool = True) -> State:
    empty: tuple[PotBerry | None, ...] = (None,) * 25
    seats = tuple(Seat(name, (0,) * len(config.berries), empty, config.reserve) for name in config.players)
    return State(config=config, seed=seed, seats=(seats[0], seats[1]), final_choice_on_clock=final_choice_on_clock)


def draw_schedule(config: Config, rng: random.Random) -> list[list[Tree]]:
    """CK-5: every berry once with each of its quantities, shuffled into rounds with no berry twice in a
    round. Random fill with restarts (a dead end is rare and a restart is cheap)."""
    slots = [Tree(berry.name, q) for berry in config.berries for q in berry.quantities]
    size, count = config.trees_per_round, config.rounds
    for _attempt in range(1000):
        rng.shuffle(slots)
        rounds: list[list[Tree]] = [[] for _ in range(count)]
        for slot in slots:
            room = [r for r in rounds if len(r) < size and all(t.berry != slot.berry for t in r)]
            if room:
                rng.choice(room).append(slot)
        if all(len(r) == size for r in rounds):
            return rounds
    raise RuleViolation("could not draw a tree schedule from this berry table", rule="CK-5")


def draw_judges(rng: random.Random) -> list[Judge]:
    """CK-6: one judge of each family with a random parameter, in a random order."""
    judges = [
        Judge("flavour", rng.choice(FLAVOURS)),
        Judge("size", rng.choice(list(SIZES))),
        Judge("cook", rng.choice(COOK_BANDS)),
    ]
    rng.shuffle(judges)
    assert {j.family for j in judges} == set(FAMILIES)
    return judges


def start(state: State, ctx: Context) -> list[Event]:
    config = state.config
    if config.schedule is not None:
        schedule = [list(r) for r in config.schedule]
        schedule_source = "host"
    else:
        schedule = draw_schedule(config, ctx.rng)
        schedule_source = "drawn from the seed (CK-5)"
    if config.judges is not None:
        judges, judge_source = list(config.judges), "host"
    else:
        judges, judge_source = draw_judges(ctx.rng), "drawn from the seed (CK-6)"
    prepared: Event = {
        "type": "match_prepared",
        "schedule": [[t.to_json() for t in r] for r in schedule],
        "judges": [j.to_json() for j in judges],
        "trace": [f"tree schedule: {schedule_source}", f"judges: {judge_source}"],
    }
    return _run(state, [prepared], ctx, after_removal_of=0)


# ---------------------------------------------------------------- decide


def decide(state: State, player: str, command: Any, ctx: Context) -> list[Event]:
    # engine.match.check_may_submit has refused a finished match, a stranger and a player not awaited.
    due = phase_deadline(state)
    if due is not None and ctx.now >= due:
        # CK-P3: a clock ran out before this submission arrived: the flag falls first.
        return timeout(state, ctx)
    expected = EXPECTED_COMMAND[state.phase]
    if not isinstance(command, expected):
        raise RuleViolation(
            f"this is the {PHASE_WORDS[state.phase]} phase of round {state.round}: expected {expected.__name__}, "
            f"got {type(command).__name__}",
            rule="CK-4",
        )
    check(state, player, command)
    on_clock = state.phase is not Phase.FINAL_CHOICE or state.final_choice_on_clock
    used = max(0.0, ctx.now - state.base_deadline()) if on_clock else 0.0
    event: Event = {
        "type": "submission_received",
        "player": player,
        "round": state.round,
        "phase": state.phase.value,
        "at": num(ctx.now),
        "reserve_used": num(used),
        "reserve_left": num(state.seat(player).reserve - used),
        "command": to_json(command),
    }
    after = evolve(state, event)
    if after.awaiting:
        return [event]
    return [event, *_resolve(after, ctx)]


def example_command(state: State, player: str) -> Command | None:
    """What `player` could send now: the final choice's latest dish (the one judged when no dish is chosen,
    CK-6), else the phase's empty command ("I will not sabotage."), always legal (CK-4). Running out of
    time loses (CK-7), so no deadline default stands in. Only `player`'s own dishes are read."""
    if state.phase is Phase.FINAL_CHOICE:
        dishes = len(state.seat(player).dishes)
        return ChooseDish(dishes) if dishes else None
    return text.NOTHING.get(state.phase)


def phase_deadline(state: State) -> float | None:
    """The earliest time something happens by the clock: the first clock of a player still to submit."""
    if not state.awaiting:
        return None
    return min(state.deadline_of(p) for p in state.awaiting)


def _fail(message: str, rule: str = "CK-5b") -> RuleViolation:
    return RuleViolation(message, rule=rule)


def _known_berry(state: State, name: str) -> int:
    try:
        return state.config.berry_index(name)
    except ValueError:
        raise MalformedCommand(f"unknown berry {name!r}") from None


def _take_from_inventory(state: State, player: str, berries: list[str]) -> None:
    have = list(state.seat(player).inventory)
    for name in berries:
        i = _known_berry(state, name)
        if have[i] <= 0:
            raise _fail(f"{player} has no {name} berry left in the inventory for this submission")
        have[i] -= 1


def check(state: State, player: str, command: Any) -> None:
    """CK-5b: everything is checked when submitted; a refusal names the problem and changes nothing."""
    if isinstance(command, SendHarvesters):
        _check_sends(state, command)
    elif isinstance(command, PlaceBerries | Sabotage):
        _check_placements(state, player, command)
    elif isinstance(command, MoveBerries):
        if len(command.moves) > state.config.max_moves:
            raise _fail(f"{len(command.moves)} moves, at most {state.config.max_moves} a turn", "CK-4")
        apply_moves(state.seat(player).pot, [(m.source, m.target) for m in command.moves])
    elif isinstance(command, RemoveDish):
        _check_dish(state.seat(player).pot, command)
    elif isinstance(command, ChooseDish):
        dishes = len(state.seat(player).dishes)
        if not 1 <= command.number <= dishes:
            raise _fail(f"there is no dish {command.number}: you have dishes 1..{dishes}", "CK-6")


def _check_sends(state: State, command: SendHarvesters) -> None:
    trees = [t.berry for t in state.trees]
    named = [s.berry for s in command.sends]
    for send in command.sends:
        if send.berry not in trees:
            raise _fail(f"{send.berry} is not a tree of round {state.round} ({', '.join(trees)})", "CK-5")
        if send.count < 0:
            raise MalformedCommand(f"a harvester count cannot be negative ({send.count} to {send.berry})")
    if len(set(named)) != len(named):
        raise _fail("name each tree once per submission", "CK-5")
    total = sum(s.count for s in command.sends)
    if total > state.config.harvesters:
        raise _fail(f"{total} harvesters sent, but each player controls {state.config.harvesters}", "CK-5")


def _check_placements(state: State, player: str, command: PlaceBerries | Sabotage) -> None:
    sabotage = isinstance(command, Sabotage)
    limit = state.config.max_sabotage if sabotage else state.config.max_place
    what = "sabotage berries" if sabotage else "berries placed"
    if len(command.placements) > limit:
        raise _fail(f"{len(command.placements)} {what}, at most {limit} a turn", "CK-4")
    pot = state.opponent(player).pot if sabotage else state.seat(player).pot
    whose = f"{state.opponent(player).name}'s pot" if sabotage else "your pot"
    squares = [square_index(p.square) for p in command.placements]
    if len(set(squares)) != len(squares):
        raise _fail("two berries placed on one square")
    for index in squares:
        if pot[index] is not None:
            raise _fail(f"{square_name(index)} in {whose} is occupied")
    _take_from_inventory(state, player, [p.berry for p in command.placements])


def _check_dish(pot: tuple[PotBerry | None, ...], command: RemoveDish) -> None:
    squares = [square_index(s) for s in command.squares]
    if len(set(squares)) != len(squares):
        raise _fail("a square is named twice in the dish", "CK-4")
    for index in squares:
        if pot[index] is None:
            raise _fail(f"{square_name(index)} in your pot holds no berry", "CK-4")
    if squares and not connected(set(squares)):
        raise _fail(
            "the dish is not one orthogonally connected group of berries: "
            + ", ".join(square_name(i) for i in squares),
            "CK-4",
        )


def apply_moves(pot: tuple[PotBerry | None, ...], moves: list[tuple[str, str]]) -> tuple[PotBerry | None, ...]:
    """CK-4: one-square orthogonal steps into empty squares, in the order given."""
    squares = list(pot)
    for number, (source, target) in enumerate(moves, start=1):
        a, b = square_index(source), square_index(target)
        if squares[a] is None:
            raise _fail(f"move {number}: there is no berry on {square_name(a)} to move")
        if b not in neighbours(a):
            raise _fail(f"move {number}: {square_name(a)} to {square_name(b)} is not one orthogonal step in the pot")
        if squares[b] is not None:
            raise _fail(f"move {number}: {square_name(b)} is occupied")
        squares[b], squares[a] = squares[a], None
    return tuple(squares)


# ---------------------------------------------------------------- resolution


def _resolve(state: State, ctx: Context) -> list[Event]:
    """Every expected submission is in: resolve the phase and open the next one."""
    if state.phase is Phase.GATHERING:
        return _run(state, [_harvest(state)], ctx, next_phase=Phase.PLACEMENT)
    if state.phase is Phase.PLACEMENT:
        return _run(state, [_placements(state)], ctx, next_phase=Phase.SABOTAGE)
    if state.phase is Phase.SABOTAGE:
        return _run(state, [_sabotage(state)], ctx, next_phase=Phase.MOVES)
    if state.phase is Phase.MOVES:
        moved = _moves(state)
        return _run(state, [moved, _cook(evolve(state, moved))], ctx, next_phase=Phase.REMOVAL)
    if state.phase is Phase.REMOVAL:
        return _run(state, [_removal(state)], ctx, after_removal_of=state.round)
    return [_judging(state)]


def _run(
    state: State,
    events: list[Event],
    ctx: Context,
    next_phase: Phase | None = None,
    after_removal_of: int | None = None,
) -> list[Event]:
    """Apply `events`, then open what comes next (the next phase, reveals, the next round, judging)."""
    for event in events:
        state = evolve(state, event)
    out = list(events)

    def emit(event: Event) -> None:
        nonlocal state
        out.append(event)
        state = evolve(state, event)

    if next_phase is not None:
        emit(_opened(state, next_phase, state.round, ctx, state.config.players))
        return out
    assert after_removal_of is not None
    finished_round = after_removal_of
    for index, after in enumerate(state.config.judge_reveal_after):
        if after == finished_round and index >= state.revealed:
            judge = state.judges[index]
            emit(
                {
                    "type": "judge_revealed",
                    "index": index + 1,
                    "judge": judge.to_json(),
                    "criterion": judge.criterion(),
                    "trace": [f"judge {index + 1} is revealed after round {finished_round} (rule text: judging)"],
                }
            )
    if finished_round < state.config.rounds:
        number = finished_round + 1
        emit({"type": "trees_revealed", "round": number, "trees": [t.to_json() for t in state.schedule[number - 1]]})
        emit(_opened(state, Phase.GATHERING, number, ctx, state.config.players))
        return out
    choosers = [seat.name for seat in state.seats if len(seat.dishes) >= 2]
    if choosers:
        emit(_opened(state, Phase.FINAL_CHOICE, finished_round, ctx, choosers))
        return out
    emit(_judging(state))
    return out


def _opened(state: State, phase: Phase, number: int, ctx: Context, players: Any) -> Event:
    base = state.config.time(phase.value)
    return {
        "type": "phase_opened",
        "round": number,
        "phase": phase.value,
        "at": num(ctx.now),
        "base": num(base),
        "base_deadline": num(ctx.now + base),
        "players": list(players),
    }


def _sq(square: str) -> str:
    """A square as written in events: canonical CK-3 name ("c3" -> "C3")."""
    return square_name(square_index(square))


def _pending(state: State) -> dict[str, Any]:
    return {seat.name: seat.pending for seat in state.seats}


def _harvest(state: State) -> Event:
    """CK-5: each harvester gets floor(quantity / all harvesters at that tree); the rest is lost."""
    sends = {name: {s.berry: s.count for s in cmd.sends} for name, cmd in _pending(state).items()}
    names = [seat.name for seat in state.seats]
    trees: list[Json] = []
    trace = [f"Round {state.round} harvest (CK-5: floor(quantity / harvesters at the tree) each):"]
    for tree in state.trees:
        counts = {name: sends[name].get(tree.berry, 0) for name in names}
        total = sum(counts.values())
        each = tree.quantity // total if total else 0
        gained = {name: counts[name] * each for name in names}
        lost = tree.quantity - sum(gained.values())
        trees.append(
            {
                "berry": tree.berry,
                "quantity": tree.quantity,
                "harvesters": counts,
                "each": each,
                "gained": gained,
                "lost": lost,
            }
        )
        if total:
            split = ", ".join(f"{n} {counts[n]}" for n in names)
            got = ", ".join(f"{n} +{gained[n]}" for n in names)
            trace.append(
                f"  {tree.berry} tree ({tree.quantity}): {total} harvesters ({split}); each gets "
                f"floor({tree.quantity}/{total}) = {each}; {got}; {lost} lost"
            )
        else:
            trace.append(f"  {tree.berry} tree ({tree.quantity}): no harvesters")
    return {
        "type": "harvest_resolved",
        "round": state.round,
        "sends": {name: [{"berry": b, "count": c} for b, c in sends[name].items()] for name in names},
        "trees": trees,
        "trace": trace,
    }


def _placements(state: State) -> Event:
    placed = {
        name: [{"berry": p.berry, "square": _sq(p.square)} for p in cmd.placements]
        for name, cmd in _pending(state).items()
    }
    trace = [f"Round {state.round} placements revealed together (CK-4):"] + [
        f"  {name}: " + (", ".join(f"{p['berry']} on {p['square']}" for p in items) or "nothing")
        for name, items in placed.items()
    ]
    return {"type": "placements_revealed", "round": state.round, "placements": placed, "trace": trace}


def _sabotage(state: State) -> Event:
    placed = {
        name: [{"berry": p.berry, "square": _sq(p.square)} for p in cmd.placements]
        for name, cmd in _pending(state).items()
    }
    trace = [f"Round {state.round} sabotage announced together (CK-4; berries belong to the pot they land in, CK-5b):"]
    for name, items in placed.items():
        target = state.opponent(name).name
        trace.append(
            f"  {name} into {target}'s pot: "
            + (", ".join(f"{p['berry']} on {p['square']}" for p in items) or "no sabotage")
        )
    return {"type": "sabotage_announced", "round": state.round, "sabotage": placed, "trace": trace}


def _moves(state: State) -> Event:
    moves = {
        name: [{"from": _sq(m.source), "to": _sq(m.target)} for m in cmd.moves] for name, cmd in _pending(state).items()
    }
    trace = [f"Round {state.round} moves, applied in the order given (CK-4):"] + [
        f"  {name}: " + (", ".join(f"{m['from']} to {m['to']}" for m in items) or "no moves")
        for name, items in moves.items()
    ]
    return {"type": "moves_revealed", "round": state.round, "moves": moves, "trace": trace}


def _cook(state: State) -> Event:
    """CK-2: every berry in a pot gains its square's intensity in cook time."""
    pots: dict[str, Json] = {}
    trace = [f"Round {state.round} cooking (CK-2: every berry gains its square's flame intensity; 8+ burns):"]
    for seat in state.seats:
        rows = []
        for index, item in enumerate(seat.pot):
            if item is None:
                continue
            heat = state.config.flame[index]
            cook = item.cook + heat
            rows.append(
                {
                    "square": square_name(index),
                    "berry": item.berry,
                    "intensity": heat,
                    "cook": cook,
                    "band": band(cook) or "burned",
                }
            )
        pots[seat.name] = rows
        trace.append(
            f"  {seat.name}: "
            + (
                ", ".join(f"{r['square']} {r['berry']} +{r['intensity']} -> {r['cook']} ({r['band']})" for r in rows)
                or "empty pot"
            )
        )
    return {"type": "pots_cooked", "round": state.round, "pots": pots, "trace": trace}


def _removal(state: State) -> Event:
    dishes: dict[str, Json] = {}
    trace = [f"Round {state.round} dish removal (CK-4: at most one connected dish a turn):"]
    for seat in state.seats:
        cmd = seat.pending
        assert isinstance(cmd, RemoveDish)
        if not cmd.squares:
            dishes[seat.name] = None
            trace.append(f"  {seat.name}: no dish")
            continue
        number = len(seat.dishes) + 1
        berries: list[dict[str, Json]] = []
        for square in cmd.squares:
            item = seat.pot[square_index(square)]
            assert item is not None
            berries.append({"square": square_name(square_index(square)), "berry": item.berry, "cook": item.cook})
        dishes[seat.name] = {"number": number, "berries": berries}
        trace.append(
            f"  {seat.name}: dish {number} of {len(berries)} berries ({', '.join(_sq(q) for q in cmd.squares)})"
        )
    return {"type": "dishes_removed", "round": state.round, "dishes": dishes, "trace": trace}


def chosen_dishes(state: State) -> list[Dish | None]:
    """The dish each player faces the judges with: their choice, else their latest (CK-6)."""
    out: list[Dish | None] = []
    for seat in state.seats:
        if not seat.dishes:
            out.append(None)
        elif isinstance(seat.pending, ChooseDish):
            out.append(seat.dishes[seat.pending.number - 1])
        else:
            out.append(seat.dishes[-1])
    return out


def _judging(state: State) -> Event:
    names = [seat.name for seat in state.seats]
    dishes = chosen_dishes(state)
    trace: list[str] = []
    for name, dish, seat in zip(names, dishes, state.seats, strict=True):
        if dish is None:
            trace.append(f"{name} has no dish (berries left in a pot are discarded, CK-6)")
        elif isinstance(seat.pending, ChooseDish):
            trace.append(f"{name} chose dish {dish.number}")
        else:
            trace.append(f"{name} faces the judges with dish {dish.number}, their latest (CK-6)")
    verdicts = [judge_one(i + 1, judge, names, dishes, state.config) for i, judge in enumerate(state.judges)]
    for verdict in verdicts:
        trace.extend(verdict.lines)
    winner, decision, lines = final_decision(verdicts, names, state.config.dmo)
    trace.extend(lines)
    return {
        "type": "match_judged",
        "chosen": {name: (dish.number if dish else None) for name, dish in zip(names, dishes, strict=True)},
        "judges": [
            {
                "index": v.index,
                "family": v.judge.family,
                "want": v.judge.want,
                "criterion": v.judge.criterion(),
                "scores": dict(zip(names, v.scores, strict=True)),
                "winner": v.winner,
            }
            for v in verdicts
        ],
        "winner": winner,
        "decision": decision,
        "trace": trace,
    }


# ---------------------------------------------------------------- clocks


def timeout(state: State, ctx: Context) -> list[Event]:
    """CK-7: a player whose reserve runs out loses at once, in the final choice too (revised CK-6); both at
    once: the DMO (CK-P2). Rules version 1 only (withdrawn CK-P4): the final choice had no reserve, and a
    player who let it time out was judged on their latest dish."""
    due = phase_deadline(state)
    if due is None or ctx.now < due:
        return []
    late = sorted((p for p in state.awaiting if state.deadline_of(p) <= due), key=state.index)
    if state.phase is Phase.FINAL_CHOICE and not state.final_choice_on_clock:
        events: list[Event] = []
        for player in late:
            latest = len(state.seat(player).dishes)
            event: Event = {
                "type": "dish_defaulted",
                "player": player,
                "dish": latest,
                "at": num(due),
                "trace": [
                    f"{player} let the final choice time out: judged on the latest dish, {latest} "
                    "(rules version 1, CK-P4)"
                ],
            }
            events.append(event)
            state = evolve(state, event)
        return [*events, _judging(state)]
    names = [seat.name for seat in state.seats]
    trace = [
        f"{p}: phase opened at {num(state.opened_at)}, base {num(state.config.time(state.phase.value))} s, "
        f"reserve {num(state.seat(p).reserve)} s -> clock ran out at {num(state.deadline_of(p))} (CK-7)"
        for p in late
    ]
    if len(late) == 1:
        winner = names[1 - names.index(late[0])]
        trace.append(f"{late[0]} ran out of reserve time and loses at once; {winner} wins (CK-7)")
    else:
        winner = state.config.dmo
        trace.append(f"both clocks ran out at the same moment; the DMO {winner} wins (CK-P2)")
    if state.phase is Phase.FINAL_CHOICE:
        trace.append("the final dish choice runs on the clock like every phase, as the text says (revised CK-6)")
    return [
        {
            "type": "time_expired",
            "round": state.round,
            "phase": state.phase.value,
            "at": num(due),
            "players": late,
            "winner": winner,
            "trace": trace,
        }
    ]


# ---------------------------------------------------------------- evolve


def _seats_edited(
    state: State, inventories: list[list[int]] | None = None, pots: list[list[PotBerry | None]] | None = None
) -> State:
    """The state with both seats' edited inventories and pots, in one replace per seat: an event touches
    many berries and squares, and rebuilding the whole state for each one was most of the fold."""
    seats = tuple(
        replace(
            seat,
            inventory=seat.inventory if inventories is None else tuple(inventories[index]),
            pot=seat.pot if pots is None else tuple(pots[index]),
        )
        for index, seat in enumerate(state.seats)
    )
    return replace(state, seats=(seats[0], seats[1]))


def evolve(state: State, event: Event) -> State:
    """Apply an event `decide` or `timeout` made: every value is in it and was checked when it was made."""
    kind = event["type"]
    apply = _EVOLVE.get(kind)
    if apply is None:
        raise ValueError(f"unknown Cookoff event {kind!r}")
    return apply(state, event)


def _submission_received(state: State, event: Event) -> State:
    index = state.index(event["player"])
    seat = state.seats[index]
    command = from_json(COMMAND_TYPES, event["command"])
    seat = replace(seat, pending=command, reserve=seat.reserve - event["reserve_used"])
    return replace(state, seats=(seat, state.seats[1]) if index == 0 else (state.seats[0], seat))


def _phase_opened(state: State, event: Event) -> State:
    first, second = (seat if seat.pending is None else replace(seat, pending=None) for seat in state.seats)
    return replace(
        state,
        seats=(first, second),
        round=event["round"],
        phase=Phase(event["phase"]),
        opened_at=event["at"],
        expected=frozenset(event["players"]),
    )


def _match_prepared(state: State, event: Event) -> State:
    schedule = tuple(tuple(Tree(t["berry"], t["quantity"]) for t in r) for r in event["schedule"])
    judges = tuple(Judge(j["family"], j["want"]) for j in event["judges"])
    return replace(state, schedule=schedule, judges=judges)


def _judge_revealed(state: State, event: Event) -> State:
    return replace(state, revealed=max(state.revealed, event["index"]))


def _trees_revealed(state: State, event: Event) -> State:
    return replace(state, round=event["round"])


def _harvest_resolved(state: State, event: Event) -> State:
    berries = [berry.name for berry in state.config.berries]
    inventories = [list(seat.inventory) for seat in state.seats]
    for tree in event["trees"]:
        column = berries.index(tree["berry"])
        for name, gained in tree["gained"].items():
            if gained:
                inventories[state.index(name)][column] += gained
    return _seats_edited(state, inventories=inventories)


def _berries_placed(state: State, event: Event) -> State:
    # CK-5b: sabotage berries come out of the saboteur's inventory into the opponent's pot.
    sabotage = event["type"] == "sabotage_announced"
    berries = [berry.name for berry in state.config.berries]
    inventories = [list(seat.inventory) for seat in state.seats]
    pots = [list(seat.pot) for seat in state.seats]
    for name, items in event["sabotage" if sabotage else "placements"].items():
        owner = state.index(name)
        pot = pots[1 - owner if sabotage else owner]
        for item in items:
            inventories[owner][berries.index(item["berry"])] -= 1
            pot[square_index(item["square"])] = PotBerry(item["berry"], 0, sabotage)
    return _seats_edited(state, inventories=inventories, pots=pots)


def _moves_revealed(state: State, event: Event) -> State:
    pots = [list(seat.pot) for seat in state.seats]
    for name, items in event["moves"].items():
        index = state.index(name)
        pots[index] = list(apply_moves(state.seats[index].pot, [(m["from"], m["to"]) for m in items]))
    return _seats_edited(state, pots=pots)


def _pots_cooked(state: State, event: Event) -> State:
    pots = [list(seat.pot) for seat in state.seats]
    for name, rows in event["pots"].items():
        cooked = pots[state.index(name)]
        for row in rows:
            index = square_index(row["square"])
            item = cooked[index]
            assert item is not None
            cooked[index] = PotBerry(item.berry, row["cook"], item.sabotage)
    return _seats_edited(state, pots=pots)


def _dishes_removed(state: State, event: Event) -> State:
    for name, dish in event["dishes"].items():
        if dish is None:
            continue
        seat = state.seat(name)
        emptied = list(seat.pot)
        for b in dish["berries"]:
            emptied[square_index(b["square"])] = None
        made = Dish(
            dish["number"],
            event["round"],
            tuple(DishBerry(b["square"], b["berry"], b["cook"]) for b in dish["berries"]),
        )
        state = state.with_seat(replace(seat, pot=tuple(emptied), dishes=(*seat.dishes, made)))
    return state


def _dish_defaulted(state: State, event: Event) -> State:
    # Written only under rules version 1 (withdrawn CK-P4); kept so stored matches still replay.
    return state


def _match_judged(state: State, event: Event) -> State:
    names = [seat.name for seat in state.seats]
    results = tuple(
        JudgeResult(
            j["index"],
            Judge(j["family"], j["want"]),
            tuple(j["scores"][n] for n in names),
            j["winner"],
        )
        for j in event["judges"]
    )
    outcome = Outcome(
        winner=event["winner"],
        decision=event["decision"],
        chosen=tuple(event["chosen"][n] for n in names),
        judges=results,
    )
    return replace(state, phase=Phase.OVER, outcome=outcome, revealed=len(state.judges))


def _time_expired(state: State, event: Event) -> State:
    outcome = Outcome(
        winner=event["winner"],
        decision="time",
        chosen=(None, None),
        lost_on_time=tuple(event["players"]),
    )
    return replace(state, phase=Phase.OVER, outcome=outcome)


# Each event type's fold, in the order a match writes them.
_EVOLVE: dict[str, Callable[[State, Event], State]] = {
    "match_prepared": _match_prepared,
    "judge_revealed": _judge_revealed,
    "trees_revealed": _trees_revealed,
    "phase_opened": _phase_opened,
    "submission_received": _submission_received,
    "harvest_resolved": _harvest_resolved,
    "placements_revealed": _berries_placed,
    "sabotage_announced": _berries_placed,
    "moves_revealed": _moves_revealed,
    "pots_cooked": _pots_cooked,
    "dishes_removed": _dishes_removed,
    "dish_defaulted": _dish_defaulted,
    "match_judged": _match_judged,
    "time_expired": _time_expired,
}
