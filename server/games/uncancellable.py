"""Work a caller's cancellation must not cut in two: a store write and the change in memory
that records it.

A game changes by writing to its store first and changing memory after (the log is the
truth). The task that waits for the write may be cancelled meanwhile: grpc.aio cancels a
handler's task when its client cancels the call or its deadline passes, a stream's tasks end
with the stream, a shutdown stops waiting. A cancellation reaches the task at the ``await``
of the write, but the write goes on regardless: SQLite's writer thread has it queued,
PostgreSQL may have it sent. Cut there, the change would be in the store and not in memory:
the next decision would be logged at a version the log already has (refused for ever), a
retry with the same idempotency key would not be recognised, and a restart would restore a
state nobody was shown. The game's lock would also be given up while the write goes on.

:func:`run_to_end` runs such a unit in a task of its own that the caller's cancellation does
not reach. A cancelled caller still waits for the unit to end (holding any lock it holds),
then raises its cancellation: the change stands, only its answer is lost, and a retry gets it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["run_to_end"]

T = TypeVar("T")


async def run_to_end(
    unit: Coroutine[Any, Any, T],
    track: Callable[[asyncio.Task[Any]], None] | None = None,
) -> T:
    """Run ``unit`` to its end and return its result (or raise its exception).

    If the caller is cancelled meanwhile, the unit goes on: the caller waits for it (further
    cancellations included), then raises CancelledError. ``track`` is given the unit's task
    (a shutdown waits for the tasks it tracks before it closes the store)."""
    task = asyncio.get_running_loop().create_task(unit)
    if track is not None:
        track(task)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await _outlast(task)
        raise


async def _outlast(task: asyncio.Task[Any]) -> None:
    """Wait until ``task`` is done, whatever cancels the waiter meanwhile (the waiter raises
    its first cancellation once this returns). The unit's own outcome was retrieved by the
    shield: nobody is left to answer."""
    while not task.done():
        try:
            await asyncio.wait((task,))
        except asyncio.CancelledError:
            continue
