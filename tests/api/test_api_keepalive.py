"""A client that vanishes without closing its connection loses its WatchGame stream within
the server's keepalive time: its watcher is released, not kept for hours."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import grpc.aio
from api_support import create_game, join_all

from server.main import RunningServer
from tests.silent_link import SilentLink
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

StartServer = Callable[..., Awaitable[RunningServer]]


async def _until(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def _watchers_after_silence(server: RunningServer) -> tuple[float, float, float]:
    """Open a watch through a link, let the link go silent; returns the open-stream gauge
    before, right after, and 2.5 s after the silence (or as soon as it drops)."""

    def open_streams() -> float:
        value = server.metrics.registry.get_sample_value("yggdrasil_watch_streams_active")
        return 0.0 if value is None else value

    link = SilentLink(server.port)
    port = await link.start()
    # A client without keepalive of its own: the server must notice by itself.
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game_id = await create_game(stub, 2)
        await join_all(stub, game_id, 2)
        call: Any = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()))
        first = await call.read()
        assert first.view.game_id == game_id
        before = open_streams()
        link.go_silent()
        right_after = open_streams()
        await _until(lambda: open_streams() < before, 2.5)
        later = open_streams()
        call.cancel()
        return before, right_after, later
    finally:
        await channel.close(grace=None)
        await link.close()


async def test_a_vanished_watcher_is_dropped_after_the_keepalive(
    server_factory: StartServer,
) -> None:
    server = await server_factory(keepalive_s=0.5)
    try:
        before, right_after, later = await _watchers_after_silence(server)
    finally:
        await server.shutdown(0)
    assert before == right_after == 1
    assert later == 0


async def test_keepalive_is_what_drops_it(server_factory: StartServer) -> None:
    # The same with the default (a minute): the silent watcher is still counted 2.5 s later,
    # so the test above measures the keepalive, not some other timeout.
    server = await server_factory()
    try:
        before, _, later = await _watchers_after_silence(server)
    finally:
        await server.shutdown(0)
    assert before == later == 1
