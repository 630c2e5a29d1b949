"""Who sees what: everything is public (the text's clarification) except each player's sealed
submission of the open phase, which only its owner and the host see until the phase resolves."""

from __future__ import annotations

from engine.contract import Event, Json, Viewer
from engine.mining import rules, text
from engine.mining.config import COLOURS, RESOURCES, ROLE_NAMES
from engine.mining.state import State, miner_name, pile_json, player_json

SEALED = ("setup_submitted", "orders_submitted")


def view(state: State, viewer: Viewer, phase: str) -> dict[str, Json]:
    submitted = {p for p, _ in state.pending}
    spaces: list[Json] = []
    for index, (spec, pile) in enumerate(zip(state.config.spaces, state.piles, strict=True), start=1):
        spaces.append(
            {
                "space": index,
                "pile": pile_json(pile),
                "gains": {"gold": spec.gold, **dict(zip(COLOURS, spec.crystals, strict=True))},
                "bonus": spec.bonus,
                "miners": [miner_name(p.name, m.role) for p in state.players for m in p.miners if m.space == index],
            }
        )
    players: list[Json] = []
    for p in state.players:
        entry = player_json(p)
        entry["submitted"] = p.name in submitted
        entry["next_garnet_price"] = rules.garnet_price(p.replacements)
        players.append(entry)
    out: dict[str, Json] = {
        "game": "mining",
        "phase": phase,
        "stage": state.phase.value,
        "round": state.round,
        "rounds": state.config.rounds,
        "deadline": state.deadline,
        "spaces": spaces,
        "players": players,
        "roles": dict(ROLE_NAMES),
        "max_steps": dict(rules.MAX_STEPS),
        "resources": list(RESOURCES),
        "last_round": state.last_resolution,
        "you": viewer.player if viewer.kind == "player" else None,
    }
    if viewer.kind == "player" and viewer.player in state.config.players:
        mine = state.pending_of(viewer.player)
        out["your_submission"] = text.format_command(mine) if mine is not None else None
        out["must_submit"] = {"setup": "setup", "round": "orders"}.get(state.phase)
    if viewer.is_host:
        out["pending"] = {p: text.format_command(c) for p, c in state.pending}
    if state.final is not None:
        out["final"] = results(state)
    return out


def redact(event: Event, viewer: Viewer) -> Event | None:
    if event["type"] in SEALED and not (viewer.is_host or viewer.is_player(event["player"])):
        return {"type": event["type"], "player": event["player"]}  # others only see that it was submitted
    return event


def results(state: State) -> dict[str, Json]:
    final = state.final
    finished = final is not None
    golds = sorted((p.gold for p in state.players), reverse=True)
    tokens = dict(final.tokens) if final else {}
    earned = dict(final.garnets_earned) if final else {}
    candidates = list(final.candidates) if final else []
    rows: list[Json] = []
    ordered = sorted(state.players, key=lambda p: -p.gold) if finished else list(state.players)
    for p in ordered:
        rows.append(
            {
                "player": p.name,
                "rank": golds.index(p.gold) + 1 if finished else None,
                "score": p.gold,
                "gold": p.gold,
                "crystals": dict(zip(COLOURS, p.crystals, strict=True)),
                "garnets": p.garnets,
                "garnets_earned": earned.get(p.name, 0),
                "tokens_of_life": tokens.get(p.name, 0),
                "elimination_candidate": p.name in candidates,
            }
        )
    return {"results": rows, "elimination_candidates": candidates, "round": state.round}
