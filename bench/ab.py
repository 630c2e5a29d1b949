"""Two trees of ours, A/B, in bench.peers' own interleaved windows: this checkout ("new") and another ("old",
e.g. a worktree of an earlier commit) run as two servers, each window running both in turn, the order
rotating, so that the machine's drift moves both alike (on this VM one tree measured alone drifts by 15-25%
between runs; alternating whole runs cannot separate a change smaller than that).

    git worktree add /tmp/old REV && cp -r matchserver /tmp/old/   # the generated code is not committed
    python -m bench.ab /tmp/old [--what moves|fanout] [--windows 6]

`moves`: 8 clients, one long match each (the Play target's row); `new`: 8 clients, a new match every six
moves (and this tree's CreateMatch p99 meanwhile); `fanout`: 200 spectators of one match moved at 20 Hz.
Prints each figure of both and new / old (the median window of each)."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

from bench import peers
from bench.peer_procs import Served
from bench.procs import start_server


def _start_in(tree: Path, var: Path) -> Any:
    """bench.serve from `tree` (its modules first on the path, started in it)."""
    here, path = os.getcwd(), os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(tree)
    os.chdir(tree)
    try:
        return start_server(var)
    finally:
        os.chdir(here)
        if path is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old", type=Path, help="the other tree (its matchserver/ generated)")
    parser.add_argument("--what", choices=("moves", "new", "fanout"), default="moves")
    parser.add_argument("--windows", type=int, default=6)
    args = parser.parse_args(argv)
    os.environ["BENCH_SPECTATORS"] = "1"  # bench.serve: 200 watchers from one address
    with tempfile.TemporaryDirectory() as folder:
        new = start_server(Path(folder) / "new")
        old = _start_in(args.old.resolve(), Path(folder) / "old")
        other = Served("old", old.pid, old.address, old.admin_token(), child=old, tree=args.old.resolve())
        running = [Served("ours", new.pid, new.address, new.admin_token(), child=new), other]
        out: peers.Measured = {}
        try:
            if args.what == "fanout":
                peers.fanout(running, 200, args.windows, 4.0, out)
            else:
                peers.moves(running, 8, 3 if args.what == "new" else 0, args.windows, 2.0, out)
        finally:
            for server in running:
                server.stop()
    for quantity, values in out.items():
        if "old" not in values:  # CreateMatch: measured on this tree only
            print(f"{quantity:55s} new {values['ours']:9.1f}")
            continue
        ratio = values["ours"] / values["old"] if values["old"] else float("nan")
        print(f"{quantity:55s} new {values['ours']:9.1f}  old {values['old']:9.1f}  new/old {ratio:.3f}")


if __name__ == "__main__":
    main()
