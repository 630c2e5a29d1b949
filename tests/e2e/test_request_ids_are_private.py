"""A host record's request id is the host's own key for retrying a write: History shows it to the host
and to nobody else (issue 23, item 13). The adversary is a spectator or a seat reading the log."""

from __future__ import annotations

import json

from tests.support.duel import seat_duel
from tests.support.server import ServerThread


def test_a_host_records_request_id_is_shown_to_the_host_only(server: ServerThread) -> None:
    client = server.client()
    try:
        match_id, host, ann, _ = seat_duel(client, seed=3)
        client.host_action(match_id, host, "pause", reason="lunch")  # the client sends a request id
        paused = [json.loads(event.json) for event in client.history(match_id, host)]
        assert any(record.get("action") == "pause" and record.get("request") for record in paused)
        for token in (None, ann):
            records = [json.loads(event.json) for event in client.history(match_id, token)]
            pause = [record for record in records if record.get("action") == "pause"]
            assert pause and all("request" not in record for record in pause)
    finally:
        client.close()
