"""The decision clock of hosted games: what time it is, and a callback when a deadline falls.

A game with a decision time limit reads the time and schedules the expiry of its seats'
deadlines through a :class:`DecisionClock` instead of the event loop directly, so that the
limit can be driven by hand: :class:`ManualClock` moves only when told to, and a test can then
say exactly which deadlines run out (and that none does while nothing should run) instead of
sleeping and hoping the machine kept up. The server uses :class:`LoopClock`.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    """A scheduled callback (an ``asyncio.TimerHandle`` is one)."""

    def cancel(self) -> None: ...


class DecisionClock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale (only differences mean anything)."""
        ...

    def wall_ms(self) -> int:
        """Unix time in milliseconds (what deadlines are reported in)."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` once ``delay`` seconds have passed on this clock."""
        ...


class LoopClock:
    """The running event loop's clock, and the system's wall clock."""

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def wall_ms(self) -> int:
        return int(time.time() * 1000)

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)


LOOP_CLOCK = LoopClock()


class _ManualTimer:
    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that moves only when :meth:`advance` or :meth:`advance_to_next` is called.

    Callbacks run synchronously inside those calls, in deadline order (the same order as
    the event loop would run them). Its wall time starts at ``wall_start_ms`` and moves with it.
    """

    def __init__(self, wall_start_ms: int = 1_700_000_000_000) -> None:
        self._now = 0.0
        self._wall_start_ms = wall_start_ms
        self._order = itertools.count()
        self._queue: list[tuple[float, int, _ManualTimer, Callable[[], None]]] = []

    def now(self) -> float:
        return self._now

    def wall_ms(self) -> int:
        return self._wall_start_ms + round(self._now * 1000)

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = _ManualTimer()
        due = self._now + max(0.0, delay)
        heapq.heappush(self._queue, (due, next(self._order), timer, callback))
        return timer

    @property
    def pending(self) -> int:
        """Callbacks scheduled and not cancelled."""
        return sum(1 for _, _, timer, _ in self._queue if not timer.cancelled)

    def next_due(self) -> float | None:
        """When the earliest pending callback is due (None: nothing is scheduled)."""
        self._drop_cancelled()
        return self._queue[0][0] if self._queue else None

    def advance(self, seconds: float) -> int:
        """Move the time on by ``seconds`` and run every callback that fell due; how many ran."""
        if seconds < 0:
            raise ValueError("a clock does not go back")
        target = self._now + seconds
        ran = 0
        while True:
            self._drop_cancelled()
            if not self._queue or self._queue[0][0] > target:
                break
            due, _, timer, callback = heapq.heappop(self._queue)
            self._now = max(self._now, due)
            timer.cancelled = True
            callback()
            ran += 1
        self._now = target
        return ran

    def advance_to_next(self) -> bool:
        """Move the time to the earliest pending deadline and run what is due then."""
        due = self.next_due()
        if due is None:
            return False
        self.advance(max(0.0, due - self._now))
        return True

    def _drop_cancelled(self) -> None:
        while self._queue and self._queue[0][2].cancelled:
            heapq.heappop(self._queue)
