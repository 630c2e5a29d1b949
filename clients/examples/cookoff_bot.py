"""A Cookoff bot using only the generated stubs (matchserver.v1) and the standard library.

    MATCH_TOKEN=SEAT_TOKEN python cookoff_bot.py 127.0.0.1:50051 MATCH_ID PLAYER

One harvester to each of the biggest trees, berries in the middle of the pot, no sabotage, no moves,
a berry served as a dish once it is cooked medium or better, the last dish chosen. Submissions are
binding: a phase ends when both players have submitted (docs/BOTS.md).
"""

import json
import os
import sys
import uuid

import grpc

from matchserver.v1 import matchserver_pb2 as pb
from matchserver.v1 import matchserver_pb2_grpc as pb_grpc

SQUARES = [c + r for c in "CBDAE" for r in "32415"]  # the middle of the pot first
NOTHING = {"sabotage": "I will not sabotage.", "moves": "I will not move any berries."}


def choose(view: dict, me: str) -> str:
    seat, phase = view["players"][me], view["phase"]
    if phase == "gathering":  # each tree's berries are shared among the harvesters sent to it
        trees = sorted(view["trees"], key=lambda t: -t["quantity"])[: view["limits"]["harvesters"]]
        return " ".join(f"I will send 1 worker to the {t['berry']} tree." for t in trees) or "I will send no workers."
    if phase == "placement":
        berries = [b for b, n in seat["inventory"].items() for _ in range(n)]
        free = [s for s in SQUARES if s not in seat["pot"]][: view["limits"]["max_place"]]
        places = [f"I will place a {b} berry on {s}." for b, s in zip(berries, free, strict=False)]
        return " ".join(places) or "I will place no berries."
    if phase == "removal":
        ready = [s for s, b in seat["pot"].items() if b["band"] in ("medium", "well done")]
        ready = ready or (list(seat["pot"]) if view["round"] == view["rounds"] else [])
        return f"I remove the dish on {ready[0]}." if ready else "I will not remove a dish."
    if phase == "final_choice":
        return f"I choose dish {len(seat['dishes'])}."
    return NOTHING[phase]


def owes(status: pb.Status, me: str) -> bool:
    return not status.finished and me in status.awaiting and me not in status.submitted


def main() -> None:
    server, match, me = sys.argv[1:4]  # the seat's token comes in MATCH_TOKEN, out of the process list
    auth = (("authorization", f"Bearer {os.environ['MATCH_TOKEN']}"),)
    stub = pb_grpc.MatchServiceStub(grpc.insecure_channel(server))  # a loopback server: TLS is not needed
    accepted = 0  # the version of our last accepted submission: older updates show the match before it
    for update in stub.Subscribe(pb.SubscribeRequest(match_id=match, from_version=0), metadata=auth):
        if not update.view_json or update.event.version <= accepted:
            continue  # mid-batch, or not newer than what we already acted on
        view, status = json.loads(update.view_json), update.status
        while owes(status, me):
            text = choose(view, me)
            request = pb.SubmitRequest(match_id=match, text=text, request_id=uuid.uuid4().hex)
            try:
                reply = stub.Submit(request, metadata=auth)
            except grpc.RpcError as exc:  # e.g. the phase ended meanwhile: wait for the next update
                print(f"{me}: {text!r} refused: {exc.code().name} {exc.details()}")
                break
            accepted, status = reply.version, reply.status
            print(f"{me} at {accepted}: {text}")
            if owes(status, me):  # our submission opened a phase that waits on us: no update will come
                state = stub.GetState(pb.GetStateRequest(match_id=match), metadata=auth)
                view, status = json.loads(state.view_json), state.status
        if status.finished:
            print(f"{me}: the match is over")
            return


if __name__ == "__main__":
    main()
