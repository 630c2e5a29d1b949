"""The engine's error families; the server maps each family to one gRPC status."""

from __future__ import annotations


class GameError(Exception):
    """Base of every error a command or a configuration can raise."""


class MalformedCommand(GameError):
    """The command cannot be understood (bad text, missing or out-of-range field): INVALID_ARGUMENT."""


class InvalidConfig(GameError):
    """A match configuration the game cannot play: INVALID_ARGUMENT."""


class RuleViolation(GameError):
    """Well formed, but the rules forbid it now: FAILED_PRECONDITION.

    `rule` names the rule text section or ruling (e.g. "LG-8") that forbids it.
    """

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(message)
        self.rule = rule

    def __str__(self) -> str:
        text = super().__str__()
        return f"{text} ({self.rule})" if self.rule else text


class NotYourTurn(RuleViolation):
    """The actor may not act in the current phase (wrong phase, wrong player, match over)."""


class AlreadySubmitted(RuleViolation):
    """A binding submission was already made this phase."""
