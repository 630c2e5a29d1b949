"""The host's console over plain HTTP against a real server: who may sign in, that each action is the same
audited host record as over gRPC, that a seat page shows it, and what another site or a flood cannot do."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import time
from pathlib import Path

import pytest

from clients.client import MatchClient
from server.streams import StreamLimits
from server.web.site import IDLE_TIMEOUT
from tests.support.certificates import make_certificates
from tests.support.live_http import get, port, start
from tests.support.pages import Person, form_token, join_path
from tests.support.server import ServerThread

SEATS = ["ann", "bob"]


def hosted(server: ServerThread) -> tuple[MatchClient, str, str, dict[str, str]]:
    """A started Cookoff match: its host token and each seat's token."""
    client = server.client()
    made = client.create("cookoff", SEATS, seed=7)
    tokens = {
        seat.player: client.join(made.match_id, seat.player, invitation=seat.invitation) for seat in made.invitations
    }
    return client, made.match_id, made.host_token, tokens


def signed_in(server: ServerThread, match_id: str, token: str) -> tuple[Person, str]:
    host = Person(server)
    answer = host.post_form(f"/host/{match_id}/signin", {"token": token})
    assert answer.status == 303, answer.body
    page = host.get(f"/host/{match_id}")
    assert page.status == 200 and "<h1>Host console</h1>" in page.body
    return host, form_token(page.body)


def host_records(client: MatchClient, match_id: str) -> list[dict[str, object]]:
    return [json.loads(e.json) for e in client.history(match_id) if e.kind == "host"]


def test_only_the_host_or_admin_signs_in(server: ServerThread) -> None:
    _, match_id, host_token, tokens = hosted(server)
    for wrong in (tokens["ann"], "mss_nonsense", ""):
        refused = Person(server).post_form(f"/host/{match_id}/signin", {"token": wrong})
        assert refused.status == 403 and "sign in" in refused.body
    signed_in(server, match_id, host_token)
    signed_in(server, match_id, server.admin_token)


def test_a_pause_from_the_console_is_the_audited_host_record_and_the_seat_page_shows_it(server: ServerThread) -> None:
    client, match_id, host_token, tokens = hosted(server)
    host, csrf = signed_in(server, match_id, host_token)
    paused = host.post_form(f"/host/{match_id}/act", {"action": "pause", "reason": "a <b>dispute</b>", "csrf": csrf})
    assert paused.status == 200 and "pause done" in paused.body
    assert "a &lt;b&gt;dispute&lt;/b&gt;" in paused.body  # the reason in the audit, as text
    (record,) = host_records(client, match_id)
    assert record["action"] == "pause" and record["reason"] == "a <b>dispute</b>"
    ann = Person(server)
    assert ann.post_form(f"/seat/{match_id}/signin", {"token": tokens["ann"]}).status == 303
    assert "paused by the host" in ann.get(f"/seat/{match_id}").body
    extended = host.post_form(
        f"/host/{match_id}/act", {"action": "extend", "seconds": "120", "reason": "", "csrf": csrf}
    )
    assert extended.status == 200 and "extend done" in extended.body
    resumed = host.post_form(f"/host/{match_id}/act", {"action": "resume", "reason": "settled", "csrf": csrf})
    assert resumed.status == 200
    assert [r["action"] for r in host_records(client, match_id)] == ["pause", "extend", "resume"]
    assert "paused by the host" not in ann.get(f"/seat/{match_id}").body


def test_a_refused_action_says_why_and_writes_nothing(server: ServerThread) -> None:
    client, match_id, host_token, _ = hosted(server)
    host, csrf = signed_in(server, match_id, host_token)
    before = client.state(match_id).version
    resumed = host.post_form(f"/host/{match_id}/act", {"action": "resume", "reason": "", "csrf": csrf})
    assert resumed.status == 409 and "not paused" in resumed.body
    cancelled = host.post_form(f"/host/{match_id}/act", {"action": "cancel", "reason": "", "csrf": csrf})
    assert cancelled.status == 400 and "cancel needs a reason" in cancelled.body
    odd = host.post_form(f"/host/{match_id}/act", {"action": "explode", "reason": "x", "csrf": csrf})
    assert odd.status == 400 and "no such host action" in odd.body
    assert client.state(match_id).version == before


def test_a_rollback_from_the_console_retracts_and_the_seat_sees_it(server: ServerThread) -> None:
    client, match_id, host_token, tokens = hosted(server)
    seated_at = client.state(match_id).version
    client.submit(match_id, tokens["ann"], "I will send no workers.")
    host, csrf = signed_in(server, match_id, host_token)
    rolled = host.post_form(
        f"/host/{match_id}/act", {"action": "rollback", "to": str(seated_at), "reason": "oops", "csrf": csrf}
    )
    assert rolled.status == 200, rolled.body
    ann = Person(server)
    ann.post_form(f"/seat/{match_id}/signin", {"token": tokens["ann"]})
    assert "taken back by a rollback" in ann.get(f"/seat/{match_id}").body


def test_a_new_invitation_from_the_console_is_shown_once_as_its_link(server: ServerThread) -> None:
    client = server.client()
    made = client.create("cookoff", SEATS, seed=7)
    host, csrf = signed_in(server, made.match_id, made.host_token)
    invited = host.post_form(f"/host/{made.match_id}/invite", {"seat": "bob", "csrf": csrf})
    assert invited.status == 200
    link = invited.body.split("<code id='invitation-link'>")[1].split("</code>")[0]
    assert link.startswith(f"http://127.0.0.1:{port(server)}/join/{made.match_id}/bob/")
    old = join_path(next(s.join_url for s in made.invitations if s.player == "bob"))
    assert Person(server).get(old).status == 410  # the earlier one stopped working
    assert Person(server).post_form(join_path(link), {}).status == 303
    assert link not in host.get(f"/host/{made.match_id}").body  # shown only when made


def test_console_posts_need_the_sessions_token_and_this_origin(server: ServerThread) -> None:
    client, match_id, host_token, _ = hosted(server)
    host, csrf = signed_in(server, match_id, host_token)
    forged = Person(server, cookies=dict(host.cookies), origin="https://evil.example")
    assert forged.post_form(f"/host/{match_id}/act", {"action": "pause", "reason": "x", "csrf": csrf}).status == 403
    assert host.post_form(f"/host/{match_id}/act", {"action": "pause", "reason": "x"}).status == 403
    assert not host_records(client, match_id)
    # A seat's cookie is not a host's, even with the host's form token.
    seat_cookie = Person(server, cookies={"host": ("mss_seat", f"/host/{match_id}")})
    assert (
        seat_cookie.post_form(f"/host/{match_id}/act", {"action": "pause", "reason": "x", "csrf": csrf}).status == 403
    )


def test_a_thousand_event_streams_from_one_client_are_capped_and_the_server_still_answers(tmp_path: Path) -> None:
    limits = StreamLimits(max_page_streams=50, max_page_streams_per_address=20)
    server = start(tmp_path, streams=limits)
    try:
        client = server.client()
        match_id = client.create("last-gathering", ["p0", "p1", "p2", "p3"], seed=5).match_id
        opened: list[socket.socket] = []
        statuses: list[int] = []
        try:
            for _ in range(1000):
                sock = socket.create_connection(("127.0.0.1", port(server)), timeout=30)
                sock.sendall(f"GET /matches/{match_id}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                statuses.append(int(sock.recv(64).split()[1]))
                opened.append(sock)
            assert statuses.count(200) == 20 and statuses.count(503) == 980
            # Everyone else is still served: another address's page and stream, and gRPC.
            other = socket.create_connection(("127.0.0.1", port(server)), timeout=30, source_address=("127.0.0.2", 0))
            other.sendall(f"GET /matches/{match_id}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert int(other.recv(64).split()[1]) == 200
            other.close()
            assert get(server, f"/matches/{match_id}")[0] == 200
            assert client.state(match_id).version >= 1
        finally:
            for sock in opened:
                sock.close()
    finally:
        server.stop()


def test_under_tls_the_session_cookie_is_secure(tmp_path: Path) -> None:
    files = make_certificates(tmp_path / "certs")
    server = start(tmp_path, tls_cert=str(files.cert), tls_key=str(files.key))
    try:
        assert server.running is not None and server.running.page_url.startswith("https://")
        context = ssl.create_default_context(cafile=str(files.ca))
        client = MatchClient(server.address, timeout=30, ca=files.ca, host_credential=server.admin_token)
        made = client.create("cookoff", SEATS, seed=1)
        link = join_path(made.invitations[0].join_url)
        connection = http.client.HTTPSConnection("localhost", port(server), context=context, timeout=30)
        connection.request("POST", link, headers={"Origin": f"https://localhost:{port(server)}"})
        response = connection.getresponse()
        response.read()
        assert response.status == 303
        cookie = response.headers["Set-Cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    finally:
        server.stop()


@pytest.mark.slow
def test_a_client_trickling_a_request_head_is_cut_off_and_others_are_served(server: ServerThread) -> None:
    slow = socket.create_connection(("127.0.0.1", port(server)), timeout=60)
    slow.sendall(b"GET /matches/x HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # never finished
    assert get(server, "/")[0] == 200  # everyone else is served meanwhile
    assert slow.recv(1024) == b""  # the server closed it (IDLE_TIMEOUT), long before the socket's own 60 s
    slow.close()


def test_pages_are_compressed_and_a_body_over_64_kib_is_refused_before_anything_is_done(server: ServerThread) -> None:
    client, match_id, host_token, _ = hosted(server)
    connection = http.client.HTTPConnection("127.0.0.1", port(server), timeout=30)
    connection.request("GET", f"/matches/{match_id}", headers={"Accept-Encoding": "gzip"})
    response = connection.getresponse()
    response.read()
    assert response.status == 200 and response.headers["Content-Encoding"] == "gzip"
    connection.close()
    host, csrf = signed_in(server, match_id, host_token)
    before = client.state(match_id).version
    huge = host.post_form(f"/host/{match_id}/act", {"action": "pause", "reason": "x" * 70_000, "csrf": csrf})
    assert huge.status == 413
    assert client.state(match_id).version == before


def test_a_client_that_never_finishes_its_headers_is_disconnected_and_others_are_served(server: ServerThread) -> None:
    """The adversary holds connections open by sending a request's headers a line at a time and never the
    blank line that ends them (slowloris). Each is closed once it has been open IDLE_TIMEOUT seconds; while
    they trickle, a page is still answered."""
    deadline = time.monotonic() + IDLE_TIMEOUT + 50  # generous: a loaded machine closes late, never early
    slow = [socket.create_connection(("127.0.0.1", port(server)), timeout=5) for _ in range(20)]
    opened = time.monotonic()
    try:
        for sock in slow:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        closed: dict[int, float] = {}
        while len(closed) < len(slow) and time.monotonic() < deadline:
            for index, sock in enumerate(slow):
                if index in closed:
                    continue
                try:
                    sock.sendall(b"X-Slow: 1\r\n")  # a header line, never the end of the headers
                    sock.settimeout(0.05)
                    if sock.recv(64) == b"":
                        closed[index] = time.monotonic()
                except TimeoutError:
                    pass
                except OSError:  # reset by the server: closed too
                    closed[index] = time.monotonic()
            assert get(server, "/")[0] == 200
        assert len(closed) == len(slow), f"{len(slow) - len(closed)} slow connections were still open"
        assert min(closed.values()) - opened >= IDLE_TIMEOUT - 1  # not before their time
    finally:
        for sock in slow:
            sock.close()
