"""Placeholder until the stream registry lands (merge)."""


class StreamRegistry:
    def end_credential(self, digest: str, reason: str) -> int:
        return 0
