"""Paging for list-like reads: page_size and page_token in, next_page_token out (see the proto).

A token is the position of the next item, base64-encoded so clients treat it as opaque. A page also
stops at a byte budget, so no response can outgrow gRPC's 4 MB message limit whatever the items hold.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from server.errors import BadRequest

T = TypeVar("T")
DEFAULT_PAGE_SIZE = 200
MAX_PAGE_SIZE = 1000
PAGE_BYTE_BUDGET = 1 << 20  # well under gRPC's 4 MiB default, with room for framing


@dataclass(frozen=True)
class PageRequest:
    page_size: int = 0
    page_token: str = ""

    def __post_init__(self) -> None:
        if self.page_size < 0:
            raise BadRequest("page_size must be 0 (the server's default) or more")

    @property
    def size(self) -> int:
        return min(self.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)

    def start(self, default: int) -> int:
        if not self.page_token:
            return default
        try:
            position = int(base64.urlsafe_b64decode(self.page_token.encode()).decode().removeprefix("p"))
        except (ValueError, binascii.Error, UnicodeDecodeError):
            raise BadRequest("page_token is not one this server gave (pass next_page_token as it came)") from None
        if position < 0:
            raise BadRequest("page_token is not one this server gave (pass next_page_token as it came)")
        return position

    def fit(self, items: Sequence[T], size_of: Callable[[T], int]) -> int:
        """How many of `items` go in this page: at most `size`, and within the byte budget (at least one)."""
        total = 0
        for count, item in enumerate(items[: self.size]):
            total += size_of(item)
            if count and total > PAGE_BYTE_BUDGET:
                return count
        return min(len(items), self.size)

    @staticmethod
    def next_token(position: int, more: bool) -> str:
        return base64.urlsafe_b64encode(f"p{position}".encode()).decode() if more else ""


FIRST_PAGE = PageRequest()
