"""The mining game (rule text 004): five miners on a circular board of 15 spaces, seven rounds.

GAME plays rules version 1, the only one so far: RULES_VERSIONS (earlier rules kept for stored matches)
is empty.
"""

from engine.mining.game import GAME, RULES_VERSIONS

__all__ = ["GAME", "RULES_VERSIONS"]
