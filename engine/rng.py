"""Seeded randomness: every draw is derived from the match seed and the match version.

A decision at version N always gets the same generator, so re-running `decide` (verify) draws the
same values; the values drawn are written into the events, so `evolve` never draws.
"""

from __future__ import annotations

import hashlib
import random


def rng_for(seed: int, version: int, purpose: str = "decide") -> random.Random:
    digest = hashlib.sha256(f"{seed}:{version}:{purpose}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))
