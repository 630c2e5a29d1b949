"""A Last Gathering bot using only the generated stubs (matchserver.v1) and the standard library.

    MATCH_TOKEN=SEAT_TOKEN python last_gathering_bot.py 127.0.0.1:50051 MATCH_ID PLAYER

It bids 1 garnet for the first open frame, then 0 for the first kind of tile still available, and
places each step's tile on its first empty spot; each submission ends with `end early`, so the phase
resolves as soon as every player has submitted (docs/BOTS.md).
"""

import json
import os
import sys
import uuid

import grpc

from matchserver.v1 import matchserver_pb2 as pb
from matchserver.v1 import matchserver_pb2_grpc as pb_grpc


def choose(view: dict, me: str) -> str:
    you = view["you"]
    orders = []
    if "frame_bid" in you["must_submit"]:
        orders.append(f"bid {min(1, you['garnets'])} on frame {view['open_frames'][0]}")
    if "tile_bid" in you["must_submit"]:
        orders.append(f"bid 0 {view['available_kinds'][0]}")
    if "placement" in you["must_submit"]:
        orders.append(f"place {you['empty_spots'][0]} rotate 0")
    return "; ".join(orders + ["end early"])


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
