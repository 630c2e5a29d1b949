"""The seat's page and its invitation link over plain HTTP against a real server: what a player, a rival
and another site can and cannot do with them (docs/SECURITY.md, "The pages")."""

from __future__ import annotations

import json
import re

import pytest

from clients.client import MatchClient
from tests.clients.matchctl_cli import matchctl
from tests.support.live_http import port
from tests.support.pages import Person, form_token, join_path
from tests.support.server import ServerThread

SEATS = ["ann", "bob"]


def cookoff(server: ServerThread, private: bool = False) -> tuple[MatchClient, str, dict[str, str]]:
    """A Cookoff match and each seat's invitation link (path), from CreateMatch's answer."""
    client = server.client()
    made = client.create("cookoff", SEATS, seed=7, private=private)
    return client, made.match_id, {seat.player: join_path(seat.join_url) for seat in made.invitations}


@pytest.fixture
def playing(server: ServerThread) -> tuple[MatchClient, str, Person, Person]:
    client, match_id, links = cookoff(server)
    ann, bob = Person(server), Person(server)
    for person, seat in ((ann, "ann"), (bob, "bob")):
        assert person.post_form(links[seat], {}).status == 303
    return client, match_id, ann, bob


def page_of(person: Person, match_id: str) -> str:
    shown = person.get(f"/seat/{match_id}")
    assert shown.status == 200, shown.body
    return shown.body


def example_of(page: str) -> str:
    import html

    found = re.search(r"for example: <code>([^<]+)</code>", page)
    assert found, "the page shows no example command"
    return html.unescape(found.group(1))


def test_create_and_invite_answer_each_seats_link(server: ServerThread) -> None:
    client = server.client()
    made = client.create("cookoff", SEATS, seed=1)
    assert server.running is not None
    base = f"http://127.0.0.1:{port(server)}"
    for seat in made.invitations:
        assert seat.join_url == f"{base}/join/{made.match_id}/{seat.player}/{seat.invitation}"
    invited = client.invite_seat(made.match_id, "bob")
    assert invited.join_url == f"{base}/join/{made.match_id}/bob/{invited.invitation}"


def test_a_get_of_an_invitation_link_does_not_spend_it(server: ServerThread) -> None:
    client, match_id, links = cookoff(server)
    preview = Person(server)
    for _ in range(3):  # a link preview, a second look, a crawler
        shown = preview.get(links["ann"])
        assert shown.status == 200 and "claim the seat ann" in shown.body
        assert not shown.cookies
    version = client.state(match_id).version
    assert client.state(match_id).version == version  # nothing was written by reading
    ann = Person(server)
    claimed = ann.post_form(links["ann"], {})
    assert claimed.status == 303 and claimed.headers["Location"] == f"/seat/{match_id}"
    assert "<h1>ann · cookoff</h1>" in page_of(ann, match_id)


def test_claiming_sets_a_strict_http_only_cookie_scoped_to_the_match(server: ServerThread) -> None:
    _, match_id, links = cookoff(server)
    (cookie,) = Person(server).post_form(links["ann"], {}).cookies
    parts = {part.strip().split("=")[0].lower(): part.strip() for part in cookie.split(";")}
    assert "httponly" in parts
    assert parts["samesite"].lower() == "samesite=strict"
    assert parts["path"] == f"Path=/seat/{match_id}"
    assert "secure" not in parts  # plaintext on loopback; tests/web/test_pages_tls.py checks Secure under TLS


def test_a_cross_site_post_is_refused_and_changes_nothing(server: ServerThread) -> None:
    client, match_id, links = cookoff(server)
    for origin in ("https://evil.example", "none", "null"):
        forged = Person(server, origin=origin).post_form(links["ann"], {})
        assert forged.status == 403 and "cross-site request refused" in forged.body
    before = client.state(match_id).version
    ann = Person(server)
    assert ann.post_form(links["ann"], {}).status == 303
    assert Person(server).post_form(links["bob"], {}).status == 303
    csrf = form_token(page_of(ann, match_id))
    text = example_of(page_of(ann, match_id))
    seated_at = client.state(match_id).version
    assert seated_at > before
    evil = Person(server, cookies=dict(ann.cookies), origin="https://evil.example")
    assert evil.post_json(f"/seat/{match_id}/submit", {"text": text, "request_id": "r1"}, csrf).status == 403
    no_token = ann.post_json(f"/seat/{match_id}/submit", {"text": text, "request_id": "r2"}, "")
    assert no_token.status == 403 and "not from your session" in no_token.body
    assert client.state(match_id).version == seated_at
    done = ann.post_json(f"/seat/{match_id}/submit", {"text": text, "request_id": "r3"}, csrf)
    assert done.status == 200 and done.json()["ok"], done.body
    assert client.state(match_id).version > seated_at


def test_a_second_players_cookie_cannot_read_or_act_on_the_firsts_seat(
    playing: tuple[MatchClient, str, Person, Person],
) -> None:
    client, match_id, ann, bob = playing
    ann_page, bob_page = page_of(ann, match_id), page_of(bob, match_id)
    assert "<h1>ann · cookoff</h1>" in ann_page and "<h1>bob · cookoff</h1>" in bob_page
    text = "I will send 2 workers to the Tanga tree."
    sent = ann.post_json(f"/seat/{match_id}/submit", {"text": text, "request_id": "a1"}, form_token(ann_page))
    assert sent.status == 200 and sent.json()["ok"], sent.body
    assert text in page_of(ann, match_id)  # her own submission, with its receipt
    shown_to_bob = page_of(bob, match_id)

    assert text not in shown_to_bob  # her sealed gathering is not in his page
    # His cookie with her form token: refused; his own acts as him, never as her.
    refused = bob.post_json(f"/seat/{match_id}/submit", {"text": text, "request_id": "b1"}, form_token(ann_page))
    assert refused.status == 403
    acted = bob.post_json(f"/seat/{match_id}/submit", {"text": text, "request_id": "b2"}, form_token(bob_page))
    assert acted.status == 200, acted.body
    causes = [json.loads(e.json).get("cause") or {} for e in client.history(match_id)]
    actors = [cause.get("actor") for cause in causes if cause.get("actor") in SEATS]
    assert actors.count("ann") >= 1 and actors[-1] == "bob"


def test_a_double_submit_with_one_request_id_acts_once(playing: tuple[MatchClient, str, Person, Person]) -> None:
    client, match_id, ann, _ = playing
    page = page_of(ann, match_id)
    before = client.state(match_id).version
    fields = {"text": example_of(page), "request_id": "double-click"}
    first = ann.post_json(f"/seat/{match_id}/submit", fields, form_token(page))
    second = ann.post_json(f"/seat/{match_id}/submit", fields, form_token(page))
    assert first.json() == second.json() and first.json()["ok"]
    after = client.state(match_id).version
    assert after == first.json()["version"] > before
    assert page_of(ann, match_id).count("<li>v") == 1  # one submission listed


def test_checking_a_command_says_what_it_understood_and_writes_nothing(
    playing: tuple[MatchClient, str, Person, Person],
) -> None:
    client, match_id, ann, _ = playing
    csrf = form_token(page_of(ann, match_id))
    before = client.state(match_id).version
    good = ann.post_json(f"/seat/{match_id}/check", {"text": "i will send 2 workers to the tanga tree"}, csrf).json()
    assert good == {"ok": True, "words": "I will send 2 workers to the Tanga tree."}
    bad = ann.post_json(f"/seat/{match_id}/check", {"text": "bake a cake"}, csrf).json()
    assert not bad["ok"] and "gathering" in bad["words"]
    assert client.state(match_id).version == before


def test_markup_a_player_types_is_shown_as_text(playing: tuple[MatchClient, str, Person, Person]) -> None:
    _, match_id, ann, _ = playing
    csrf = form_token(page_of(ann, match_id))
    typed = '<script>alert("x")</script> \' "'
    refused = ann.post_form(f"/seat/{match_id}/submit", {"text": typed, "request_id": "m1", "csrf": csrf})
    assert refused.status == 400  # the game does not understand it: the page says so
    assert "<script>alert(" not in refused.body
    assert "not understood: &#x27;&lt;script&gt;alert(" in refused.body  # the game's words, escaped
    assert ">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &#x27; &quot;</textarea>" in refused.body  # kept to mend


def test_a_private_match_is_404_to_anyone_without_its_invitation(server: ServerThread) -> None:
    _, match_id, links = cookoff(server, private=True)
    stranger = Person(server)
    assert stranger.get(f"/matches/{match_id}").status == 404
    wrong = links["ann"].rsplit("/", 1)[0] + "/not-the-code"
    assert stranger.get(wrong).status == 404
    unknown = stranger.get(f"/join/00000000-0000-4000-8000-000000000000/ann/{links['ann'].rsplit('/', 1)[1]}")
    assert unknown.status == 404
    assert stranger.get(links["ann"]).status == 200  # the invitation itself opens it to its holder


def test_the_seat_page_says_waiting_for_players_until_every_seat_is_filled(server: ServerThread) -> None:
    _, match_id, links = cookoff(server)
    ann = Person(server)
    ann.post_form(links["ann"], {})
    waiting = page_of(ann, match_id)
    assert "waiting for players: bob" in waiting and "time left" not in waiting
    Person(server).post_form(links["bob"], {})
    started = page_of(ann, match_id)
    assert "waiting for players" not in started and "time left" in started


def test_a_used_invitation_says_so_and_a_seat_token_signs_in(server: ServerThread) -> None:
    client, match_id, links = cookoff(server)
    token = client.join(match_id, "ann", invitation=links["ann"].rsplit("/", 1)[1])
    client.join(match_id, "bob", invitation=links["bob"].rsplit("/", 1)[1])
    client.submit(match_id, token, "I will send no workers.")
    assert Person(server).get(links["ann"]).status == 410
    person = Person(server)
    assert "sign in" in person.get(f"/seat/{match_id}").body
    assert person.post_form(f"/seat/{match_id}/signin", {"token": "mss_wrong"}).status == 403
    assert person.post_form(f"/seat/{match_id}/signin", {"token": token}).status == 303
    assert "<h1>ann · cookoff</h1>" in page_of(person, match_id)


def test_matchctl_create_and_invite_print_each_seats_link_beside_its_code(server: ServerThread) -> None:
    created = matchctl(server, "create", "cookoff", "--players", "ann,bob")
    assert created.code == 0, created.err
    match_id = created.out.strip()
    links = re.findall(r"invitation for (\w+): (\S+)  (http://\S+)", created.err)
    assert sorted(seat for seat, _, _ in links) == SEATS
    for seat, code, link in links:
        assert link == f"http://127.0.0.1:{port(server)}/join/{match_id}/{seat}/{code}"
        assert Person(server).get(join_path(link)).status == 200
    invited = matchctl(server, "invite", match_id, "bob")
    code = invited.out.strip()
    assert f"the seat's page: http://127.0.0.1:{port(server)}/join/{match_id}/bob/{code}" in invited.err


def test_a_correction_that_retracts_a_seats_input_asks_that_seat_only_until_it_submits_again(
    server: ServerThread,
) -> None:
    client = server.client()
    made = client.create("cookoff", SEATS, seed=7)
    tokens = {s.player: client.join(made.match_id, s.player, invitation=s.invitation) for s in made.invitations}
    for seat in SEATS:
        client.submit(made.match_id, tokens[seat], "I will send no workers.")
    harvest = client.state(made.match_id).version  # the gathering resolved
    client.submit(made.match_id, tokens["ann"], "I will not place any berries.")  # after the ruling
    filed = client.file_dispute(made.match_id, tokens["bob"], harvest, "recount")
    client.decide_dispute(filed.dispute_id, "correct", "recounted", {}, reapply=False, token=made.host_token)
    pages = {seat: Person(server) for seat in SEATS}
    for seat, person in pages.items():
        assert person.post_form(f"/seat/{made.match_id}/signin", {"token": tokens[seat]}).status == 303
    assert "submit again" in page_of(pages["ann"], made.match_id)
    assert "submit again" not in page_of(pages["bob"], made.match_id)
    client.submit(made.match_id, tokens["ann"], "I will not place any berries.")
    assert "submit again" not in page_of(pages["ann"], made.match_id)
