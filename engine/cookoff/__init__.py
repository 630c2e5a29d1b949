"""Cookoff (Death Match 7): a two-player cooking duel with sealed phases and reserve clocks.

Rules versions (a stored match plays on under the version it recorded, `engine.registry`):
- "2" (current): the final dish choice runs on the clock like every phase, 120 s then the reserve; a
  player whose reserve runs out there loses (revised CK-6, CK-7; both at once: the DMO, CK-P2).
- "1": the final choice ran on its 120 s base only, and a player who let it pass was judged on the
  latest dish, recorded by `dish_defaulted` (CK-P4, withdrawn 2026-12-01).
Text parsing is the same under both: it only turns a message into the command that is recorded.
"""

from engine.cookoff.game import GAME, RULES_VERSIONS

__all__ = ["GAME", "RULES_VERSIONS"]
