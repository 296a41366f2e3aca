"""clients.connection.follow: a stream cut anywhere (also inside a decision's events) is
resumed, and every event reaches the caller exactly once, in order."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio

from clients.bots.base import RandomBot
from clients.connection import follow
from clients.sdk import play_seat
from server.main import RunningServer
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc


class _CuttingStub:
    """Passes WatchGame through, but fails each stream with UNAVAILABLE after a random number
    (1 to 6) of messages new to the follower (at or after the stream's from_sequence); records
    (from_sequence, first message's sequence) of every stream.

    Only new messages count: a stream resumed inside a decision's events first sends the view
    before that decision and the decision's earlier events again. Counting those too, a cut
    deep inside a decision with more events than the largest budget (a game of this test has
    decisions of 15 events) left every later stream cut before anything new, and follow()
    reconnected for ever. With at least one new message per stream, every stream makes progress.
    """

    def __init__(self, inner: Any, rng: random.Random) -> None:
        self._inner = inner
        self._rng = rng
        self.starts: list[tuple[int, int]] = []

    def WatchGame(self, request: gs.WatchGameRequest) -> _CutCall:
        inner = self._inner.WatchGame(request)
        return _CutCall(self, inner, int(request.from_sequence), self._rng.randint(1, 6))


class _CutCall:
    def __init__(self, owner: _CuttingStub, inner: Any, start: int, budget: int) -> None:
        self._owner = owner
        self._inner = inner
        self._start = start
        self._budget = budget

    async def __aiter__(self) -> AsyncIterator[gs.WatchGameResponse]:
        first = True
        async for message in self._inner:
            if first:
                self._owner.starts.append((self._start, int(message.sequence)))
                first = False
            if message.sequence >= self._start:  # new to the follower
                if self._budget == 0:
                    raise grpc.aio.AioRpcError(
                        grpc.StatusCode.UNAVAILABLE,
                        grpc.aio.Metadata(),
                        grpc.aio.Metadata(),
                        details="cut by the test",
                    )
                self._budget -= 1
            yield message

    def cancel(self) -> bool:
        return bool(self._inner.cancel())


async def test_events_come_once_across_cuts_inside_decisions(running: RunningServer) -> None:
    address = f"127.0.0.1:{running.port}"
    async with grpc.aio.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        options = gp.GameOptions(player_count=2, seed=17)
        game_id = (await stub.CreateGame(gs.CreateGameRequest(options=options))).game_id
        await asyncio.gather(
            *(
                play_seat(address, game_id, RandomBot(), seat=s, rng=random.Random(s))
                for s in range(2)
            )
        )
        request = gs.WatchGameRequest(game_id=game_id, from_sequence=1)
        events = [m.event async for m in stub.WatchGame(request) if m.HasField("event")]
        assert [e.sequence for e in events] == list(range(1, len(events) + 1))

        cutting = _CuttingStub(stub, random.Random(5))
        got = [
            m
            async for m in follow(
                cutting, game_id, from_sequence=1, backoff_s=0.0, reconnects=len(events)
            )
        ]
    assert [m.event for m in got if m.HasField("event")] == events
    assert got[-1].event.WhichOneof("payload") == "game_ended"
    # The first 20 budgets of Random(5) add up to 75 new messages; every game has more events.
    assert len(events) > 75 and len(cutting.starts) > 20
    # Some cuts fell inside a decision's events: that stream began with the view before the
    # decision, below the resume point, and follow() passed on none of those events again.
    assert any(first < start - 1 for start, first in cutting.starts)
