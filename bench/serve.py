"""The real matchserver program with the duel fixture game registered, for benchmarks that run the server
in its own process: `python -m bench.serve --address 127.0.0.1:0 --var DIR` (the same flags as matchserver)."""

from __future__ import annotations

import sys

from engine import registry
from engine.fixtures import duel
from server.main import main

if __name__ == "__main__":
    registry.register(duel.GAME)  # type: ignore[arg-type]  # a fixture game: a tuple of one command type
    main(sys.argv[1:])
