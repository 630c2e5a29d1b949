"""An arena bot: plays every match its bot key is seated in, with the example bots of clients.bots.

    MATCHSERVER_BOT_KEY=msbk_... .venv/bin/python clients/examples/arena_bot.py 127.0.0.1:50051 \\
        [--strategy greedy|random] [--until-tournament T] [--after N] [--tls] [--ca FILE]

Prints a line once connected, then one per notice of the bot's event stream (seated, finished,
challenged, ...). Challenges are accepted. With --until-tournament T it stops, exit 0, when tournament
T's `tournament_finished` notice arrives; Ctrl-C stops it (exit 0) and says where to resume (--after N).
It needs the repository's clients.bots and its venv's grpc (run it with .venv/bin/python from the
repository); docs/BOTS.md, "The arena", shows a whole tournament.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
from typing import Any

import grpc

from clients.botloop import BotKeyRefused, Decide, current_match, run_bot
from clients.bots import bot_names, get_bot
from clients.client import MatchClient


def make_decide(strategy: str) -> Decide:
    rngs: dict[tuple[str, str], random.Random] = {}  # one per match and seat: a match replays the same

    def decide(game: str, view: dict[str, Any], seat: str) -> str | None:
        key = (current_match(), seat)
        if key not in rngs:
            rngs[key] = random.Random(f"{key[0]}:{seat}")
        names = bot_names(game)  # the plainest first, the strongest last
        name = names[-1] if strategy == "greedy" else names[0]
        return get_bot(game, name)(view, seat, rngs[key])

    return decide


def connected(server: str, tls: bool, ca: str | None) -> None:
    """Wait until the server answers, and say so (run_bot then connects by itself)."""
    with MatchClient(server, tls=tls, ca=ca) as client:
        grpc.channel_ready_future(client.channel).result(timeout=60)
    print(f"connected to {server}; following the bot's notices (Ctrl-C stops)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("server", help="host:port")
    parser.add_argument("--strategy", choices=("greedy", "random"), default="greedy")
    parser.add_argument("--until-tournament", metavar="T", help="stop when tournament T has finished")
    parser.add_argument(
        "--after", type=int, default=0, metavar="N", help="resume after this notice (0: the whole history)"
    )
    parser.add_argument("--tls", action="store_true")
    parser.add_argument("--ca", metavar="FILE", help="PEM file of the authority to trust (implies --tls)")
    args = parser.parse_args()
    key = os.environ.get("MATCHSERVER_BOT_KEY")  # from the environment, out of the process list
    if not key:
        print("arena_bot: set MATCHSERVER_BOT_KEY to the bot's key (matchctl bot create)", file=sys.stderr)
        return 2

    finished: list[str] = []
    received = [args.after]  # the last notice's position, for Ctrl-C to say where to resume

    def until(notice: Any) -> bool:
        received[0] = notice.position
        if notice.kind == "tournament_finished" and notice.tournament_id == args.until_tournament:
            finished.append(notice.tournament_id)
        return bool(finished)

    def interrupted(signum: int, frame: Any) -> None:  # Ctrl-C: say where to resume, and stop at once
        print(f"stopped after notice #{received[0]} (resume with --after {received[0]})", file=sys.stderr, flush=True)
        os._exit(0)  # (an interrupt inside a gRPC call can leave closing the channel waiting for good)

    signal.signal(signal.SIGINT, interrupted)

    try:
        connected(args.server, args.tls, args.ca)
        last = run_bot(
            make_decide(args.strategy),
            server=args.server,
            bot_key=key,
            tls=args.tls,
            ca=args.ca,
            after=args.after,
            until=until,
            log=lambda line: print(line, flush=True),
        )
    except BotKeyRefused as refused:
        print(f"arena_bot: {refused}", file=sys.stderr)
        return 1
    except grpc.FutureTimeoutError:
        print(f"arena_bot: no server answers at {args.server}", file=sys.stderr)
        return 1
    if finished:
        return 0
    print(f"stopped after notice #{last} (resume with --after {last})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
