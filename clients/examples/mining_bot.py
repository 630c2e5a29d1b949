"""A mining bot using only the generated stubs (matchserver.v1) and the standard library.

    MATCH_TOKEN=SEAT_TOKEN .venv/bin/python clients/examples/mining_bot.py 127.0.0.1:50051 MATCH_ID PLAYER

(from the repository, with its venv; or `python3 mining_bot.py ...` anywhere the client wheel is
installed with its dependencies: `pip install dist/matchserver_client-*.whl`, docs/BOTS.md). It prints a
line once connected, one per submission, and stops at the match's end or on Ctrl-C (exit 0).

Every miner heads for the richest pile within its reach; each submission ends with `end early`, so
the phase resolves as soon as every player has submitted (docs/BOTS.md).
"""

import argparse
import json
import os
import signal
import sys
import uuid
from typing import Any

import grpc

from matchserver.v1 import matchserver_pb2 as pb
from matchserver.v1 import matchserver_pb2_grpc as pb_grpc


def worth(space: dict[str, Any]) -> int:
    return int(3 * space["pile"]["gold"] + sum(space["pile"][c] for c in "rbyg"))


def choose(view: dict[str, Any], me: str) -> str:
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


def play(server: str, match: str, me: str, token: str) -> None:
    auth = (("authorization", f"Bearer {token}"),)
    channel = grpc.insecure_channel(server)  # a loopback server: TLS is not needed
    grpc.channel_ready_future(channel).result(timeout=60)
    print(f"{me}: connected to {server}; playing match {match}", flush=True)
    stub = pb_grpc.MatchServiceStub(channel)
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
                print(f"{me}: {text!r} refused: {exc.code().name} {exc.details()}", flush=True)
                break
            accepted, status = reply.version, reply.status
            print(f"{me} at {accepted}: {text}", flush=True)  # out before any exit
            if owes(status, me):  # our submission opened a phase that waits on us: no update will come
                state = stub.GetState(pb.GetStateRequest(match_id=match), metadata=auth)
                view, status = json.loads(state.view_json), state.status
        if status.finished:
            print(f"{me}: the match is over")
            return


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("server", help="HOST:PORT")
    parser.add_argument("match", help="the match id")
    parser.add_argument("player", help="your seat; its token comes in MATCH_TOKEN, out of the process list")
    args = parser.parse_args()
    if not os.environ.get("MATCH_TOKEN"):
        parser.error("set MATCH_TOKEN to your seat's token")

    def stopped(*_: object) -> None:  # Ctrl-C: a handler, as a KeyboardInterrupt inside gRPC can end in a traceback
        print(f"{args.player}: stopped", file=sys.stderr, flush=True)
        os._exit(0)  # at once, wherever it is: the match goes on without this seat

    signal.signal(signal.SIGINT, stopped)
    try:
        play(args.server, args.match, args.player, os.environ["MATCH_TOKEN"])
    except grpc.FutureTimeoutError:
        print(f"{args.player}: no server answers at {args.server}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
