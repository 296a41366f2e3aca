"""Serialized WatchGame messages of one game, kept so that an event is serialized once per
audience rather than once per watcher (``server.api.fanout`` sends them).

The cache holds the newest ``MESSAGE_CACHE_SIZE`` messages of a game (older ones are made again
if a late watcher needs them) and is dropped when a finished game is compacted.
"""

from __future__ import annotations

from collections import OrderedDict

__all__ = ["MESSAGE_CACHE_SIZE", "MessageCache"]

MESSAGE_CACHE_SIZE = 512


class MessageCache:
    """Serialized WatchGame messages of one game, by (sequence, form)."""

    __slots__ = ("_messages",)

    def __init__(self) -> None:
        self._messages: OrderedDict[tuple[int, int], bytes] = OrderedDict()

    def get(self, key: tuple[int, int]) -> bytes | None:
        return self._messages.get(key)

    def put(self, key: tuple[int, int], data: bytes) -> None:
        messages = self._messages
        messages[key] = data
        if len(messages) > MESSAGE_CACHE_SIZE:
            messages.popitem(last=False)

    def clear(self) -> None:
        self._messages.clear()

    def __len__(self) -> int:
        return len(self._messages)
