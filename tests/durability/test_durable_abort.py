"""An abort is durable, and the abandonment clocks survive a restart."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import grpc
import grpc.aio
import pytest
from durable_support import create_game, join_all, play, start, stub_for

from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


async def test_an_aborted_game_stays_aborted_and_its_events_come_back(tmp_path: Path) -> None:
    running = await start(tmp_path)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)
            created = await stub.CreateGame(
                gs.CreateGameRequest(options=gp.GameOptions(player_count=2, seed=31))
            )
            game_id = created.game_id
            tokens = await join_all(stub, game_id, 2)
            await play(stub, game_id, tokens, random.Random(31), 5)
            watch = stub.WatchGame(gs.WatchGameRequest(game_id=game_id, from_sequence=1))
            await stub.AbortGame(
                gs.AbortGameRequest(
                    game_id=game_id, reason="storm", creator_token=created.creator_token
                )
            )
            before = [m async for m in watch]
            idle = await create_game(stub, 2, seed=32)
            idle_tokens = await join_all(stub, idle, 2)
            joined = running.games.get(idle).activity_unix_ms
            await asyncio.sleep(0.05)  # so that the decisions' time differs from the joins'
            await play(stub, idle, idle_tokens, random.Random(32), 3)
            activity = running.games.get(idle).activity_unix_ms
            assert activity > joined  # the idle clock restarts at each decision
            created_open = await create_game(stub, 3, seed=33)
            created_at = running.games.get(created_open).record.created_unix_ms
            kept = await stub.CreateGame(
                gs.CreateGameRequest(options=gp.GameOptions(player_count=2, seed=34))
            )
    finally:
        await running.shutdown(0)
    assert before[-1].event.game_aborted.reason == "aborted by its creator (anonymous): storm"

    running = await start(tmp_path)
    try:
        assert running.restore is not None and running.restore.restored == 3  # not the abort
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = stub_for(channel)

            # Served from the store: its view, and every event again, the abort's included,
            # with the same numbers and contents.
            view = (
                await stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))
            ).view
            assert view.status == gp.GAME_STATUS_ABORTED
            again = [
                m
                async for m in stub.WatchGame(gs.WatchGameRequest(game_id=game_id, from_sequence=1))
            ]
            assert [m.SerializeToString() for m in again] == [m.SerializeToString() for m in before]
            listed = await stub.ListGames(gs.ListGamesRequest(status=gp.GAME_STATUS_ABORTED))
            assert [g.game_id for g in listed.games] == [game_id]
            # A creator token outlives the restart (its keyed hash is in the store).
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.AbortGame(gs.AbortGameRequest(game_id=kept.game_id))
            assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
            await stub.AbortGame(
                gs.AbortGameRequest(game_id=kept.game_id, creator_token=kept.creator_token)
            )
            assert running.games.get(kept.game_id).status.name == "ABORTED"
            # The clocks went on from the stored times (the last decision's), not from the
            # restart.
            games = running.games
            assert games.get(idle).activity_unix_ms == activity
            assert games.get(created_open).record.created_unix_ms == created_at
            abandonment = running.abandonment
            assert abandonment is not None
            assert await abandonment.sweep(created_at + 1_799_000) == 0
            assert await abandonment.sweep(created_at + 1_800_000) == 1  # the open one
            assert games.get(created_open).status.name == "ABORTED"
            assert await abandonment.sweep(activity + 86_399_000) == 0
            assert await abandonment.sweep(activity + 86_400_000) == 1  # the idle one
            assert games.get(idle).status.name == games.get(created_open).status.name == "ABORTED"
    finally:
        await running.shutdown(0)
    running = await start(tmp_path)
    try:
        assert running.restore is not None and running.restore.restored == 0
    finally:
        await running.shutdown(0)
