"""What each viewer may see (views and redacted events), results and status.

Sealed until the rules reveal them: each phase's submissions (owner and host only), the tree schedule
(host only; each round's trees are revealed by their own event) and the judges not yet revealed.
"""

from __future__ import annotations

from engine.codec import to_json
from engine.contract import Event, Json, Status, Viewer
from engine.cookoff.config import FLAVOURS, GRID
from engine.cookoff.rules import PHASE_WORDS, num, phase_deadline
from engine.cookoff.scoring import band
from engine.cookoff.state import Dish, Phase, State, square_name


def phase_text(state: State) -> str:
    if state.phase is Phase.OVER:
        return "match over"
    if state.phase is Phase.SETUP:
        return "setting up"
    if state.phase is Phase.FINAL_CHOICE:
        return "final dish choice"
    return f"round {state.round}: {PHASE_WORDS[state.phase]}"


def status(state: State) -> Status:
    return Status(
        phase=phase_text(state),
        awaiting=state.awaiting,
        submitted=state.submitted,
        deadline=phase_deadline(state),
        finished=state.phase is Phase.OVER,
        binding=True,  # rule text / LG-10: the first valid submission is binding
    )


def dish_json(dish: Dish) -> dict[str, Json]:
    return {
        "number": dish.number,
        "round": dish.round,
        "berries": [
            {"square": b.square, "berry": b.berry, "cook": b.cook, "band": band(b.cook) or "burned"}
            for b in dish.berries
        ],
    }


def view(state: State, viewer: Viewer) -> dict[str, Json]:
    config = state.config
    shown_judges = len(state.judges) if viewer.is_host else state.revealed
    players: dict[str, Json] = {}
    for seat in state.seats:
        sees_secret = viewer.is_host or viewer.is_player(seat.name)
        players[seat.name] = {
            "inventory": {b.name: n for b, n in zip(config.berries, seat.inventory, strict=True) if n},
            "pot": {
                square_name(i): {
                    "berry": item.berry,
                    "cook": item.cook,
                    "band": band(item.cook) or ("burned" if item.cook else "uncooked"),
                    "sabotage": item.sabotage,
                }
                for i, item in enumerate(seat.pot)
                if item is not None
            },
            "dishes": [dish_json(d) for d in seat.dishes],
            "reserve": num(seat.reserve),
            "submitted": seat.pending is not None,
            "pending": to_json(seat.pending) if (sees_secret and seat.pending is not None) else None,
        }
    active = state.phase not in (Phase.SETUP, Phase.OVER)
    out: dict[str, Json] = {
        "game": "cookoff",
        "viewer": viewer.kind,
        "you": viewer.player if viewer.kind == "player" else None,
        "round": state.round,
        "rounds": config.rounds,
        "phase": state.phase.value,
        "phase_text": phase_text(state),
        "awaiting": sorted(state.awaiting, key=state.index),
        "finished": state.phase is Phase.OVER,
        "dmo": config.dmo,
        "limits": {
            "harvesters": config.harvesters,
            "max_place": config.max_place,
            "max_sabotage": config.max_sabotage,
            "max_moves": config.max_moves,
        },
        "flame": [list(config.flame[r * GRID : (r + 1) * GRID]) for r in range(GRID)],
        "berries": {b.name: dict(zip(FLAVOURS, b.flavours, strict=True)) for b in config.berries},
        "trees": [t.to_json() for t in state.trees],
        "judges": [
            {
                "index": i + 1,
                "family": judge.family,
                "want": judge.want,
                "criterion": judge.criterion(),
                "revealed": i < state.revealed,
            }
            for i, judge in enumerate(state.judges[:shown_judges])
        ],
        "clock": {
            "phase_opened": num(state.opened_at) if active else None,
            "base_deadline": num(state.base_deadline()) if active else None,
            "deadlines": {p: num(state.deadline_of(p)) for p in sorted(state.awaiting, key=state.index)},
            "reserve": {seat.name: num(seat.reserve) for seat in state.seats},
        },
        "players": players,
        "result": results(state) if state.outcome else None,
    }
    if viewer.is_host:
        out["schedule"] = [[t.to_json() for t in r] for r in state.schedule]
    return out


def redact(state: State, event: Event, viewer: Viewer) -> Event | None:
    if viewer.is_host:
        return event
    if event["type"] == "match_prepared":
        return None  # the schedule and every judge: host only (CK-5, CK-6)
    if event["type"] == "submission_received" and not viewer.is_player(event["player"]):
        hidden = {k: v for k, v in event.items() if k != "command"}
        hidden["sealed"] = True
        return hidden
    return event


def results(state: State) -> dict[str, Json]:
    names = [seat.name for seat in state.seats]
    outcome = state.outcome
    rows: list[Json] = []
    for i, seat in enumerate(state.seats):
        if outcome is None:
            rows.append({"player": seat.name, "rank": None, "score": 0, "dishes": len(seat.dishes), "dish": None})
            continue
        wins = sum(1 for j in outcome.judges if j.winner == seat.name)
        rows.append(
            {
                "player": seat.name,
                "rank": 1 if outcome.winner == seat.name else 2,
                "score": wins,
                "dishes": len(seat.dishes),
                "dish": outcome.chosen[i],
                "lost_on_time": seat.name in outcome.lost_on_time,
            }
        )
    out: dict[str, Json] = {"results": rows}
    if outcome is not None:
        out["winner"] = outcome.winner
        out["decision"] = outcome.decision
        out["chosen"] = dict(zip(names, outcome.chosen, strict=True))
        out["judges"] = [
            {
                "index": j.index,
                "family": j.judge.family,
                "want": j.judge.want,
                "criterion": j.judge.criterion(),
                "scores": dict(zip(names, j.scores, strict=True)),
                "winner": j.winner,
            }
            for j in outcome.judges
        ]
        out["lost_on_time"] = list(outcome.lost_on_time)
    return out
