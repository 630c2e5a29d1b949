"""Every unary method counts itself while it runs (server/grpc/plumbing.py `unary`): a shutdown reports the
calls in flight and those it cut. No server interceptor does it (any interceptor slows every call)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from server.grpc.plumbing import UnaryCalls, unary
from server.limits import Limits


class Service:
    def __init__(self) -> None:
        self.calls = UnaryCalls()
        self.limits = Limits()
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    @unary
    async def Slow(self, request: Any, context: Any) -> str:
        self.entered.set()
        await self.release.wait()
        return "done"


def test_a_unary_call_is_counted_while_it_runs_and_when_it_is_cut() -> None:
    async def scenario() -> None:
        service = Service()
        finished = asyncio.ensure_future(service.Slow(object(), None))
        await asyncio.wait_for(service.entered.wait(), 30)
        assert (service.calls.in_flight, service.calls.cancelled) == (1, 0)
        service.release.set()
        assert await asyncio.wait_for(finished, 30) == "done"
        assert (service.calls.in_flight, service.calls.cancelled) == (0, 0)

        service.release.clear()
        service.entered.clear()
        cut = asyncio.ensure_future(service.Slow(object(), None))
        await asyncio.wait_for(service.entered.wait(), 30)
        cut.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await cut
        assert (service.calls.in_flight, service.calls.cancelled) == (0, 1)

    asyncio.run(scenario())
