"""decide / timeout / evolve, and the rules they apply: checking submissions, paying for upgrades,
resolving a round in the order of MN-1, and the end (MN-5).

`resolve_round` is pure: it takes the state and every player's orders and returns the new players, the
new piles, a per-space record and the trace lines, all written into the round_resolved event; `evolve`
only reads events.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.contract import Context, Event, Json
from engine.errors import MalformedCommand, RuleViolation
from engine.frozen import replace
from engine.mining import text
from engine.mining.commands import Move, Orders, Setup, Start, Upgrade
from engine.mining.config import COLOUR_NAMES, COLOURS, RESOURCES, ROLE_NAMES, ROLES, TRAIT_NAMES
from engine.mining.state import (
    Final,
    Miner,
    Phase,
    Pile,
    Player,
    State,
    miner_name,
    orders_from,
    orders_json,
    pile_from,
    pile_json,
    player_from,
    player_json,
    setup_from,
    setup_json,
)

MAX_STEPS = {"b": 3, "c": 3, "p": 3, "s": 5, "t": 3}


def garnet_price(replacements: int) -> int:
    """MN-4: a player's first crystal replaced costs 2 garnets, then 6, 10, 14, ..."""
    return 2 + 4 * replacements


def _word(resource: str) -> str:
    return "gold" if resource == "gold" else COLOUR_NAMES[resource]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# --- set-up -----------------------------------------------------------------------------------------


def check_setup(state: State, command: Setup) -> None:
    spaces = len(state.config.spaces)
    seen: dict[str, int] = {}
    for start in command.starts:
        if start.miner in seen:
            raise RuleViolation(f"{ROLE_NAMES[start.miner]} is placed twice", rule="MN-P8")
        if not 1 <= start.space <= spaces:
            raise RuleViolation(f"space {start.space} does not exist; spaces are 1 to {spaces}", rule="MN-P8")
        seen[start.miner] = start.space
    missing = [ROLE_NAMES[r] for r in ROLES if r not in seen]
    if missing:
        raise RuleViolation(f"no starting space for {', '.join(missing)}: place all five miners", rule="MN-P8")
    if len(set(seen.values())) != len(ROLES):
        raise RuleViolation("each miner must start on a different space", rule="MN-P8")


# --- orders and upgrades ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Payment:
    upgrade: Upgrade
    level_from: int
    crystals: int  # crystals of the colour spent
    garnets: int  # garnets spent for the crystals missing
    replaced: int  # crystals replaced by garnets


def upgrade_order(upgrades: tuple[Upgrade, ...]) -> list[Upgrade]:
    """Dexterity upgrades apply before movement (the addendum), the others after, in the order given."""
    return [u for u in upgrades if u.crystal == "y"] + [u for u in upgrades if u.crystal != "y"]


def plan_payments(player: Player, upgrades: tuple[Upgrade, ...]) -> list[Payment]:
    """What each upgrade costs, paying crystals first and garnets for the shortfall (MN-4, MN-P2);
    RuleViolation (with the cost) if the player cannot pay. Holdings are those before this round's
    distribution, so crystals won in a round are never spent on that round's upgrades (MN-5)."""
    crystals = dict(zip(COLOURS, player.crystals, strict=True))
    garnets, replacements = player.garnets, player.replacements
    payments = []
    for upgrade in upgrade_order(upgrades):
        level = player.miner(upgrade.miner).level(upgrade.crystal)
        cost = level + 1
        used = min(cost, crystals[upgrade.crystal])
        missing = cost - used
        garnet_cost = sum(garnet_price(replacements + i) for i in range(missing))
        if garnet_cost > garnets:
            colour = COLOUR_NAMES[upgrade.crystal]
            raise RuleViolation(
                f"upgrade {upgrade.miner} {upgrade.crystal} ({ROLE_NAMES[upgrade.miner]} "
                f"{TRAIT_NAMES[upgrade.crystal]} {level} -> {level + 1}) costs {_plural(cost, colour + ' crystal')}; "
                f"you have {crystals[upgrade.crystal]} left for it, and the {missing} missing would cost "
                f"{garnet_cost} garnets (MN-4 prices from {garnet_price(replacements)}) but you have {garnets}",
                rule="MN-4",
            )
        crystals[upgrade.crystal] -= used
        garnets -= garnet_cost
        replacements += missing
        payments.append(Payment(upgrade, level, used, garnet_cost, missing))
    return payments


def check_orders(state: State, player: Player, command: Orders) -> None:
    given: dict[str, int] = {}
    for move in command.moves:
        if move.miner in given:
            raise RuleViolation(f"two moves for the {ROLE_NAMES[move.miner]}", rule="MN-P9")
        given[move.miner] = move.steps
        top = MAX_STEPS[move.miner]
        if not 1 <= move.steps <= top:
            raise RuleViolation(
                f"move {move.miner} {move.steps}: the {ROLE_NAMES[move.miner]} moves 1 to {top} spaces",
                rule="MN-P9",
            )
    missing = [ROLE_NAMES[r] for r in ROLES if r not in given]
    if missing:
        raise RuleViolation(f"no move for {', '.join(missing)}: every miner must move 1-3 (Scout 1-5)", "MN-P9")
    seen = set()
    for upgrade in command.upgrades:
        key = (upgrade.miner, upgrade.crystal)
        if key in seen:
            raise RuleViolation(
                f"the {ROLE_NAMES[upgrade.miner]}'s {TRAIT_NAMES[upgrade.crystal]} is upgraded twice; "
                "each trait can be levelled at most once per round",
                rule="MN-P9",
            )
        seen.add(key)
    plan_payments(player, command.upgrades)


def default_orders() -> Orders:
    """MN-P1: a player who missed the round's deadline moves every miner 1, no bully, no upgrades."""
    return Orders(moves=tuple(Move(role, 1) for role in ROLES))


def example_command(state: State) -> Setup | Orders:
    """What a seat could send now, the same for every seat and from public facts only: in the set-up the
    miners on spaces 1 to 5 in order (the missed set-up's default is a random draw), in a round MN-P1's
    default orders; both with `end early`, so that seats which all send it end the phase (LG-10)."""
    if state.phase is Phase.SETUP:
        return Setup(tuple(Start(role, space) for space, role in enumerate(ROLES, start=1)), end_early=True)
    return replace(default_orders(), end_early=True)


# --- resolution -------------------------------------------------------------------------------------


class _Work:
    """Mutable working copy of the players during one resolution (never leaves this module)."""

    def __init__(self, players: tuple[Player, ...]) -> None:
        self.order = [p.name for p in players]
        self.gold = {p.name: p.gold for p in players}
        self.crystals = {p.name: list(p.crystals) for p in players}
        self.garnets = {p.name: p.garnets for p in players}
        self.replacements = {p.name: p.replacements for p in players}
        self.space = {(p.name, m.role): m.space for p in players for m in p.miners}
        self.levels = {(p.name, m.role): list(m.levels) for p in players for m in p.miners}

    def level(self, miner: tuple[str, str], colour: str) -> int:
        return self.levels[miner][COLOURS.index(colour)]

    def miners(self) -> list[tuple[str, str]]:
        return [(name, role) for name in self.order for role in ROLES]

    def on(self, space: int) -> list[tuple[str, str]]:
        return [m for m in self.miners() if self.space[m] == space]

    def players(self) -> list[Player]:
        return [
            Player(
                name,
                self.gold[name],
                (self.crystals[name][0], self.crystals[name][1], self.crystals[name][2], self.crystals[name][3]),
                self.garnets[name],
                self.replacements[name],
                tuple(
                    Miner(role, self.space[(name, role)], tuple(self.levels[(name, role)]))  # type: ignore[arg-type]
                    for role in ROLES
                ),
            )
            for name in self.order
        ]


def _name(miner: tuple[str, str]) -> str:
    return miner_name(*miner)


def _apply_upgrades(work: _Work, state: State, orders: dict[str, Orders], dexterity: bool, trace: list[str]) -> None:
    step = "MN-1 step 3 (addendum: Dexterity first)" if dexterity else "MN-1 step 5"
    for name in work.order:
        for pay in plan_payments(state.player(name), orders[name].upgrades):
            if (pay.upgrade.crystal == "y") != dexterity:
                continue
            miner = (name, pay.upgrade.miner)
            work.levels[miner][COLOURS.index(pay.upgrade.crystal)] += 1
            work.crystals[name][COLOURS.index(pay.upgrade.crystal)] -= pay.crystals
            work.garnets[name] -= pay.garnets
            work.replacements[name] += pay.replaced
            paid = _plural(pay.crystals, COLOUR_NAMES[pay.upgrade.crystal] + " crystal")
            if pay.replaced:
                paid += f" and {pay.garnets} garnets for {_plural(pay.replaced, 'missing crystal')} (MN-4)"
            trace.append(
                f"{step}: {_name(miner)} {TRAIT_NAMES[pay.upgrade.crystal]} "
                f"{pay.level_from} -> {pay.level_from + 1}, paid {paid}"
            )


def _move(work: _Work, orders: dict[str, Orders], spaces: int, trace: list[str]) -> dict[str, Json]:
    bullies = [(name, "b") for name in work.order if orders[name].bully]
    for bully in bullies:
        trace.append(
            f"MN-2: {_name(bully)} uses its ability on space {work.space[bully]} (Dexterity {work.level(bully, 'y')})"
        )
    starts = dict(work.space)
    moves: dict[str, Json] = {}
    for miner in work.miners():
        steps = {m.miner: m.steps for m in orders[miner[0]].moves}[miner[1]]
        pushed = []
        for bully in bullies:
            if starts[bully] != starts[miner]:
                continue
            if work.level(miner, "y") > work.level(bully, "y"):
                trace.append(
                    f"MN-2: {_name(miner)} Dexterity {work.level(miner, 'y')} is strictly greater than "
                    f"{_name(bully)}'s {work.level(bully, 'y')}: not pushed"
                )
                continue
            pushed.append(_name(bully))
        total = steps + len(pushed)
        work.space[miner] = (starts[miner] - 1 + total) % spaces + 1
        extra = f" + {len(pushed)} (bullied by {', '.join(pushed)})" if pushed else ""
        trace.append(
            f"MN-1 step 4: {_name(miner)} moves {steps}{extra} = {total}: space {starts[miner]} -> {work.space[miner]}"
        )
        moves[_name(miner)] = {"from": starts[miner], "to": work.space[miner], "steps": steps, "bullied_by": pushed}
    return moves


def _steal(work: _Work, space: int, here: list[tuple[str, str]], trace: list[str]) -> list[Json]:
    steals: list[Json] = []
    for thief in [m for m in here if m[1] == "t"]:
        for victim in here:
            if victim[0] == thief[0]:
                continue  # a thief only steals from other players' miners (MN-3)
            if work.level(victim, "y") > work.level(thief, "y"):
                trace.append(
                    f"MN-3 thief, space {space}: {_name(victim)} Dexterity {work.level(victim, 'y')} is strictly "
                    f"greater than {_name(thief)}'s {work.level(thief, 'y')}: nothing stolen"
                )
                continue
            work.gold[victim[0]] -= 1
            work.gold[thief[0]] += 1
            trace.append(
                f"MN-3 thief, space {space}: {_name(thief)} takes 1 gold from {_name(victim)} "
                f"({victim[0]} now {work.gold[victim[0]]} gold)"
            )
            steals.append({"thief": _name(thief), "from": _name(victim)})
    return steals


def _earn(work: _Work, miner: tuple[str, str], resource: str, amount: int, takes: dict[str, dict[str, int]]) -> None:
    if amount == 0:
        return
    if resource == "gold":
        work.gold[miner[0]] += amount
    else:
        work.crystals[miner[0]][COLOURS.index(resource)] += amount
    entry = takes.setdefault(_name(miner), {})
    entry[resource] = entry.get(resource, 0) + amount


Here = list[tuple[str, str]]


def _thieves(
    work: _Work, state: State, space: int, pile: list[int], record: dict[str, Json], here: Here, trace: list[str]
) -> None:
    record["steals"] = _steal(work, space, here, trace)


def _distribute(
    work: _Work, state: State, space: int, pile: list[int], record: dict[str, Json], here: Here, trace: list[str]
) -> None:
    """MN-3 primary distribution: Claimers count as two shares; the remainder stays on the space."""
    shares = sum(2 if role == "c" else 1 for _, role in here)
    per_share = [amount // shares for amount in pile]
    primary: dict[str, dict[str, int]] = {}
    for miner in here:
        weight = 2 if miner[1] == "c" else 1
        for resource, each in zip(RESOURCES, per_share, strict=True):
            _earn(work, miner, resource, each * weight, primary)
    for i, resource in enumerate(RESOURCES):
        if pile[i]:
            left = pile[i] - per_share[i] * shares
            trace.append(
                f"MN-3 distribution, space {space}: {pile[i]} {_word(resource)} in {_plural(shares, 'share')} "
                f"({', '.join(_name(m) + (' x2' if m[1] == 'c' else '') for m in here)}): "
                f"{per_share[i]} a share, {left} stays"
            )
            pile[i] = left
    record.update(shares=shares, share=dict(zip(RESOURCES, per_share, strict=True)), primary=primary, bonus={})


def _prospect(
    work: _Work, state: State, space: int, pile: list[int], record: dict[str, Json], here: Here, trace: list[str]
) -> None:
    """MN-3: +1 of each resource whose primary share was non-zero, from the bank."""
    share = record["share"]
    for miner in [m for m in here if m[1] == "p"]:
        won = [r for r in RESOURCES if share[r] > 0]
        for resource in won:
            _earn(work, miner, resource, 1, record["bonus"])
        if won:
            trace.append(f"MN-3 prospector, space {space}: {_name(miner)} +1 {', +1 '.join(map(_word, won))} (bank)")


def _ability(
    work: _Work, state: State, space: int, pile: list[int], record: dict[str, Json], here: Here, trace: list[str]
) -> None:
    spec = state.config.spaces[space - 1]
    for miner in [m for m in here if spec.bonus and m[1] == spec.bonus]:
        _earn(work, miner, "gold", 1, record["bonus"])
        trace.append(f"Space {space} ability: {_name(miner)} is a {ROLE_NAMES[miner[1]]}: +1 gold (bank)")


def _scavenge(
    work: _Work, state: State, space: int, pile: list[int], record: dict[str, Json], here: Here, trace: list[str]
) -> None:
    """The highest non-zero Scavenging splits what is left evenly, Claimers counting one; the rest stays."""
    top = max(work.level(m, "r") for m in here)
    scavenging: dict[str, Json] = {"level": top, "winners": []}
    if top > 0 and any(pile):
        winners = [m for m in here if work.level(m, "r") == top]
        split = [amount // len(winners) for amount in pile]
        taken: dict[str, dict[str, int]] = {}
        for miner in winners:
            for resource, amount in zip(RESOURCES, split, strict=True):
                _earn(work, miner, resource, amount, taken)
        for i, resource in enumerate(RESOURCES):
            if pile[i]:
                left = pile[i] - split[i] * len(winners)
                trace.append(
                    f"Scavenging, space {space}: highest level {top} ({', '.join(map(_name, winners))}) split "
                    f"{pile[i]} {_word(resource)}: {split[i]} each, {left} stays"
                )
                pile[i] = left
        scavenging = {"level": top, "winners": [_name(m) for m in winners], "takes": taken}
    record["scavenging"] = scavenging


def _expose(
    work: _Work, state: State, space: int, pile: list[int], record: dict[str, Json], here: Here, trace: list[str]
) -> None:
    """Every miner with the highest non-zero Exposure on the space gains 1 gold (ties all gain)."""
    top = max(work.level(m, "b") for m in here)
    exposure: dict[str, Json] = {"level": top, "winners": []}
    if top > 0:
        winners = [m for m in here if work.level(m, "b") == top]
        for miner in winners:
            work.gold[miner[0]] += 1
        exposure["winners"] = [_name(m) for m in winners]
        trace.append(f"Exposure, space {space}: highest level {top}: +1 gold to {', '.join(map(_name, winners))}")
    record["exposure"] = exposure


def _befriend(
    work: _Work, state: State, space: int, pile: list[int], record: dict[str, Json], here: Here, trace: list[str]
) -> None:
    """For every 7 Friendship levels on the space (all miners summed), every miner there earns 1 gold."""
    levels = sum(work.level(m, "g") for m in here)
    each_gold = levels // 7
    for miner in here:
        work.gold[miner[0]] += each_gold
    if levels:
        trace.append(
            f"Friendship, space {space}: {levels} levels // 7 = {each_gold}: {each_gold} gold to each of "
            f"{len(here)} miners"
        )
    record["friendship"] = {"levels": levels, "gold_each": each_gold}


# MN-1 steps 6-12, each over every space in turn
SPACE_STEPS = (_thieves, _distribute, _prospect, _ability, _scavenge, _expose, _befriend)


@dataclass(frozen=True, slots=True)
class Resolution:
    players: list[Player]
    piles: list[Pile]
    moves: dict[str, Json]
    spaces: list[dict[str, Json]]
    trace: list[str]


def resolve_round(state: State, orders: dict[str, Orders]) -> Resolution:
    """MN-1 steps 3-12 for every player's orders (step 1 happened when the round opened)."""
    work = _Work(state.players)
    trace: list[str] = [f"Round {state.round} resolves in the order of MN-1"]
    _apply_upgrades(work, state, orders, dexterity=True, trace=trace)
    moves = _move(work, orders, len(state.config.spaces), trace)
    _apply_upgrades(work, state, orders, dexterity=False, trace=trace)
    piles = [list(pile) for pile in state.piles]
    here = [work.on(index + 1) for index in range(len(piles))]
    records: list[dict[str, Json]] = [
        {"space": index + 1, "pile_before": pile_json(pile), "miners": [_name(m) for m in here[index]]}
        for index, pile in enumerate(piles)
    ]
    for step in SPACE_STEPS:
        for index, pile in enumerate(piles):
            if here[index]:
                step(work, state, index + 1, pile, records[index], here[index], trace)
    for record, pile in zip(records, piles, strict=True):
        record["pile_after"] = pile_json(pile)
    for name in work.order:
        trace.append(
            f"{name}: {work.gold[name]} gold, crystals "
            + ", ".join(f"{n} {COLOUR_NAMES[c]}" for c, n in zip(COLOURS, work.crystals[name], strict=True))
            + f", {work.garnets[name]} garnets"
        )
    final = [(p[0], p[1], p[2], p[3], p[4]) for p in piles]
    return Resolution(work.players(), final, moves, records, trace)


# --- the end (MN-5) -----------------------------------------------------------------------------------


def finish(players: tuple[Player, ...]) -> tuple[list[Player], dict[str, Json], list[str]]:
    trace: list[str] = []
    converted = []
    for p in players:
        sets = min(p.crystals)
        if sets:
            trace.append(f"MN-5: {p.name} converts {sets} sets of one crystal of each colour into {sets} gold")
        converted.append(
            Player(p.name, p.gold + sets, tuple(c - sets for c in p.crystals), p.garnets, p.replacements, p.miners)  # type: ignore[arg-type]
        )
    most = max(p.gold for p in converted)
    top = [p.name for p in converted if p.gold == most]
    tokens = {p.name: 0 for p in converted}
    if len(top) == 1:
        tokens[top[0]] = 2
        trace.append(f"MN-5: {top[0]} has the most gold ({most}): 2 Tokens of Life")
    elif len(top) == 2:
        for name in top:
            tokens[name] = 1
        trace.append(f"MN-5: {' and '.join(top)} tie for the most gold ({most}): 1 Token of Life each")
    else:
        trace.append(f"MN-5: {len(top)} players tie for the most gold ({most}): no Tokens of Life")
    least = min(p.gold for p in converted)
    candidates = [p.name for p in converted if p.gold == least]
    if len(candidates) == 1:
        trace.append(f"MN-5: {candidates[0]} has the least gold ({least}): Elimination Candidate")
    else:
        trace.append(
            f"MN-5: {', '.join(candidates)} tie for the least gold ({least}): all named Elimination Candidates; "
            "the host settles it"
        )
    earned = {p.name: p.gold // 40 if p.gold >= 40 else 0 for p in converted}
    final_players = []
    for p in converted:
        trace.append(f"MN-5: {p.name} earns {earned[p.name]} garnets (floor({p.gold} / 40), none below 40)")
        final_players.append(Player(p.name, p.gold, p.crystals, p.garnets + earned[p.name], p.replacements, p.miners))
    outcome: dict[str, Json] = {"tokens": tokens, "candidates": candidates, "garnets_earned": earned}
    return final_players, outcome, trace


# --- decide and timeout -----------------------------------------------------------------------------


def start(state: State, ctx: Context) -> list[Event]:
    deadline = ctx.now + state.config.setup_seconds
    return [
        {
            "type": "setup_opened",
            "deadline": deadline,
            "trace": [f"Setup: every player places five miners on five different spaces by {deadline}"],
        }
    ]


def decide(state: State, player: str, command: Setup | Orders, ctx: Context) -> list[Event]:
    # engine.match.check_may_submit has refused a finished match, a stranger and a stage that takes nothing.
    if state.phase is Phase.SETUP:
        event = _setup_submitted(state, player, command)
    else:
        event = _orders_submitted(state, player, command)
    after = evolve(state, event)
    everyone_done = all((c := after.pending_of(p)) is not None and c.end_early for p in state.config.players)
    return [event] + (_resolve(after, ctx) if everyone_done else [])


def _setup_submitted(state: State, player: str, command: Any) -> Event:
    if not isinstance(command, Setup):
        raise RuleViolation(
            "the set-up is open: it takes starting spaces ('start b 3' or 'Bully 3') and 'end early'",
            rule="MN-P8",
        )
    for begin in command.starts:
        _check_letter(begin.miner, ROLES, "miner")
    previous = state.pending_of(player)
    if command.only_end_early:
        if not isinstance(previous, Setup):
            raise RuleViolation("submit your set-up before asking to end early", rule="MN-P10")
        command = Setup(previous.starts, True)
    check_setup(state, command)
    return {"type": "setup_submitted", "player": player, **setup_json(command)}


def _orders_submitted(state: State, player: str, command: Any) -> Event:
    if not isinstance(command, Orders):
        raise RuleViolation(
            f"round {state.round} is open: it takes orders ('move s 4', 'upgrade b r', 'bully 1') and 'end early'",
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
    check_orders(state, state.player(player), command)
    return {"type": "orders_submitted", "player": player, **orders_json(command)}


def timeout(state: State, ctx: Context) -> list[Event]:
    if state.phase not in (Phase.SETUP, Phase.ROUND):
        return []
    return _resolve(state, ctx)


# --- the events a phase's end writes ---------------------------------------------------------------


def _resolve(state: State, ctx: Context) -> list[Event]:
    events: list[Event] = []
    if state.phase is Phase.SETUP:
        events.append(_resolve_setup(state, ctx))
    else:
        events.append(_resolve_round(state))
    after = state
    for event in events:
        after = evolve(after, event)
    if after.round < after.config.rounds:
        events.append(_open_round(after, ctx))
    else:
        events.append(_finish(after))
    return events


def _resolve_setup(state: State, ctx: Context) -> Event:
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


def _resolve_round(state: State) -> Event:
    orders: dict[str, Orders] = {}
    defaulted = []
    for name in state.config.players:
        command = state.pending_of(name)
        if isinstance(command, Orders):
            orders[name] = command
        else:
            orders[name] = default_orders()
            defaulted.append(name)
    resolution = resolve_round(state, orders)
    trace = [
        f"MN-P1: {name} missed round {state.round}: every miner moves 1, no bully, no upgrades" for name in defaulted
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


def _open_round(state: State, ctx: Context) -> Event:
    number = state.round + 1
    income = [space.income(number) for space in state.config.spaces]
    piles = [
        tuple(a + b for a, b in zip(pile, gain, strict=True)) for pile, gain in zip(state.piles, income, strict=True)
    ]
    deadline = ctx.now + state.config.round_seconds
    trace = [f"MN-1 step 1: round {number}: every space gains its resources, gold spaces also +{number} gold"]
    for index, (gain, pile) in enumerate(zip(income, piles, strict=True), start=1):
        if any(gain):
            gained = ", ".join(f"{n} {_word(r)}" for r, n in zip(RESOURCES, gain, strict=True) if n)
            held = ", ".join(f"{n} {_word(r)}" for r, n in zip(RESOURCES, pile, strict=True) if n)
            trace.append(f"Space {index} gains {gained}: now {held}")
    return {
        "type": "round_opened",
        "round": number,
        "deadline": deadline,
        "income": [pile_json(g) for g in income],
        "piles": [pile_json(p) for p in piles],
        "trace": trace,
    }


def _finish(state: State) -> Event:
    players, outcome, trace = finish(state.players)
    return {"type": "match_finished", "players": [player_json(p) for p in players], **outcome, "trace": trace}


# --- evolve -----------------------------------------------------------------------------------------


def evolve(state: State, event: Event) -> State:
    """Apply an event `decide` or `timeout` made: every value is in it and was checked when it was made."""
    kind = event["type"]
    if kind == "setup_opened":
        return replace(state, phase=Phase.SETUP, deadline=event["deadline"], pending=())
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
        return replace(state, players=players, pending=(), deadline=None, phase=Phase.BETWEEN)
    if kind == "round_opened":
        piles = tuple(pile_from(p) for p in event["piles"])
        return replace(
            state, phase=Phase.ROUND, round=event["round"], piles=piles, deadline=event["deadline"], pending=()
        )
    if kind == "round_resolved":
        return replace(
            state,
            players=_players_from(state, event["players"]),
            piles=tuple(pile_from(p) for p in event["piles"]),
            pending=(),
            deadline=None,
            phase=Phase.BETWEEN,
            last_resolution={"round": event["round"], "moves": event["moves"], "spaces": event["spaces"]},
        )
    if kind == "match_finished":
        final = Final(
            tokens=tuple(event["tokens"].items()),
            candidates=tuple(event["candidates"]),
            garnets_earned=tuple(event["garnets_earned"].items()),
        )
        return replace(
            state, players=_players_from(state, event["players"]), phase=Phase.FINISHED, deadline=None, final=final
        )
    raise ValueError(f"unknown mining event {kind!r}")


def _players_from(state: State, snapshots: list[dict[str, Json]]) -> tuple[Player, ...]:
    """The players of a resolution event, keeping each one's unchanged parts from `state`."""
    before = {player.name: player for player in state.players}
    return tuple(player_from(snapshot, before.get(snapshot["name"])) for snapshot in snapshots)


def _check_letter(letter: str, allowed: tuple[str, ...], what: str) -> None:
    if letter not in allowed:
        raise MalformedCommand(f"unknown {what} {letter!r}; expected one of {' '.join(allowed)}")


def _placing(command: Setup) -> str:
    return ", ".join(f"{ROLE_NAMES[s.miner]} on {s.space}" for s in command.starts)
