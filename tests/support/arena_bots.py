"""Arena bots for end-to-end tests: each registered bot runs clients.botloop.run_bot in a thread, playing
with the example bots of clients.bots, until its tournament's `tournament_finished` notice."""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from typing import Any

from clients.botloop import current_match, run_bot
from clients.bots import get_bot
from matchserver.v1 import arena_pb2 as arena_pb

BEST = {"last-gathering": "greedy_bot", "cookoff": "judge_bot", "mining": "greedy_bot"}
WAIT = 120.0  # a bound on a hang, not a speed requirement


def decide(game: str, view: dict[str, Any], seat: str) -> str | None:
    """The best example bot of the game, its random generator seeded by the match and the seat."""
    return get_bot(game, BEST[game])(view, seat, random.Random(f"{current_match()}:{seat}:{view.get('round')}"))


@dataclass
class ArenaBot:
    """One bot's run_bot in a thread: its log, the position it returned, or what it raised."""

    name: str
    key: str
    until: Any
    lines: list[str] = field(default_factory=list)
    returned: int | None = None
    raised: BaseException | None = None
    thread: threading.Thread | None = None

    def start(self, server: str, after: int = 0) -> ArenaBot:
        def run() -> None:
            try:
                self.returned = run_bot(
                    decide, server=server, bot_key=self.key, after=after, until=self.until, log=self.lines.append
                )
            except BaseException as exc:  # the test reads it: a thread's exception is otherwise lost
                self.raised = exc

        self.thread = threading.Thread(target=run, name=f"bot-{self.name}", daemon=True)
        self.thread.start()
        return self

    def finish(self, timeout: float = WAIT) -> int:
        """Wait for run_bot's return; a failure says what the bot logged."""
        assert self.thread is not None
        self.thread.join(timeout)
        log = "\n".join(self.lines[-30:])
        assert not self.thread.is_alive(), f"{self.name} never stopped; its last lines:\n{log}"
        assert self.raised is None, f"{self.name} raised {self.raised!r}; its last lines:\n{log}"
        assert self.returned is not None
        return self.returned


def until_finished(tournament_id: str) -> Any:
    def until(notice: arena_pb.BotEventsResponse) -> bool:
        return notice.kind == "tournament_finished" and notice.tournament_id == tournament_id

    return until


def play_tournament(server: str, keys: dict[str, str], tournament_id: str) -> dict[str, ArenaBot]:
    """Every bot plays its seats until the tournament is over; each bot's run, for its log."""
    bots = {name: ArenaBot(name, key, until_finished(tournament_id)).start(server) for name, key in keys.items()}
    for bot in bots.values():
        bot.finish()
    return bots
