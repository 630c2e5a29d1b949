"""The mining game (rule text 004): five miners on a circular board of 15 spaces, seven rounds."""

from engine.mining.game import MiningGame

GAME = MiningGame()

__all__ = ["GAME", "MiningGame"]
