"""Watchers per game are bounded, spectators cannot crowd out seats, and metrics count them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import grpc.aio
import pytest
from api_support import create_game, join_all

from server.main import RunningServer
from tests.waiting import until
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

Factory = Callable[..., Any]


def _sample(server: RunningServer, name: str, **labels: str) -> float | None:
    return server.metrics.registry.get_sample_value(name, labels)


async def test_spectators_per_game_are_bounded_and_seats_still_watch(
    server_factory: Factory,
) -> None:
    server: RunningServer = await server_factory(max_spectators_per_game=2)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game_id = await create_game(stub, 2)
            other = await create_game(stub, 2)
            tokens = await join_all(stub, game_id, 2)
            spectate = gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator())
            calls = [stub.WatchGame(spectate) for _ in range(2)]
            for call in calls:
                await call.read()
            crowd = stub.WatchGame(spectate)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await crowd.read()
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "2 spectator streams" in (caught.value.details() or "")
            # The seats are counted apart, and another game is not affected.
            seat = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, seat_token=tokens[1]))
            assert (await seat.read()).view.viewer_seat == 1
            elsewhere = stub.WatchGame(gs.WatchGameRequest(game_id=other))
            await elsewhere.read()
            assert _sample(server, "yggdrasil_game_streams_max") == 3.0
            assert _sample(server, "yggdrasil_game_streams_bucket", le="1") == 1.0
            assert _sample(server, "yggdrasil_game_streams_bucket", le="10") == 2.0
            assert _sample(server, "yggdrasil_game_streams_gsum") == 4.0
            calls[0].cancel()
            streams = server.streams
            assert streams is not None
            await until(lambda: streams.count(game_id) == 2, "the cancelled stream still counted")
            again = stub.WatchGame(spectate)
            await again.read()
            for call in (calls[1], seat, elsewhere, again):
                call.cancel()
            await until(lambda: streams.total == 0, "cancelled streams still counted")
            assert _sample(server, "yggdrasil_game_streams_max") == 0.0
    finally:
        await server.shutdown(0)
