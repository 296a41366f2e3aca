"""The fan-out gate: watchers send in turns, seats first, and a slow one loses its turn."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.api.fanout import FanoutGate, Turn
from server.games.message_cache import MESSAGE_CACHE_SIZE as WIRE_CACHE_SIZE
from server.games.message_cache import MessageCache as WireCache


class FakeGame:
    """What the gate reads of a game: its newest sequence, closed, its listeners."""

    def __init__(self) -> None:
        self.last_sequence = 0
        self.closed = False
        self.listeners: list[Any] = []

    def publish(self) -> None:
        self.last_sequence += 1
        for listener in tuple(self.listeners):
            listener()


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def test_at_most_slots_turns_are_held_and_seats_go_first() -> None:
    gate = FanoutGate(slots=2, hold_s=10)
    game = FakeGame()
    order: list[str] = []
    holding: list[int] = []
    releases: dict[str, asyncio.Event] = {}

    async def watcher(name: str, urgent: bool) -> None:
        turn = Turn(urgent)
        await gate.take(turn)
        gate.give_back(turn)
        await gate.wait_for(game, 1, turn)  # parked until the game publishes
        order.append(name)
        holding.append(gate.slots - gate._free)
        releases[name] = asyncio.Event()
        await releases[name].wait()
        gate.give_back(turn)

    names = [("s1", False), ("s2", False), ("s3", False), ("seat", True)]
    tasks = [asyncio.create_task(watcher(n, u)) for n, u in names]
    await _settle()
    assert order == []  # parked: nothing runs before the game changes
    game.publish()
    await _settle()
    assert order == ["seat", "s1"]  # two turns, the seat's first
    assert max(holding) == 2
    releases["seat"].set()
    await _settle()
    assert order == ["seat", "s1", "s2"]
    for name in ("s1", "s2"):
        releases[name].set()
    await _settle()
    releases["s3"].set()
    await asyncio.gather(*tasks)
    assert order == ["seat", "s1", "s2", "s3"] and gate._free == 2


async def test_a_slow_holder_loses_its_turn_to_the_next_in_line() -> None:
    gate = FanoutGate(slots=1, hold_s=0.05)
    slow, quick = Turn(False), Turn(False)
    await gate.take(slow)  # and never gives it back (a reader that does not read)
    await asyncio.wait_for(gate.take(quick), timeout=2)
    assert gate.reclaimed == 1 and slow.held_since is None
    gate.give_back(slow)  # a late give-back of a lost turn changes nothing
    assert gate._free == 0
    gate.give_back(quick)
    assert gate._free == 1


async def test_a_watcher_that_leaves_while_waiting_leaks_no_turn() -> None:
    gate = FanoutGate(slots=1, hold_s=10)
    holder, leaver = Turn(False), Turn(False)
    await gate.take(holder)
    waiting = asyncio.create_task(gate.take(leaver))
    await _settle()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    gate.give_back(holder)
    assert gate._free == 1
    game = FakeGame()
    parked = asyncio.create_task(gate.wait_for(game, 1, Turn(False)))
    await _settle()
    parked.cancel()
    with pytest.raises(asyncio.CancelledError):
        await parked
    game.publish()  # its future is skipped, not granted
    assert gate._free == 1 and game.listeners == []


async def test_a_closed_game_wakes_its_watchers() -> None:
    gate = FanoutGate(slots=1, hold_s=10)
    game = FakeGame()
    turn = Turn(False)
    parked = asyncio.create_task(gate.wait_for(game, 5, turn))
    await _settle()
    game.closed = True
    for listener in tuple(game.listeners):
        listener()
    await asyncio.wait_for(parked, timeout=2)
    assert turn.held_since is not None  # returns holding a turn: it sends its last words


def test_the_wire_cache_is_bounded() -> None:
    cache = WireCache()
    for sequence in range(WIRE_CACHE_SIZE + 10):
        cache.put((sequence, 0), b"x")
    assert len(cache) == WIRE_CACHE_SIZE
    assert cache.get((0, 0)) is None and cache.get((WIRE_CACHE_SIZE + 9, 0)) == b"x"
