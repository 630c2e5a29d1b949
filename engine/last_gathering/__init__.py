"""The Last Gathering: a shepherd tile-auction game (rule text seeds/000_dec85975035717e2.txt, LG-1..LG-12).

GAME plays rules version 2 (LG-12's deadline grid); RULES_VERSIONS keeps version 1 (LG-P4's deadlines)
for the matches stored under it.
"""

from engine.last_gathering.game import GAME, RULES_VERSIONS

__all__ = ["GAME", "RULES_VERSIONS"]
