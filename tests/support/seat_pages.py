"""People at their seat pages in a real browser, and example bots at the other seats over gRPC.

A person opens the invitation link, claims the seat (a POST from the page's button) and plays by typing
into the command box; what they type is what the game's example bot would send on their own view. The
bots play the other seats with their own tokens. Every wait is on a condition (the page's text, its
data-version), never on the clock."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import grpc

from clients.bots import bot_names, get_bot
from clients.client import MatchClient
from tests.browser.conftest import SCREENSHOTS, WAIT_MS

# Every text #status showed, in order: the sections are replaced whole by the event stream, so a phase
# the page passed through is seen even when the test looked only later.
WATCH_STATUS = """() => {
  const status = document.getElementById("status");
  window.seenStatus = [status.textContent];
  new MutationObserver(() => window.seenStatus.push(status.textContent))
    .observe(status, { childList: true, subtree: true, characterData: true });
}"""


# The page runs under its own content security policy (no eval): waits are functions, never expressions.
SAID = "document.getElementById('understood').textContent"
ANSWER = "document.getElementById('answer')"


def cookie_token(context: Any) -> str:
    """The seat's token, as the claim's cookie holds it (HttpOnly: only the browser's own store reads it)."""
    tokens = [c["value"] for c in context.cookies() if c["name"] == "seat"]
    assert len(tokens) == 1, context.cookies()
    return str(tokens[0])


def claim(context: Any, join_url: str) -> Any:
    """Open an invitation link in `context`, press its claim button and land on the seat's page."""
    opened = context.new_page()
    opened.goto(join_url)
    opened.locator("form button").click()
    opened.wait_for_url("**/seat/*")
    opened.locator("#live-state", has_text="following").wait_for()
    opened.evaluate(WATCH_STATUS)
    return opened


def seen_status(page: Any) -> list[str]:
    return list(page.evaluate("window.seenStatus"))


def page_version(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.version"))


def wait_version(page: Any, version: int) -> None:
    """Until the page shows the match at `version` (the event stream brought it)."""
    page.wait_for_function(f"() => Number(document.body.dataset.version) === {int(version)}", timeout=WAIT_MS)


def type_command(page: Any, text: str) -> str:
    """Type `text` and wait until the page says what it understood; returns what it said."""
    page.fill("#text", text)
    said = page.locator("#understood")
    page.wait_for_function(f"() => {SAID}.startsWith('understood:') || {SAID}.startsWith('not understood:')")
    words = str(said.text_content())
    assert words.startswith("understood:"), f"{text!r}: {words}"
    return words


def send(page: Any, text: str) -> str:
    """Type `text`, see it understood, press submit and wait for the answer; returns the answer."""
    type_command(page, text)
    page.wait_for_function("() => !document.getElementById('send').disabled")
    page.click("#send")
    page.wait_for_function(f"() => {ANSWER}.textContent.startsWith('accepted:') || {ANSWER}.className === 'bad'")
    answer = str(page.locator("#answer").text_content())
    assert answer.startswith("accepted:"), f"{text!r}: {answer}"
    page.evaluate(f"() => {{ {ANSWER}.textContent = ''; {ANSWER}.className = ''; }}")  # the next answer is new
    return answer


@dataclass
class Bots:
    """Example bots at some seats of a match, each with its own token; `act` lets each bot that may act."""

    client: MatchClient
    match_id: str
    game: str
    tokens: Mapping[str, str]
    name: str = ""
    rngs: dict[str, random.Random] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.bot = get_bot(self.game, self.name or bot_names(self.game)[0])
        self.rngs = {seat: random.Random(n) for n, seat in enumerate(self.tokens)}

    def act(self) -> bool:
        """Each bot submits once if its view asks it to; True if any did."""
        acted = False
        for seat, token in self.tokens.items():
            text = self.bot(self.client.state(self.match_id, token).view, seat, self.rngs[seat])
            if not text:
                continue
            try:
                self.client.submit(self.match_id, token, text)
            except grpc.RpcError as exc:  # the phase moved on under it (a deadline, the person's move)
                if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                continue
            acted = True
        return acted


def person_move(client: MatchClient, match_id: str, game: str, seat: str, token: str, rng: random.Random) -> str | None:
    """What the game's first example bot would send for the person now, on the person's own view."""
    return get_bot(game, bot_names(game)[0])(client.state(match_id, token).view, seat, rng)


def join_urls(created: Any) -> dict[str, str]:
    return {invitation.player: invitation.join_url for invitation in created.invitations}


def seat_bots(client: MatchClient, created: Any, seats: list[str], name: str = "") -> Bots:
    """Example bots at `seats`, each seat claimed with its own invitation (its own token, never the host's)."""
    codes = {invitation.player: invitation.invitation for invitation in created.invitations}
    tokens = {seat: client.join(created.match_id, seat, invitation=codes[seat]) for seat in seats}
    return Bots(client, created.match_id, client.state(created.match_id).game, tokens, name)


def shoot(page: Any, name: str) -> None:
    """The page at a phone's width and a desktop's, whole, under var/screenshots/ (nothing wider than the
    window: a page that scrolls sideways at 375 px is a broken page)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        page.wait_for_function(f"() => document.documentElement.clientWidth === {width}")
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= width, f"{name} is {wide} px wide at {width} px"
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)
