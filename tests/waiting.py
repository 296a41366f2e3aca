"""Waiting in async tests for something to happen, rather than for some time to pass.

``await until(condition, what)`` returns as soon as ``condition()`` holds. Its deadline is
only a guard against a hang: generous, so that a slow or loaded machine (CI, other jobs on
the same cores) makes a test slower, never red. A test that must show something does *not*
happen drives that with a clock or an event of its own instead (see
``server.games.decision_clock.ManualClock``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

GUARD_S = 60.0
POLL_S = 0.01


async def until(condition: Callable[[], object], what: str, guard_s: float = GUARD_S) -> None:
    """Wait until ``condition()`` is true; fail with ``what`` (what never happened) if it is
    still false after ``guard_s`` seconds."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + guard_s
    while not condition():
        if loop.time() > give_up:
            raise AssertionError(f"after {guard_s:g} s: {what}")
        await asyncio.sleep(POLL_S)
