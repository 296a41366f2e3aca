"""Sending one event to many watchers: serialized once per audience, not once per watcher.

Every watcher of a game gets every event, filtered for it: the whole event if it may see all of
it (a public event, or one about its own seat), else the event's public part. So an event has at
most two forms on the wire, and an event message without a view is the same bytes for every
watcher who gets the same form. The game's message cache keeps those bytes (and, for watchers
that asked for a view with each event, the bytes per viewer: every spectator shares one;
``server.games.message_cache``), and WatchGame streams yield them as they are: gRPC sends bytes a
behaviour yields without serializing them again
(``server.api.malformed.passthrough_serializer``). With a thousand spectators, an event is
serialized once for all of them instead of a thousand times."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from yggdrasil.v1 import game_service_pb2

if TYPE_CHECKING:
    from server.games.event_log import StoredEvent
    from server.games.game import Game

__all__ = ["FanoutGate", "Turn", "event_message"]

_Response = game_service_pb2.WatchGameResponse


# The form keys: the whole event or its public part (no view); with a view, the viewer.
_FULL = -1_000_000
_PUBLIC = -1_000_001


def event_message(game: Game, stored: StoredEvent, viewer: int, include_views: bool) -> bytes:
    """The serialized WatchGame message of ``stored`` for ``viewer`` (a seat or SPECTATOR),
    with the view after it if ``include_views`` and the event ends a group."""
    with_view = include_views and game.ends_group(stored.sequence)
    if with_view:
        form = viewer
    else:
        form = _FULL if stored.audience < 0 or stored.audience == viewer else _PUBLIC
    key = (stored.sequence, form)
    cache = game.messages
    data = cache.get(key)
    if data is None:
        message = _Response(sequence=stored.sequence, event=stored.for_viewer(viewer))
        if with_view:
            message.view.CopyFrom(game.view_after(viewer, stored.sequence))
        data = message.SerializeToString()
        cache.put(key, data)
    return data


# -- taking turns ----------------------------------------------------------------------------


class Turn:
    """A watch stream's right to send now (see :class:`FanoutGate`)."""

    __slots__ = ("held_since", "urgent")

    def __init__(self, urgent: bool) -> None:
        self.urgent = urgent
        self.held_since: float | None = None  # loop time it was granted; None: not held


class FanoutGate:
    """Watch streams send in turns, so that a crowd of watchers cannot slow a decision down.

    When a game publishes events, every watcher waiting for them could run at once: a
    thousand spectators would put two thousand steps (make the message, write it) on the
    event loop ahead of the next decision's every step, and each decision would wait behind
    them all (244 ms instead of 7 with 4,000 spectators). Here a waiting watcher is parked
    on its game and, when the game changes, queued for a turn; at most ``slots`` watchers hold
    a turn at once, seats before spectators, and a watcher holds its turn while it sends what
    is new, then gives it back as it waits again. So the event loop never has more than a
    few watchers' steps between two steps of a decision, whatever the crowd: the decision
    path goes first, and spectators catch up when the server has time (with every event:
    a watcher is never resynced only for being behind).

    A watcher that holds its turn longer than ``hold_s`` (a slow reader: its writes wait for
    the network) loses it to the next in line and sends on without one.
    """

    def __init__(self, slots: int = 2, hold_s: float = 0.05) -> None:
        self.slots = slots
        self.hold_s = hold_s
        self._free = slots
        self._held: set[Turn] = set()
        self._urgent: deque[tuple[asyncio.Future[None], Turn]] = deque()
        self._rest: deque[tuple[asyncio.Future[None], Turn]] = deque()
        # Per game, its parked watchers in arrival order (a dict: one that leaves is removed
        # at once, so a crowd that comes and goes leaves nothing behind).
        self._parked: dict[Game, dict[asyncio.Future[None], Turn]] = {}
        self._listeners: dict[Game, Callable[[], None]] = {}
        self._reaper: asyncio.TimerHandle | None = None
        self.reclaimed = 0  # turns taken back from slow readers

    def parked(self) -> int:
        """Watchers parked on their games now (for tests and metrics)."""
        return sum(len(p) for p in self._parked.values())

    # -- a watcher's side --------------------------------------------------------------------

    async def take(self, turn: Turn) -> None:
        """Wait for a turn (now, if one is free and nobody waits)."""
        if turn.held_since is not None:
            return
        if self._free > 0 and not self._urgent and not self._rest:
            self._grant(turn)
            return
        future = asyncio.get_running_loop().create_future()
        (self._urgent if turn.urgent else self._rest).append((future, turn))
        self._arm_reaper()
        await self._wait(future, turn)

    def give_back(self, turn: Turn) -> None:
        """Give the turn to the next watcher in line (a no-op if it was not held)."""
        if turn.held_since is None:
            return
        turn.held_since = None
        self._held.discard(turn)
        self._free += 1
        self._grant_waiting()

    async def wait_for(self, game: Game, sequence: int, turn: Turn) -> None:
        """Give the turn back, wait until ``game`` has event ``sequence`` (or is closed), and
        return holding a turn again."""
        self.give_back(turn)
        while game.last_sequence < sequence and not game.closed:
            future = asyncio.get_running_loop().create_future()
            parked = self._parked.get(game)
            if parked is None:
                parked = self._parked[game] = {}
                listener = self._listeners[game] = partial(self._changed, game)
                game.listeners.append(listener)
            parked[future] = turn
            try:
                await self._wait(future, turn)
            finally:
                if not future.done() or future.cancelled():
                    self._unpark(game, future)
            if game.last_sequence < sequence and not game.closed:
                self.give_back(turn)  # woken for a change that is not ours (another seat's)
        await self.take(turn)

    async def _wait(self, future: asyncio.Future[None], turn: Turn) -> None:
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.give_back(turn)  # granted just as it was cancelled
            raise

    # -- the gate's side ---------------------------------------------------------------------

    def _unpark(self, game: Game, future: asyncio.Future[None]) -> None:
        parked = self._parked.get(game)
        if parked is None:
            return
        parked.pop(future, None)
        if not parked:
            del self._parked[game]
            listener = self._listeners.pop(game, None)
            if listener is not None:
                with contextlib.suppress(ValueError):
                    game.listeners.remove(listener)

    def _changed(self, game: Game) -> None:
        """Game listener: its parked watchers queue for a turn (none runs yet)."""
        parked = self._parked.pop(game, None)
        listener = self._listeners.pop(game, None)
        if listener is not None:
            with contextlib.suppress(ValueError):
                game.listeners.remove(listener)
        if parked is None:
            return
        for future, turn in parked.items():
            if not future.done():
                (self._urgent if turn.urgent else self._rest).append((future, turn))
        self._grant_waiting()
        self._arm_reaper()

    def _grant(self, turn: Turn) -> None:
        turn.held_since = asyncio.get_running_loop().time()
        self._held.add(turn)
        self._free -= 1

    def _grant_waiting(self) -> None:
        while self._free > 0:
            queue = self._urgent if self._urgent else self._rest
            if not queue:
                return
            future, turn = queue.popleft()
            if future.done():
                continue  # its stream ended while it waited
            self._grant(turn)
            future.set_result(None)

    def _arm_reaper(self) -> None:
        if self._reaper is None and (self._urgent or self._rest):
            loop = asyncio.get_running_loop()
            self._reaper = loop.call_later(self.hold_s / 2, self._reap)

    def _reap(self) -> None:
        """Take turns back from watchers that held them past ``hold_s``."""
        self._reaper = None
        now = asyncio.get_running_loop().time()
        for turn in list(self._held):
            since = turn.held_since
            if since is not None and now - since >= self.hold_s and (self._urgent or self._rest):
                self.reclaimed += 1
                self.give_back(turn)
        self._arm_reaper()
