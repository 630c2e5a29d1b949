"""MatchService's dispute RPCs (server/application/disputes.py does the work; answers carry JSON)."""

from __future__ import annotations

import json
from typing import Any

from matchserver.v1 import matchserver_pb2 as pb
from server.application.disputes import DisputeRoom
from server.errors import BadRequest
from server.grpc import convert
from server.grpc.plumbing import bearer_token, request_tag, unary
from server.limits import Limits, check_reason
from server.repository import parse_id


def replacements_of(request: Any, limits: Limits) -> dict[str, str]:
    out: dict[str, str] = {}
    for replacement in request.replacements:
        if replacement.seat in out:
            raise BadRequest(f"two replacements for {replacement.seat}: give one per seat")
        check_reason(replacement.text, limits, "a replacement's text")
        out[replacement.seat] = replacement.text
    return out


class DisputeRpcs:
    disputes: DisputeRoom
    limits: Limits

    @unary
    async def FileDispute(self, request: pb.FileDisputeRequest, context: Any) -> pb.FileDisputeResponse:
        filed = await self.disputes.file(
            parse_id(request.match_id),
            bearer_token(context),
            request.at_version,
            request.text,
            request_tag(request, self.limits),
        )
        done = filed.accepted
        return pb.FileDisputeResponse(
            dispute_id=filed.dispute.id, version=done.version, receipt=convert.receipt_message(done.receipt)
        )

    @unary
    async def ListDisputes(self, request: pb.ListDisputesRequest, context: Any) -> pb.ListDisputesResponse:
        listed = await self.disputes.listed(parse_id(request.match_id), bearer_token(context))
        return pb.ListDisputesResponse(disputes_json=[json.dumps(d.as_json(), sort_keys=True) for d in listed])

    @unary
    async def ReviewDispute(self, request: pb.ReviewDisputeRequest, context: Any) -> pb.ReviewDisputeResponse:
        review = await self.disputes.review(request.dispute_id, bearer_token(context))
        return pb.ReviewDisputeResponse(review_json=json.dumps(review, sort_keys=True))

    @unary
    async def TryDispute(self, request: pb.TryDisputeRequest, context: Any) -> pb.TryDisputeResponse:
        tried = await self.disputes.try_correction(
            request.dispute_id,
            bearer_token(context),
            replacements_of(request, self.limits),
            request.rules_version or None,
            request.forward,
        )
        return pb.TryDisputeResponse(outcome_json=json.dumps(tried, sort_keys=True))

    @unary
    async def DecideDispute(self, request: pb.DecideDisputeRequest, context: Any) -> pb.DecideDisputeResponse:
        token, tag = bearer_token(context), request_tag(request, self.limits)
        check_reason(request.reason, self.limits)
        if request.decision == "uphold":
            if request.replacements or request.reapply:
                raise BadRequest("an upheld ruling changes nothing: replacements and reapply are for 'correct'")
            done = await self.disputes.uphold(request.dispute_id, token, request.reason, tag)
        elif request.decision == "correct":
            replacements = replacements_of(request, self.limits)
            done = await self.disputes.correct(
                request.dispute_id, token, request.reason, replacements, request.reapply, tag
            )
        else:
            raise BadRequest(f"decision must be 'uphold' or 'correct', not {request.decision!r}")
        decided = done.records[-1][1] if done.records else {}
        return pb.DecideDisputeResponse(
            version=done.version,
            receipt=convert.receipt_message(done.receipt),
            decision_json=json.dumps(decided, sort_keys=True),
        )
