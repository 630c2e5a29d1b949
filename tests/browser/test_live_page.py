"""The live page (`matchserver --http`): a real server serving HTTP beside gRPC, a real browser following
a match as it is played, and the page's and stream's bytes checked for what a spectator may not see."""

from __future__ import annotations

import http.client
import json
import random
import socket
import ssl
from pathlib import Path
from typing import Any

import pytest

from clients.bots import bot_names, get_bot
from clients.client import MatchClient
from pictures import render_svg
from pictures.pack import unpack
from pictures.page import data_of
from server.app import Settings
from server.streams import StreamLimits
from tests.browser.conftest import SCREENSHOTS
from tests.support.certificates import make_certificates
from tests.support.live_http import EventStream, get, port, start
from tests.support.server import ServerThread
from tests.support.waiting import wait_until

PLAYERS = ["p0", "p1", "p2", "p3"]


def seated(
    server: ServerThread, private: bool = False, client: MatchClient | None = None
) -> tuple[str, dict[str, str]]:
    """A Last Gathering match with every seat filled (sealed orders: a spectator learns only THAT)."""
    client = client or server.client()
    match_id = client.create("last-gathering", PLAYERS, seed=5, private=private).match_id
    return match_id, {p: client.join(match_id, p) for p in PLAYERS}


def bot_orders(client: MatchClient, match_id: str, player: str, token: str) -> str:
    view = client.state(match_id, token).view
    text = get_bot("last-gathering", bot_names("last-gathering")[0])(view, player, random.Random(1))
    assert text
    return text


def test_the_live_page_works_under_its_own_content_security_policy(browser: Any, server: ServerThread) -> None:
    match_id, _ = seated(server)
    context = browser.new_context(viewport={"width": 1400, "height": 900})  # the policy in force
    try:
        strict = context.new_page()
        blocked: list[str] = []
        strict.on("console", lambda message: blocked.append(message.text) if message.type == "error" else None)
        strict.goto(f"http://127.0.0.1:{port(server)}/matches/{match_id}")
        strict.locator("#live-state", has_text="following").wait_for(timeout=30_000)
        strict.locator("#picture svg").wait_for(timeout=30_000)
        assert not blocked
    finally:
        context.close()


def test_the_live_page_shows_a_submission_made_after_it_opened(page: Any, server: ServerThread) -> None:
    # One client, connected by the seating before the page opens: a connection opened later, while chromium
    # and the server share two loaded cores, once timed out before the server's first HTTP/2 frame.
    client = server.client()
    match_id, tokens = seated(server, client=client)
    page.goto(f"http://127.0.0.1:{port(server)}/matches/{match_id}")
    page.wait_for_function("document.getElementById('live-state').textContent === 'following'")
    before = int(page.evaluate("document.body.dataset.version"))
    assert before == client.state(match_id).version
    submitted = client.submit(match_id, tokens["p0"], bot_orders(client, match_id, "p0", tokens["p0"]))
    page.wait_for_function(f"document.body.dataset.version === '{submitted.version}'")
    assert "p0" in page.inner_text("#caption")
    page.wait_for_selector("#picture svg")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "live-last-gathering.png"), full_page=True)
    page.keyboard.press("ArrowLeft")  # the versions before it are still there to step through
    page.wait_for_function(f"document.body.dataset.version === '{submitted.version - 1}'")


def test_a_sealed_submission_is_not_in_the_page_or_its_stream_before_reveal(server: ServerThread) -> None:
    match_id, tokens = seated(server)
    stream = EventStream(server, f"/matches/{match_id}/events")
    try:
        first = stream.next_message()
        assert first["steps"], "a stream from nothing starts with every version so far"
        orders = bot_orders(server.client(), match_id, "p1", tokens["p1"])
        submitted = server.client().submit(match_id, tokens["p1"], orders)
        update = stream.next_message()
        assert update["steps"][-1]["v"] == submitted.version
    finally:
        stream.close()
    _, page = get(server, f"/matches/{match_id}")
    host = server.client()
    admin = server.admin_token
    sealed = json.loads(host.history(match_id, admin)[submitted.version - 1].json)["event"]
    assert sealed["type"] == "orders_submitted" and not sealed.get("sealed"), "the host sees the sealed orders"
    assert "(sealed until the rules reveal it)" in update["steps"][-1]["c"]
    host_words = [
        line for entry in host.audit(match_id, admin) if entry.version == submitted.version for line in entry.lines
    ]
    data = data_of(page)
    drawn = unpack(data["fragments"], data["pictures"])[data["steps"][-1]["p"]]
    assert drawn == render_svg("last-gathering", host.state(match_id).view), "exactly the spectator's picture"
    for shown in (page, stream.raw):
        assert orders not in shown and json.dumps(orders)[1:-1] not in shown
        for line in host_words:
            if "sealed" not in line:
                assert line not in shown, "the host's words for the sealed orders reached a spectator"


def test_a_private_match_answers_404_like_an_unknown_one(server: ServerThread) -> None:
    private, _ = seated(server, private=True)
    public, _ = seated(server)
    assert get(server, f"/matches/{public}")[0] == 200
    unknown = get(server, "/matches/00000000-0000-4000-8000-000000000000")
    assert unknown[0] == 404
    for path in (f"/matches/{private}", f"/matches/{private}/events"):
        assert get(server, path) == unknown
    assert get(server, "/matches/not-a-match")[0] == 404
    status, front = get(server, "/")
    assert status == 200 and public in front and private not in front, "the front door lists only the public one"
    assert get(server, "/no-such-page")[0] == 404


def test_one_client_address_holds_at_most_max_page_streams_per_address_and_others_still_get_theirs(
    tmp_path: Path,
) -> None:
    server = start(tmp_path, streams=StreamLimits(max_page_streams=10, max_page_streams_per_address=2))
    try:
        match_id, _ = seated(server)
        path = f"/matches/{match_id}/events"
        squatter = [EventStream(server, path), EventStream(server, path)]
        assert [s.status for s in squatter] == [200, 200]
        refused = EventStream(server, path)
        assert refused.status == 503
        refused.close()
        other = EventStream(server, path, source="127.0.0.2")  # another client is still served
        assert other.status == 200 and other.next_message()
        other.close()
        squatter.pop().close()
        wait_until(lambda: EventStream(server, path).status == 200, "the squatter's place is free again")
        for stream in squatter:
            stream.close()
    finally:
        server.stop()


def test_the_live_page_serves_at_most_max_page_streams_event_streams(tmp_path: Path) -> None:
    server = start(tmp_path, streams=StreamLimits(max_page_streams=2))
    try:
        match_id, _ = seated(server)
        path = f"/matches/{match_id}/events"
        opened = [EventStream(server, path), EventStream(server, path)]
        assert [s.status for s in opened] == [200, 200]
        status, body = get(server, path)
        assert status == 503 and "StreamLimits.max_page_streams=2" in body
        assert get(server, f"/matches/{match_id}")[0] == 200, "the page itself is not an event stream"
        opened.pop().close()
        wait_until(lambda: EventStream(server, path).status == 200, "a place is free again")
        for stream in opened:
            stream.close()
    finally:
        server.stop()


def test_the_live_page_is_https_with_the_servers_certificate(tmp_path: Path) -> None:
    certificates = make_certificates(tmp_path / "tls")
    server = start(tmp_path, tls_cert=str(certificates.cert), tls_key=str(certificates.key))
    try:
        client_ca = ssl.create_default_context(cafile=str(certificates.ca))
        connection = http.client.HTTPSConnection("127.0.0.1", port(server), timeout=30, context=client_ca)
        connection.request("GET", "/matches/00000000-0000-4000-8000-000000000000")
        assert connection.getresponse().status == 404
        connection.close()
    finally:
        server.stop()


def test_bad_requests_get_a_clear_status_and_the_server_goes_on(server: ServerThread) -> None:
    def raw(line: bytes, host: bool = True) -> bytes:
        with socket.create_connection(("127.0.0.1", port(server)), timeout=30) as sock:
            sock.sendall(line + (b"\r\nHost: x" if host else b"") + b"\r\nConnection: close\r\n\r\n")
            return b"".join(iter(lambda: sock.recv(65536), b""))

    assert raw(b"POST /matches/x HTTP/1.1").startswith(b"HTTP/1.1 405 ")
    assert raw(b"PUT /matches/x HTTP/1.1").startswith(b"HTTP/1.1 405 ")
    assert raw(b"nonsense").startswith(b"HTTP/1.0 400 ")
    assert raw(b"GET /matches/x HTTP/1.1", host=False).startswith(b"HTTP/1.0 400 ")
    assert raw(b"GET / HTTP/2.0").startswith(b"HTTP/2.0 505 ")
    too_long = raw(b"GET /" + b"a" * 10_000 + b" HTTP/1.1")
    assert too_long.startswith(b"HTTP/1.0 400 ") and b"8190 bytes" in too_long
    assert raw(b"GET /matches/x/events?from=1,2 HTTP/1.1").startswith(b"HTTP/1.1 404 ")
    match_id, _ = seated(server)
    assert raw(f"GET /matches/{match_id}/events?from=a,b,c HTTP/1.1".encode()).startswith(b"HTTP/1.1 400 ")
    assert get(server, f"/matches/{match_id}")[0] == 200


def test_plaintext_http_on_a_public_address_is_refused_like_grpc(tmp_path: Path) -> None:
    from server.errors import StartupRefused

    settings = Settings(address="127.0.0.1:0", var_dir=str(tmp_path / "var"), http_address="0.0.0.0:0")
    server = ServerThread(settings)
    try:
        with pytest.raises(StartupRefused, match="insecure-public"):
            server.start()
    finally:
        server.stop()
    assert not (tmp_path / "var").exists(), "refused before anything is created"


def test_a_rollback_reaches_the_live_page_as_retracted_versions(page: Any, server: ServerThread) -> None:
    client = server.client()  # one client, connected before the page opens (as in the test above)
    match_id, tokens = seated(server, client=client)
    before = client.state(match_id).version
    submitted = client.submit(match_id, tokens["p2"], bot_orders(client, match_id, "p2", tokens["p2"]))
    page.goto(f"http://127.0.0.1:{port(server)}/matches/{match_id}")
    page.wait_for_function(f"document.body.dataset.version === '{submitted.version}'")
    assert page.locator("#timeline line.branch").count() == 0
    rolled = client.rollback(match_id, server.admin_token, before, "p2 asked to resubmit")
    page.wait_for_function(f"document.body.dataset.version === '{rolled.version}'")
    page.locator("#timeline line.branch").first.wait_for(state="attached")  # a tick is 0 px wide: "hidden"
    assert page.locator("#timeline line.branch").count() == submitted.version - before
    assert f"rolled back to version {before}" in page.inner_text("#caption")


def test_a_match_of_a_game_without_pictures_answers_404_saying_so(server: ServerThread) -> None:
    """The test game "duel" has no pictures: its page says so instead of failing mid-response."""
    match_id = server.client().create("duel", ["ann", "bob"], seed=1).match_id
    for path in (f"/matches/{match_id}", f"/matches/{match_id}/events"):
        status, body = get(server, path)
        assert status == 404 and "no pictures of duel matches" in body
