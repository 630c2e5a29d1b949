"""Subscribe with SubscribeRequest.bundle: each pass's updates in one message, the same updates in the same
order as one by one, and the client's Subscription yields them one at a time (issue 30: fan-out cost)."""

from __future__ import annotations

import json

from matchserver.v1 import matchserver_pb2 as pb
from tests.support.duel import seat_duel
from tests.support.server import ServerThread


def test_a_bundled_subscription_carries_the_same_updates_in_fewer_messages(server: ServerThread) -> None:
    client = server.client()
    match_id, _, ann, bob = seat_duel(client, seed=3)
    for picks in ((3, 1), (2, 2), (1, 3)):  # the whole duel: three rounds
        for token, number in zip((ann, bob), picks, strict=True):
            client.submit(match_id, token, f"pick {number}")
    assert client.state(match_id).status.finished

    def raw(bundle: bool) -> tuple[list[tuple[int, str, str]], int]:
        request = pb.SubscribeRequest(match_id=match_id, from_version=0, bundle=bundle)
        call = client.stub.Subscribe(request, metadata=client._auth(bob), timeout=30)
        flat, received = [], 0
        try:
            for message in call:
                received += 1
                for update in message.updates or [message]:
                    assert not update.updates  # never a bundle inside a bundle
                    flat.append((update.event.version, update.event.json, update.view_json))
                if flat and flat[-1][0] == client.state(match_id).version:
                    break
        finally:
            call.cancel()
        return flat, received

    one_by_one, messages = raw(False)
    bundled, bundles = raw(True)
    assert bundled == one_by_one and messages == len(one_by_one)
    assert bundles == 1 < messages  # the whole catch-up in one message
    # The client's Subscription yields a bundle's updates one at a time, as it yields unbundled ones.
    seen = []
    for update in client.subscribe(match_id, bob, bundle=True):
        seen.append(update.event.version)
        if update.event.version == one_by_one[-1][0]:
            break
    assert seen == [version for version, _, _ in one_by_one]
    assert json.loads(one_by_one[-1][2])  # the last update carries the view
