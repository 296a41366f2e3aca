"""A game that is over keeps what it still answers with, in little memory.

A finished (or aborted) game stays in memory for ``--finished-game-retention-s`` and keeps
answering views, results, replays, retried decisions and watchers from an old sequence. While
it was played it also kept every published event, recent views and per-decision log objects;
once it is over and nobody watches it, ``Game.compact`` drops what can be made again:

* the published events (a watcher that asks for them gets them rebuilt from the log, as after
  a restart: ``server.games.event_recovery``);
* the cached views and serialized messages;
* the log entries, replaced by a :class:`CompactLog` of packed integers (the state hashes,
  idempotency keys and hash-chain links it drops are in the store, when it is durable);
* the idempotency answers of all but the newest ``KEPT_ANSWERS`` decisions and each seat's
  newest decision (a client retries a decision whose answer it lost right away, not a game
  later: the newest decision of each seat is enough, however many the others made since);
* the event numbering per state version is packed too.

``docs/operations.md`` gives the figure ``make bench`` measures per finished game.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from server.stores.contract import StoredAction

__all__ = ["KEPT_ANSWERS", "CompactLog"]

KEPT_ANSWERS = 8


class CompactLog(Sequence[StoredAction]):
    """A finished game's log: version, seat, action, by_timeout and sequence of each entry,
    packed; read back as StoredAction entries without their hashes and keys."""

    __slots__ = ("_codes", "_flags", "_sequences", "_versions")

    def __init__(self, entries: Iterable[StoredAction]) -> None:
        self._versions = array("q")
        self._codes = array("q")
        self._flags = array("b")  # seat, negated - 1 when by timeout
        self._sequences = array("q")
        for entry in entries:
            self._versions.append(entry.version)
            self._codes.append(entry.code)
            self._flags.append(-entry.seat - 1 if entry.by_timeout else entry.seat)
            self._sequences.append(entry.sequence)

    def __len__(self) -> int:
        return len(self._versions)

    def _entry(self, i: int) -> StoredAction:
        flag = self._flags[i]
        by_timeout = flag < 0
        seat = -flag - 1 if by_timeout else flag
        return StoredAction(
            self._versions[i],
            seat,
            self._codes[i],
            by_timeout,
            "",
            self._sequences[i],
        )

    @overload
    def __getitem__(self, index: int) -> StoredAction: ...

    @overload
    def __getitem__(self, index: slice) -> list[StoredAction]: ...

    def __getitem__(self, index: int | slice) -> StoredAction | list[StoredAction]:
        if isinstance(index, slice):
            return [self._entry(i) for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("log index out of range")
        return self._entry(index)

    def __iter__(self) -> Iterator[StoredAction]:
        return (self._entry(i) for i in range(len(self)))

    def append(self, entry: StoredAction) -> None:
        raise TypeError("the log of a game that is over takes no entry")
