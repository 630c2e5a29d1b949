"""A mining bot using only the generated stubs (matchserver.v1) and the standard library.

    MATCH_TOKEN=SEAT_TOKEN python mining_bot.py 127.0.0.1:50051 MATCH_ID PLAYER

Every miner heads for the richest pile within its reach; each submission ends with `end early`, so
the phase resolves as soon as every player has submitted (docs/BOTS.md).
"""

import json
import os
import sys
import uuid

import grpc

from matchserver.v1 import matchserver_pb2 as pb
from matchserver.v1 import matchserver_pb2_grpc as pb_grpc


def worth(space: dict) -> int:
    return 3 * space["pile"]["gold"] + sum(space["pile"][c] for c in "rbyg")


def choose(view: dict, me: str) -> str:
    spaces = view["spaces"]
    if view["stage"] == "setup":  # five different spaces, richest first
        best = sorted(spaces, key=worth, reverse=True)[:5]
        return "; ".join(f"start {m} {s['space']}" for m, s in zip("bcpst", best, strict=True)) + "; end early"
    miners = next(p for p in view["players"] if p["name"] == me)["miners"]
    moves = []
    for role, miner in miners.items():  # the board is a loop: space n follows space n - 1
        reach = range(1, view["max_steps"][role] + 1)
        steps = max(reach, key=lambda n: worth(spaces[(miner["space"] - 1 + n) % len(spaces)]))
        moves.append(f"move {role} {steps}")
    return "; ".join(moves) + "; end early"


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
