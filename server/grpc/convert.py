"""The only module that converts between generated protobuf messages and engine/server values."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Iterable
from typing import Any

from google.protobuf.message import Message

from engine.contract import Game, Status, Viewer
from engine.errors import MalformedCommand
from matchserver.v1 import matchserver_pb2 as pb
from server.application.values import Accepted, Created, Joined, StateView, receipt_at
from server.catalog import Summary
from server.errors import BadRequest
from server.hostkeys import KeyView
from server.links import join_link
from server.live import LiveMatch
from server.records import Receipt, Record
from server.turns import TurnView
from server.visibility import visible_record


def game_command(game: Game[Any, Any], typed: pb.GameCommand) -> Any:
    """A typed protobuf command -> the game's command dataclass, matched by message and field names."""
    which = typed.WhichOneof("game")
    expected = game.wire_field
    if which is None:
        raise MalformedCommand(f"the typed command is empty; set the {expected!r} field for a {game.name} match")
    if which != expected:
        raise MalformedCommand(f"this is a {game.name} match; the command is for {which!r}")
    wrapper: Message = getattr(typed, which)
    kind = wrapper.WhichOneof("kind")
    if kind is None:
        raise MalformedCommand(f"the {game.name} command is empty; choose one of its kinds")
    return message_to_dataclass(getattr(wrapper, kind), game.command_types)


def message_to_dataclass(message: Message, command_types: Iterable[type]) -> Any:
    by_name = {cls.__name__: cls for cls in command_types}
    return _build(message, by_name)


def _build(message: Message, by_name: dict[str, type]) -> Any:
    name = message.DESCRIPTOR.name
    cls = by_name.get(name) or _nested_class(name, by_name)
    if cls is None:
        raise MalformedCommand(f"unknown command message {name!r}")
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        optional, inner = _unwrap_optional(hint)
        has_presence = message.DESCRIPTOR.fields_by_name[field.name].has_presence
        if optional and has_presence and not message.HasField(field.name):
            kwargs[field.name] = None
            continue
        kwargs[field.name] = _value(inner, getattr(message, field.name), by_name)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise MalformedCommand(f"{name}: {exc}") from None


def _nested_class(name: str, by_name: dict[str, type]) -> type | None:
    """Nested dataclasses are not in command_types; find them through the fields' type hints."""
    seen: set[type] = set()
    stack = list(by_name.values())
    while stack:
        cls = stack.pop()
        if cls in seen:
            continue
        seen.add(cls)
        if cls.__name__ == name:
            return cls
        for hint in typing.get_type_hints(cls).values():
            for arg in (hint, *typing.get_args(hint), *(a for h in typing.get_args(hint) for a in typing.get_args(h))):
                if isinstance(arg, type) and dataclasses.is_dataclass(arg):
                    stack.append(arg)
    return None


def _unwrap_optional(hint: Any) -> tuple[bool, Any]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return True, args[0]
    return False, hint


def _value(hint: Any, value: Any, by_name: dict[str, type]) -> Any:
    if typing.get_origin(hint) is tuple:
        item = typing.get_args(hint)[0]
        return tuple(_value(item, element, by_name) for element in value)
    if isinstance(value, Message):
        return _build(value, by_name)
    return value


def status_message(status: Status, paused: bool = False) -> pb.Status:
    out = pb.Status(
        phase=status.phase,
        awaiting=sorted(status.awaiting),
        submitted=sorted(status.submitted),
        finished=status.finished,
        binding=status.binding,
        paused=paused,
    )
    if status.deadline is not None:
        out.deadline = status.deadline
    return out


def event_message(version: int, record: Record, retracted: bool = False) -> pb.Event:
    event = record.get("event") or {}
    return pb.Event(
        version=version,
        kind=str(record.get("kind", "")),
        type=str(event.get("type", "")) if isinstance(event, dict) else "",
        json=json.dumps(record, sort_keys=True),
        at=float(record.get("at") or 0.0),
        retracted=retracted,
    )


def receipt_message(receipt: Receipt) -> pb.Receipt:
    return pb.Receipt(version=receipt.version, chain_head=receipt.chain_head, key_id=receipt.key_id)


def receipt_value(message: pb.Receipt) -> Receipt:
    if message.version < 1:
        raise BadRequest(f"a receipt's version must be 1 or more, not {message.version}")
    if not message.chain_head:
        raise BadRequest(f"the receipt for version {message.version} has no chain_head")
    return Receipt(message.version, message.chain_head, message.key_id)


def _json_or_empty(value: Any) -> str:
    return "" if value is None else json.dumps(value, sort_keys=True)


# The responses of writes that append to a match: one type per RPC, all of this shape.
WriteResponse = typing.TypeVar(
    "WriteResponse", pb.SubmitResponse, pb.ForcePhaseEndResponse, pb.HostActionResponse, pb.RollbackResponse
)


def write_response(kind: type[WriteResponse], accepted: Accepted) -> WriteResponse:
    return kind(
        version=accepted.version,
        events=[event_message(version, record) for version, record in accepted.records],
        status=status_message(accepted.status, accepted.paused),
        receipt=receipt_message(accepted.receipt),
    )


# The responses of writes that make a match (a new one, or a fork): one type per RPC, of this shape.
CreatedResponse = typing.TypeVar("CreatedResponse", pb.CreateMatchResponse, pb.ForkResponse)


def created_response(kind: type[CreatedResponse], created: Created, page_url: str = "") -> CreatedResponse:
    live = created.live
    match_id = str(live.id)
    return kind(
        match_id=match_id,
        host_token=created.host_token,
        version=live.version,
        seed=live.seed,
        invitations=[
            pb.SeatInvitation(player=p, invitation=code, join_url=join_link(page_url, match_id, p, code))
            for p, code in created.invitations.items()
        ],
        receipt=receipt_message(receipt_at(live, live.version)),
    )


def join_response(joined: Joined) -> pb.JoinMatchResponse:
    return pb.JoinMatchResponse(
        player_token=joined.secret, version=joined.version, receipt=receipt_message(joined.receipt)
    )


def invite_response(invited: Joined, join_url: str) -> pb.InviteSeatResponse:
    return pb.InviteSeatResponse(
        invitation=invited.secret, version=invited.version, receipt=receipt_message(invited.receipt), join_url=join_url
    )


def host_key_message(view: KeyView) -> pb.HostKey:
    key = view.key
    return pb.HostKey(
        key_id=key.key_id, name=key.name, created_at=key.created_at, revoked=key.revoked, live_matches=view.live_matches
    )


KeyResponse = typing.TypeVar("KeyResponse", pb.CreateHostKeyResponse, pb.RevokeHostKeyResponse)


def host_key_response(kind: type[KeyResponse], view: KeyView, secret: str | None = None) -> KeyResponse:
    if secret is None:
        return kind(key=host_key_message(view))
    return kind(key=host_key_message(view), host_key=secret)  # type: ignore[call-arg]


def host_keys_response(views: list[KeyView]) -> pb.ListHostKeysResponse:
    return pb.ListHostKeysResponse(keys=[host_key_message(view) for view in views])


def matches_page(summaries: list[Summary], next_token: str) -> pb.ListMatchesResponse:
    return pb.ListMatchesResponse(matches=[summary_message(s) for s in summaries], next_page_token=next_token)


def viewer_name(viewer: Viewer) -> str:
    return viewer.kind if viewer.player is None else f"player:{viewer.player}"


def state_response(state: StateView) -> pb.GetStateResponse:
    return pb.GetStateResponse(
        match_id=state.match_id,
        game=state.game,
        version=state.version,
        view_json=json.dumps(state.view, sort_keys=True),
        status=status_message(state.status, state.paused),
        clock=state.clock,
        viewer=viewer_name(state.viewer),
        players=list(state.players),
        results_json=_json_or_empty(state.results),
    )


def history_response(rows: list[tuple[int, Record, bool]], next_token: str) -> pb.HistoryResponse:
    events = [event_message(v, record, gone) for v, record, gone in rows]
    return pb.HistoryResponse(events=events, next_page_token=next_token)


def summary_message(summary: Summary) -> pb.MatchSummary:
    return pb.MatchSummary(
        match_id=str(summary.match_id),
        game=summary.game,
        players=list(summary.players),
        version=summary.version,
        phase=summary.phase,
        finished=summary.finished,
    )


def audit_response(entries: list[dict[str, Any]], next_token: str) -> pb.AuditResponse:
    return pb.AuditResponse(entries=[pb.AuditEntry(**entry) for entry in entries], next_page_token=next_token)


def verify_response(report: dict[str, Any]) -> pb.VerifyResponse:
    return pb.VerifyResponse(
        ok=report["ok"],
        checked_batches=report["checked"],
        version=report["version"],
        first_bad_version=report.get("first_bad_version", 0),
        problem=report.get("problem", ""),
        recorded_json=report.get("recorded_json", ""),
        recomputed_json=report.get("recomputed_json", ""),
        recorded_rules_version=report["recorded_rules_version"],
        current_rules_version=report["current_rules_version"],
        receipts_checked=report["receipts_checked"],
        unkeyed_until=report["unkeyed_until"],
    )


def subscribe_update(
    version: int, record: Record, view_json: str | None = None, status: pb.Status | None = None
) -> bytes:
    """One Subscribe update, serialized (built once per viewer class and shared by its streams); the last
    version of a batch carries the view and the status."""
    update = pb.SubscribeResponse(event=event_message(version, record))
    if record["kind"] == "rollback":
        update.rolled_back_to = int(record["to"])
    if view_json is not None:
        update.view_json = view_json
    if status is not None:
        update.status.CopyFrom(status)
    return update.SerializeToString()


# --- Play ------------------------------------------------------------------------------------------


# PlayResponse.update's tag on the wire: field 2, length-delimited. Update has SubscribeResponse's fields
# with the same numbers and types (protos/), so a Subscribe update's bytes, built once per viewer class
# and shared, are a Play Update's as they are: framed, never parsed again (tests/e2e/test_play.py checks).
_UPDATE_TAG = bytes([(2 << 3) | 2])


def play_update(update: bytes) -> bytes:
    """A Subscribe update (its serialized bytes) as a serialized PlayResponse carrying it as an Update."""
    return _field(_UPDATE_TAG, update)


def _field(tag: bytes, payload: bytes) -> bytes:
    """One length-delimited field on the wire: its tag, the payload's length, the payload."""
    return tag + _varint(len(payload)) + payload


_BUNDLE_TAG = bytes([(5 << 3) | 2])  # PlayResponse.bundle: field 5, length-delimited
_ITEM_TAG = bytes([(1 << 3) | 2])  # Bundle.items: field 1, length-delimited


_UPDATES_TAG = bytes([(5 << 3) | 2])  # SubscribeResponse.updates: field 5, length-delimited


def bundled_updates(updates: list[bytes]) -> bytes:
    """Serialized Subscribe updates (each shared by its viewer class) as one SubscribeResponse carrying them."""
    return b"".join(_field(_UPDATES_TAG, update) for update in updates)


def play_bundle(items: list[bytes]) -> bytes:
    """Serialized PlayResponses as one serialized PlayResponse carrying them as a Bundle, in order."""
    return _field(_BUNDLE_TAG, b"".join(_field(_ITEM_TAG, item) for item in items))


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def turn_response(turn: TurnView) -> pb.PlayResponse:
    message = pb.Turn(
        version=turn.version,
        match_version=turn.match_version,
        view_json=turn.view_json,
        status=status_message(turn.status, False),
        forms=list(turn.forms),
        example=turn.example or "",
        clock=turn.clock,
        seat=turn.seat,
        game=turn.game,
    )
    if turn.deadline is not None:
        message.deadline = turn.deadline
    if turn.reserve is not None:
        message.reserve = turn.reserve
    return pb.PlayResponse(turn=message)


def move_accepted(request_id: str, accepted: Accepted) -> pb.PlayResponse:
    result = pb.MoveResult(
        request_id=request_id,
        accepted=True,
        version=accepted.version,
        text=accepted.text,
        receipt=receipt_message(accepted.receipt),
    )
    return pb.PlayResponse(result=result)


def move_refused(request_id: str, code: str, message: str) -> pb.PlayResponse:
    return pb.PlayResponse(result=pb.MoveResult(request_id=request_id, accepted=False, code=code, message=message))


def ended_response(version: int, status: Status, results: dict[str, Any] | None) -> pb.PlayResponse:
    ended = pb.Ended(version=version, status=status_message(status), results_json=_json_or_empty(results))
    return pb.PlayResponse(ended=ended)


def update_bytes(live: LiveMatch, viewer: Viewer, version: int, last: int) -> bytes:
    """Version `version` as `viewer`'s class sees it while the match is at `last`, serialized: built once per
    class and shared by its streams (server/fanout.py); the last version carries the view and status."""
    record = visible_record(live, version, viewer)  # a rollback's target is public: it is in every view
    if version != last:
        return subscribe_update(version, record)
    view_json = live.facts.view_json(version, viewer)
    return subscribe_update(
        version, record, view_json, status_message(live.status(version), live.paused_after(version))
    )
