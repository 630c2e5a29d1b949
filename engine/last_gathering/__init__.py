"""The Last Gathering: a shepherd tile-auction game (rule text seeds/000_dec85975035717e2.txt, LG-1..LG-13).

GAME plays rules version 3 (LG-12's deadline grid at noon UTC, LG-13); RULES_VERSIONS keeps version 2
(the grid from the start plus 54 h) and version 1 (LG-P4's deadlines) for the matches stored under them.
"""

from engine.last_gathering.game import GAME, RULES_VERSIONS

__all__ = ["GAME", "RULES_VERSIONS"]
