"""The Last Gathering: a shepherd tile-auction game (rule text seeds/000_dec85975035717e2.txt, LG-1..LG-11)."""

from engine.last_gathering.game import GAME

__all__ = ["GAME"]
