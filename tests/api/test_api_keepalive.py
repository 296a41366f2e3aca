"""A client that vanishes without closing its connection loses its WatchGame stream within
the server's keepalive time: its watcher is released, not kept for hours."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import grpc.aio
from api_support import create_game, join_all

from server.main import RunningServer
from tests.silent_link import SilentLink
from tests.waiting import until
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

StartServer = Callable[..., Awaitable[RunningServer]]


def _open_streams(server: RunningServer) -> float:
    value = server.metrics.registry.get_sample_value("yggdrasil_watch_streams_active")
    return 0.0 if value is None else value


@contextlib.asynccontextmanager
async def _watching_through_a_link(server: RunningServer) -> AsyncIterator[SilentLink]:
    """A spectator's WatchGame open on ``server`` through a link that the caller may silence.
    The client has no keepalive of its own: the server must notice by itself."""
    link = SilentLink(server.port)
    port = await link.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    call: Any = None
    try:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game_id = await create_game(stub, 2)
        await join_all(stub, game_id, 2)
        call = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()))
        first = await call.read()
        assert first.view.game_id == game_id
        yield link
    finally:
        if call is not None:
            call.cancel()
        await channel.close(grace=None)
        await link.close()


async def test_a_vanished_watcher_is_dropped_by_the_keepalive_and_only_by_it(
    server_factory: StartServer,
) -> None:
    # Two servers, watchers silenced at the same moment: one with a keepalive of 0.5 s, one
    # with the default (a minute). The first drops its watcher; the second, asked when the
    # first has (well within its minute), still counts its own: the keepalive is what
    # drops it, not some other timeout.
    short = await server_factory(keepalive_s=0.5)
    default = await server_factory()
    try:
        async with (
            _watching_through_a_link(short) as quick,
            _watching_through_a_link(default) as slow,
        ):
            assert _open_streams(short) == _open_streams(default) == 1
            quick.go_silent()
            slow.go_silent()
            assert _open_streams(short) == 1  # nothing is dropped at once
            await until(
                lambda: _open_streams(short) == 0,
                "the silent watcher is still counted with a keepalive of 0.5 s",
                guard_s=30.0,  # half the default keepalive: the control below stays valid
            )
            assert _open_streams(default) == 1
    finally:
        await short.shutdown(0)
        await default.shutdown(0)
