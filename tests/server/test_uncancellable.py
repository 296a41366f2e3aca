"""server.games.uncancellable: a unit runs to its end whatever happens to the task awaiting it."""

from __future__ import annotations

import asyncio
import gc

import pytest

from server.games.uncancellable import run_to_end


async def test_the_unit_s_result_and_its_exception_reach_the_caller() -> None:
    async def value() -> int:
        await asyncio.sleep(0)
        return 7

    async def refusal() -> int:
        await asyncio.sleep(0)
        raise LookupError("refused")

    assert await run_to_end(value()) == 7
    with pytest.raises(LookupError, match="refused"):
        await run_to_end(refusal())


async def test_a_cancelled_caller_waits_for_the_unit_then_raises_its_cancellation() -> None:
    gate = asyncio.Event()
    steps: list[str] = []
    tracked: list[asyncio.Task[object]] = []

    async def unit() -> str:
        steps.append("written")
        await gate.wait()
        steps.append("applied")
        return "answer"

    lock = asyncio.Lock()

    async def caller() -> str:
        async with lock:
            return await run_to_end(unit(), tracked.append)

    task = asyncio.create_task(caller())
    while not steps:
        await asyncio.sleep(0)
    task.cancel()
    for _ in range(10):
        await asyncio.sleep(0)
    task.cancel()  # a second cancellation changes nothing either
    for _ in range(10):
        await asyncio.sleep(0)
    assert not task.done() and lock.locked() and steps == ["written"]
    assert len(tracked) == 1 and not tracked[0].done()
    gate.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert steps == ["written", "applied"] and not lock.locked()
    assert tracked[0].result() == "answer"


async def test_a_unit_that_fails_after_its_caller_was_cancelled_is_not_left_unretrieved() -> None:
    gate = asyncio.Event()
    unhandled: list[dict[str, object]] = []
    asyncio.get_running_loop().set_exception_handler(lambda _, context: unhandled.append(context))

    async def unit() -> None:
        await gate.wait()
        raise OSError("disk full")

    task = asyncio.create_task(run_to_end(unit()))
    await asyncio.sleep(0)
    task.cancel()
    await asyncio.sleep(0)
    gate.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    del task
    gc.collect()
    assert unhandled == []
