"""Oversized and malformed requests: refused clearly and cheaply, and never logged whole."""

from __future__ import annotations

import io
import json

import grpc
import grpc.aio
import pytest
from api_support import Stub, create_game

from server.main import RunningServer
from server.ops.logs import MAX_LOGGED_CHARS, clip_values, configure_logging
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


async def test_a_huge_game_id_is_refused_and_logged_clipped(
    running: RunningServer, stub: Stub
) -> None:
    out = io.StringIO()
    configure_logging("DEBUG", out)
    try:
        huge = "g" * 300_000
        for call in (
            stub.GetView(gs.GetViewRequest(game_id=huge, spectator=gs.Spectator())),
            stub.JoinGame(gs.JoinGameRequest(game_id=huge)),
            stub.AbortGame(gs.AbortGameRequest(game_id=huge)),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await call
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert caught.value.details() == "game_id is at most 64 characters"
        watch = stub.WatchGame(gs.WatchGameRequest(game_id=huge))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await watch.read()
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        configure_logging("WARNING")
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines and all(len(line) < 2_000 for line in out.getvalue().splitlines())
    logged = [line["game_id"] for line in lines if "game_id" in line]
    assert logged and all(v.endswith("(300000 characters)") for v in logged)


async def test_requests_over_a_mebibyte_are_refused_before_they_are_read(stub: Stub) -> None:
    names = ["n" * 600_000, "m" * 600_000]  # 1.2 MB
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.CreateGame(
            gs.CreateGameRequest(options=gp.GameOptions(player_count=2, seat_names=names))
        )
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    await create_game(stub, 2)  # and the server goes on


async def test_malformed_bytes_are_invalid_argument_logged_once(running: RunningServer) -> None:
    out = io.StringIO()
    configure_logging("WARNING", out)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            raw = channel.unary_unary(
                "/yggdrasil.v1.GameService/CreateGame",
                request_serializer=lambda b: b,
                response_deserializer=lambda b: b,
            )
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await raw(b"\xff\xff\xff\xff\x0f\x01")
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "not a valid yggdrasil.v1.CreateGameRequest" in (caught.value.details() or "")
            session = channel.stream_stream(
                "/yggdrasil.v1.GameService/PlaySession",
                request_serializer=lambda b: b,
                response_deserializer=lambda b: b,
            )()
            await session.write(b"\x0a\xff\xff")
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await session.read()
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            stream = channel.unary_stream(
                "/yggdrasil.v1.GameService/WatchGame",
                request_serializer=lambda b: b,
                response_deserializer=lambda b: b,
            )(b"\x22\x01")
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stream.read()
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        configure_logging("WARNING")
    warnings = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(w["event"], w["method"]) for w in warnings] == [
        ("malformed_request", "CreateGame"),
        ("malformed_request", "PlaySession"),
        ("malformed_request", "WatchGame"),
    ]
    assert all(w["level"] == "warning" and len(w["request_id"]) == 12 for w in warnings)


def test_every_logged_value_is_clipped() -> None:
    event = {
        "event": "x",
        "short": "ok",
        "long": "a" * 10_000,
        "nested": {"inner": ["b" * 10_000, 3]},
        "number": 5,
    }
    clipped = clip_values(None, "info", dict(event))
    assert clipped["short"] == "ok" and clipped["number"] == 5
    assert clipped["long"] == "a" * MAX_LOGGED_CHARS + "...(10000 characters)"
    assert clipped["nested"]["inner"][0].endswith("...(10000 characters)")
    assert clipped["nested"]["inner"][1] == 3
