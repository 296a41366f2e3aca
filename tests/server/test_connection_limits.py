"""The server's connection options at work, through real connections: old connections are
asked to reconnect and their streams get a grace period, calls per connection are capped, and
a client that pings too often is dropped (docs/operations.md, "Connections")."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import grpc.aio
import pytest

from server.config import ServerConfig
from server.main import RunningServer, start_server
from server.ops.metrics import Metrics, new_registry
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

Start = Callable[..., Awaitable[RunningServer]]


@pytest.fixture
async def start() -> AsyncIterator[Start]:
    started: list[RunningServer] = []

    async def run(**settings: Any) -> RunningServer:
        config = ServerConfig(port=0, metrics_port=-1, store="memory", **settings)
        server = await start_server(config, metrics=Metrics(new_registry(process_collectors=False)))
        started.append(server)
        return server

    yield run
    for server in started:
        await server.shutdown(0)


async def _open_game(stub: Any) -> str:
    reply = await stub.CreateGame(gs.CreateGameRequest(options=gp.GameOptions(player_count=2)))
    return str(reply.game_id)


def _watch(stub: Any, game_id: str) -> Any:
    return stub.WatchGame(gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()))


async def test_an_old_connection_is_asked_to_reconnect_and_its_streams_end_after_the_grace(
    start: Start,
) -> None:
    server = await start(connection_age_s=0.5, connection_age_grace_s=0.5)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game_id = await _open_game(stub)
        watch = _watch(stub, game_id)
        assert (await watch.read()).view.game_id == game_id
        # Nothing happens in the game: only the connection's age ends the stream, as
        # UNAVAILABLE, which clients resume from (60 s: a guard against a hang).
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await asyncio.wait_for(watch.read(), 60)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        # The channel connects again by itself.
        listed = await asyncio.wait_for(stub.ListGames(gs.ListGamesRequest()), 60)
        assert [g.game_id for g in listed.games] == [game_id]


async def test_calls_past_the_cap_of_a_connection_wait_for_a_free_one(start: Start) -> None:
    server = await start(max_streams_per_connection=2, connection_age_s=0)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game_id = await _open_game(stub)
        watches = [_watch(stub, game_id) for _ in range(2)]
        for watch in watches:
            await watch.read()
        third = asyncio.ensure_future(_watch(stub, game_id).read())
        # Another connection is served meanwhile; this one's third call is not (it waits
        # for the client's connection to have a free stream, the server never saw it).
        # (A channel of its own: channels of one process share connections by default.)
        own = [("grpc.use_local_subchannel_pool", 1)]
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}", options=own) as other:
            other_stub = game_service_pb2_grpc.GameServiceStub(other)
            await other_stub.ListGames(gs.ListGamesRequest())
            await asyncio.sleep(0.5)
        assert not third.done()
        streams = server.streams
        assert streams is not None and streams.total == 2
        watches[0].cancel()
        first = await asyncio.wait_for(third, 60)
        assert first.view.game_id == game_id
        watches[1].cancel()


# HTTP/2 frame types and the GOAWAY error code of a peer that misbehaves (RFC 9113).
_SETTINGS, _PING, _GOAWAY = 0x4, 0x6, 0x7
_ENHANCE_YOUR_CALM = 0xB


def _frame(kind: int, payload: bytes = b"", flags: int = 0) -> bytes:
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + bytes(4) + payload


async def test_a_client_that_pings_too_often_is_told_to_calm_down_and_dropped(
    start: Start,
) -> None:
    # A bare HTTP/2 client (gRPC's own clients space their pings out): it pings ten times
    # in a row with nothing else to send, where once a second is allowed.
    server = await start(connection_age_s=0)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    try:
        # One write, so that the server reads it all at once: closing a socket with unread
        # bytes would reset the connection instead (and lose the GOAWAY on the way).
        pings = b"".join(_frame(_PING, n.to_bytes(8, "big")) for n in range(10))
        writer.write(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + _frame(_SETTINGS) + pings)
        with contextlib.suppress(ConnectionError):  # it may be closed already: read on
            await writer.drain()
        goaway: int | None = None
        while goaway is None:
            header = await asyncio.wait_for(reader.readexactly(9), 60)  # a hang guard
            length, kind = int.from_bytes(header[:3], "big"), header[3]
            payload = await reader.readexactly(length)
            if kind == _GOAWAY:
                goaway = int.from_bytes(payload[4:8], "big")
        assert goaway == _ENHANCE_YOUR_CALM
        # ...and the connection is closed.
        assert await asyncio.wait_for(reader.read(), 60) == b""
    finally:
        writer.close()
    # A client that keeps to the rules is served meanwhile, and afterwards.
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        await stub.ListGames(gs.ListGamesRequest())
