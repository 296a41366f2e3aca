"""A shutdown ends watch streams with UNAVAILABLE and where to resume; clients resume there."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import grpc
import grpc.aio
import pytest
from durable_support import create_game, join_all, play, start, stub_for

from clients.connection import follow
from yggdrasil.v1 import game_service_pb2 as gs


async def test_shutdown_says_where_to_resume_and_follow_resumes_there(tmp_path: Path) -> None:
    running = await start(tmp_path)
    port = running.port
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    stub = stub_for(channel)
    game_id = await create_game(stub, 2, seed=41)
    tokens = await join_all(stub, game_id, 2)
    await play(stub, game_id, tokens, random.Random(41), 3)
    last = running.games.get(game_id).last_sequence
    plain = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, from_sequence=1))
    received: list[gs.WatchGameResponse] = []

    async def follow_all() -> None:
        async for message in follow(stub, game_id, from_sequence=1, backoff_s=0.2, reconnects=50):
            received.append(message)

    follower = asyncio.create_task(follow_all())
    while not received or received[-1].sequence < last:
        await asyncio.sleep(0.02)
    message = await plain.read()
    while message.sequence < last:
        message = await plain.read()
    await running.shutdown(0)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await plain.read()
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    assert caught.value.details() == (
        f"the server is shutting down; resume with from_sequence {last + 1}"
    )

    running = await start(tmp_path, port=port)
    try:
        await play(stub, game_id, tokens, random.Random(42), 3)
        now = running.games.get(game_id).last_sequence
        while received[-1].sequence < now:
            await asyncio.sleep(0.05)
        follower.cancel()
        events = [m.sequence for m in received if m.HasField("event")]
        # Every event exactly once, in order, across the shutdown and the restart.
        assert events == list(range(1, now + 1))
    finally:
        follower.cancel()
        await channel.close()
        await running.shutdown(0)
