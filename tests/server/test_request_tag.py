"""A write's idempotency tag (server/grpc/plumbing.py request_tag): the fingerprint is the digest of the
request without its id, byte for byte as earlier releases recorded it (a retry of a request stored then
must still match), and working it out leaves the request as it came."""

from __future__ import annotations

import hashlib

import pytest

from matchserver.v1 import matchserver_pb2 as pb
from server.errors import BadRequest
from server.grpc.plumbing import DEFAULT_LIMITS, request_tag


def fingerprint_of_a_copy_without_the_id(request: pb.SubmitRequest) -> str:
    """How release 11 and later computed it: a copy, its id cleared."""
    body = pb.SubmitRequest()
    body.CopyFrom(request)
    body.ClearField("request_id")
    return hashlib.sha256(body.SerializeToString(deterministic=True)).hexdigest()[:32]


def test_the_fingerprint_is_the_digest_of_the_body_without_its_id_and_the_request_keeps_its_id() -> None:
    request = pb.SubmitRequest(match_id="m", player="ann", text="pick 2", expected_version=4, request_id="r-1")
    tag = request_tag(request, DEFAULT_LIMITS)
    assert tag is not None
    assert tag.request_id == "r-1"
    assert tag.fingerprint == fingerprint_of_a_copy_without_the_id(request)
    assert request.request_id == "r-1" and request.text == "pick 2"  # as it came


def test_the_same_body_under_another_id_has_the_same_fingerprint_and_another_body_does_not() -> None:
    first = request_tag(pb.SubmitRequest(match_id="m", text="pick 1", request_id="a"), DEFAULT_LIMITS)
    again = request_tag(pb.SubmitRequest(match_id="m", text="pick 1", request_id="b"), DEFAULT_LIMITS)
    other = request_tag(pb.SubmitRequest(match_id="m", text="pick 3", request_id="a"), DEFAULT_LIMITS)
    assert first is not None and again is not None and other is not None
    assert first.fingerprint == again.fingerprint != other.fingerprint


def test_a_malformed_id_is_refused_and_the_request_is_left_as_it_came() -> None:
    request = pb.SubmitRequest(match_id="m", text="pick 1", request_id="x" * 10_000)
    with pytest.raises(BadRequest):
        request_tag(request, DEFAULT_LIMITS)
    assert request.request_id == "x" * 10_000
    assert request_tag(pb.SubmitRequest(match_id="m", text="pick 1"), DEFAULT_LIMITS) is None
