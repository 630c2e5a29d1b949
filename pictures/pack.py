"""Pictures packed for a page: each SVG is cut into its tags, every distinct tag is stored once, and each
picture is written as the change from the picture before it. Consecutive versions of a board differ in a
few tags, so a page grows with what changed, not with the number of versions (a whole Cookoff match:
~0.5 MB instead of ~11 MB of whole pictures)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

_TAG_START = re.compile(r"(?=<)")


@dataclass
class PicturePacker:
    """Append-only, so a live page can send only what is new: `fragments[n:]` and `pictures[m:]`.

    A packed picture is `[keep_head, keep_tail, *middle]`: the first `keep_head` and last `keep_tail`
    tags of the previous picture, with `middle` between them; in `middle` a number >= 0 is a fragment
    and -n stands for the n fragments that follow the one before it (runs of new tags are common)."""

    fragments: list[str] = field(default_factory=list)
    pictures: list[list[int]] = field(default_factory=list)
    _index: dict[str, int] = field(default_factory=dict)
    _previous: list[int] = field(default_factory=list)
    _numbers: dict[bytes, int] = field(default_factory=dict)  # a digest of the whole SVG -> picture number

    def add(self, svg: str) -> int:
        """The number of `svg`'s picture (an identical picture is stored once)."""
        digest = hashlib.blake2b(svg.encode(), digest_size=16).digest()  # a live page keeps no whole SVGs
        if digest in self._numbers:
            return self._numbers[digest]
        tags = [self._fragment(part) for part in _TAG_START.split(svg) if part]
        previous = self._previous
        head = 0
        while head < min(len(tags), len(previous)) and tags[head] == previous[head]:
            head += 1
        tail = 0
        while tail < min(len(tags), len(previous)) - head and tags[-1 - tail] == previous[-1 - tail]:
            tail += 1
        self.pictures.append([head, tail, *_runs(tags[head : len(tags) - tail])])
        self._previous = tags
        self._numbers[digest] = len(self.pictures) - 1
        return len(self.pictures) - 1

    def _fragment(self, part: str) -> int:
        number = self._index.get(part)
        if number is None:
            number = self._index[part] = len(self.fragments)
            self.fragments.append(part)
        return number


def _runs(numbers: list[int]) -> list[int]:
    out: list[int] = []
    last = -2
    for number in numbers:
        if number == last + 1 and out:
            if out[-1] < 0:
                out[-1] -= 1
            else:
                out.append(-1)
        else:
            out.append(number)
        last = number
    return out


def unpack(fragments: list[str], pictures: list[list[int]]) -> list[str]:
    """The SVGs back (the page does the same in JavaScript; tests check the two agree)."""
    out: list[str] = []
    previous: list[int] = []
    for head, tail, *middle in pictures:
        tags: list[int] = []
        for number in middle:
            if number >= 0:
                tags.append(number)
            else:
                start = tags[-1]
                tags.extend(range(start + 1, start + 1 - number))
        current = previous[:head] + tags + (previous[len(previous) - tail :] if tail else [])
        out.append("".join(fragments[n] for n in current))
        previous = current
    return out
