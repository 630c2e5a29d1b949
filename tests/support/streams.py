"""Reading a gRPC stream to the status it ends with: what it sent before, and the error."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

import grpc
import pytest

T = TypeVar("T")


def read_to_end(stream: Iterable[T]) -> tuple[list[T], grpc.RpcError]:
    """Every item the stream sent, then the error status it ended with; a stream that ends cleanly fails
    the test (these streams end only by the server's word)."""
    received: list[T] = []
    try:
        for item in stream:
            received.append(item)
    except grpc.RpcError as error:
        return received, error
    pytest.fail(f"the stream ended without an error status after {len(received)} items")


def ended(stream: Iterable[Any]) -> tuple[list[int], grpc.RpcError]:
    """A Subscribe stream read to its end: (the versions received, the status it ended with)."""
    updates, error = read_to_end(stream)
    return [update.event.version for update in updates], error
