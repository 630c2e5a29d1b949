"""The open Subscribe streams: who opened each one, and a way to end them on purpose.

Every stream registers with (match id, credential digest): the credential code ends the streams of a
token it revokes (end_credential), shutdown ends them all (end_all), a match set aside because a stored
record cannot be read ends its own (end_match). A stream the server ends on purpose tells the client
where to resume (RESUME_FROM trailer); the handler in server/grpc/match_service.py sends it.
No gRPC here: an end says whether the credential was revoked or the match's record was lost, and the
handler picks the status code. The updates themselves are built once per viewer class and shared by
the streams of that class (`updates`, server/fanout.py).
"""

from __future__ import annotations

import asyncio
import hmac
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from server.errors import ResourceExhausted
from server.fanout import Updates

# Trailing metadata on every stream the server ends on purpose: the last version the stream sent.
# The client subscribes again with from_version=<that value>.
RESUME_FROM = "matchserver-resume-from"


@dataclass(frozen=True)
class StreamLimits:
    # Streams of viewers with no place of their own (spectators; a bot match's organiser) on one match:
    # the next is refused (RESOURCE_EXHAUSTED). The seats and the host always have a place: spectators
    # filling this cap never lock them out.
    max_per_match: int = 1000
    # Streams one credential holds on one match (a seat's, the host's, a bot key's BotEvents).
    max_per_credential: int = 16
    # Streams with no place of their own from one peer address, all matches together: one client cannot
    # hold a match's (or every match's) spectator places.
    max_per_peer: int = 100
    # A stream ends itself (with the resume trailer) at this age, the same as gRPC's max connection age,
    # so it ends in its own words rather than being cut when the connection's age grace runs out.
    max_age: float = 3600.0
    # A write the client has not taken within this many seconds ends the stream (a slow reader). A stream
    # has at most one update in gRPC's hands at a time (and gRPC's flow-control window): a slow reader
    # holds no queue, only its place (the version it resumes from).
    write_timeout: float = 30.0
    # The serialized updates shared by the streams of one viewer class (server/fanout.py), in bytes.
    update_cache_bytes: int = 32 * 1024 * 1024
    # The live page's event streams (server/web/events.py, --http), all matches together: the next gets 503.
    max_page_streams: int = 200
    # The live page's event streams from one client address: one client cannot hold them all.
    max_page_streams_per_address: int = 20


class TooManyStreams(ResourceExhausted):
    """A cap of StreamLimits is reached for this stream (the message names it)."""


@dataclass(frozen=True)
class StreamEnd:
    message: str
    revoked: bool  # True: the credential was revoked (UNAUTHENTICATED); False: come back (UNAVAILABLE)
    # True: the match is quarantined, a stored record cannot be read (DATA_LOSS); coming back fails
    # until the record is restored from a backup, and then the stream resumes from the trailer.
    lost: bool = False


@dataclass(eq=False)
class OpenStream:
    match_id: uuid.UUID
    credential: str | None  # token_hash of the bearer token; None for a spectator
    peer: str = ""  # the client's address without its port (peer_address)
    placed: bool = False  # a seat's, the host's or a bot's own stream: outside the spectators' caps
    opened_at: float = field(default_factory=time.monotonic)
    # What the stream holds: the update handed to gRPC and not yet taken (its bytes; 0 between writes),
    # shared with the other streams of its viewer class; and the last version taken.
    writing: int = 0
    sent: int = 0
    ending: asyncio.Future[StreamEnd] = field(default_factory=lambda: asyncio.get_running_loop().create_future())

    def end(self, why: StreamEnd) -> bool:
        """Ask the stream to end (its handler sends the status); False if it was already asked."""
        if self.ending.done():
            return False
        self.ending.set_result(why)
        return True


class StreamRegistry:
    """The open streams of this process. Used only from the server's event loop."""

    def __init__(self, limits: StreamLimits | None = None) -> None:
        self.limits = limits or StreamLimits()
        self._by_match: defaultdict[uuid.UUID, set[OpenStream]] = defaultdict(set)
        self._unplaced: Counter[uuid.UUID] = Counter()  # per match, streams without a place of their own
        self._by_peer: Counter[str] = Counter()  # per peer address, streams without a place of their own
        self._by_credential: Counter[tuple[uuid.UUID, str]] = Counter()
        self.refused = 0  # streams refused for want of a place, since start (for operators and tests)
        self.updates = Updates(self.limits.update_cache_bytes)  # built once per viewer class, shared

    def open(self, match_id: uuid.UUID, credential: str | None, peer: str = "", placed: bool = False) -> OpenStream:
        """Register a stream, or refuse it (TooManyStreams naming the cap). `placed`: the caller is a seat,
        the host or a bot on its own stream, who is always served (up to max_per_credential)."""
        try:
            self._check_place(match_id, credential, peer, placed)
        except TooManyStreams:
            self.refused += 1
            raise
        stream = OpenStream(match_id, credential, peer, placed)
        self._by_match[match_id].add(stream)
        self._count(stream, 1)
        return stream

    def _check_place(self, match_id: uuid.UUID, credential: str | None, peer: str, placed: bool) -> None:
        limits = self.limits
        if credential is not None and self._by_credential[match_id, credential] >= limits.max_per_credential:
            raise TooManyStreams(
                f"this credential already holds {self._by_credential[match_id, credential]} open streams of "
                f"{match_id}, the most allowed (StreamLimits.max_per_credential={limits.max_per_credential}); "
                "close one, or try again later"
            )
        if not placed:
            if self._unplaced[match_id] >= limits.max_per_match:
                raise TooManyStreams(
                    f"match {match_id} already has {self._unplaced[match_id]} open spectator streams, the most "
                    f"allowed (StreamLimits.max_per_match={limits.max_per_match}); try again later"
                )
            if self._by_peer[peer] >= limits.max_per_peer:
                raise TooManyStreams(
                    f"your address already holds {self._by_peer[peer]} open spectator streams, the most allowed "
                    f"(StreamLimits.max_per_peer={limits.max_per_peer}); close one, or try again later"
                )

    def _count(self, stream: OpenStream, step: int) -> None:
        for counter, key in self._counted(stream):
            counter[key] += step
            if counter[key] <= 0:
                del counter[key]

    def _counted(self, stream: OpenStream) -> list[tuple[Counter[Any], Any]]:
        counted: list[tuple[Counter[Any], Any]] = []
        if stream.credential is not None:
            counted.append((self._by_credential, (stream.match_id, stream.credential)))
        if not stream.placed:
            counted += [(self._unplaced, stream.match_id), (self._by_peer, stream.peer)]
        return counted

    def close(self, stream: OpenStream) -> None:
        streams = self._by_match.get(stream.match_id)
        if streams is not None and stream in streams:
            streams.discard(stream)
            self._count(stream, -1)
            if not streams:
                del self._by_match[stream.match_id]

    def count(self, match_id: uuid.UUID | None = None) -> int:
        if match_id is not None:
            return len(self._by_match.get(match_id, ()))
        return sum(len(streams) for streams in self._by_match.values())

    def end_credential(self, credential_digest: str, reason: str) -> int:
        """End every open stream authenticated by this credential (a re-issued seat token, a revoked
        host key): they end UNAUTHENTICATED saying why. Returns how many were asked to end."""
        why = StreamEnd(f"the credential of this stream was revoked: {reason}", revoked=True)
        ended = [stream for stream in self._all() if _same(stream.credential, credential_digest)]
        return sum(stream.end(why) for stream in ended)

    def end_all(self, reason: str) -> int:
        """End every open stream (shutdown): UNAVAILABLE, with the version to resume from."""
        why = StreamEnd(f"the server is shutting down ({reason}); subscribe again to resume", revoked=False)
        return sum(stream.end(why) for stream in self._all())

    def end_match(self, match_id: uuid.UUID, message: str) -> int:
        """End every open stream of a match that was quarantined (DATA_LOSS, saying which record)."""
        why = StreamEnd(message, revoked=False, lost=True)
        self.updates.forget(match_id)  # a restored store may hold other records at the same versions
        return sum(stream.end(why) for stream in list(self._by_match.get(match_id, ())))

    def _all(self) -> list[OpenStream]:
        return [stream for streams in self._by_match.values() for stream in streams]


def peer_address(peer: str) -> str:
    """The client's address in gRPC's peer string, without the port: "ipv4:10.0.0.1:5000" -> "10.0.0.1",
    "ipv6:[::1]:5000" -> "::1"; anything else (a unix socket) as it is."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0] or rest
    if kind == "ipv6":
        return rest.rpartition("]")[0].lstrip("[") or rest
    return peer


def _same(credential: str | None, digest: str) -> bool:
    return credential is not None and hmac.compare_digest(credential, digest)
