"""The GameStore seam: decisions reach the store before they are acknowledged."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from api_support import create_game, join_all, random_step, seat_view, spectator_view

from server.config import ServerConfig
from server.main import start_server
from server.ops.metrics import Metrics, new_registry
from server.stores.contract import StoredAction
from server.stores.memory import MemoryStore
from server.stores.sqlite import SqliteStore
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc


class FlakyStore(MemoryStore):
    """Refuses appends while ``broken`` is set."""

    broken = False

    async def append(self, game_id: str, entry: StoredAction) -> None:
        if self.broken:
            raise OSError("disk full")
        await super().append(game_id, entry)


async def _with_store(store: Any, metrics: Metrics | None = None, **config: Any) -> Any:
    return await start_server(
        ServerConfig(**{"port": 0, "metrics_port": -1, "seed_choice": "anyone", **config}),
        metrics=metrics or Metrics(new_registry(process_collectors=False)),
        store=store,
    )


async def test_sqlite_store_gets_every_decision(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "games.sqlite3")
    store.open()
    running = await _with_store(store)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game_id = await create_game(stub, 3, seed=51)
            tokens = await join_all(stub, game_id, 3)
            rng = random.Random(51)
            for _ in range(12):
                assert await random_step(stub, game_id, tokens, rng)
            game = running.games.get(game_id)
            stored = store.load_game(game_id)
            assert stored is not None
            assert stored.settings["seed"] == 51 and stored.settings["players"] == 3
            assert sorted(stored.seats) == [0, 1, 2]
            assert stored.actions == game.log
            assert stored.actions[-1].state_hash == game.state.state_hash()
    finally:
        await running.shutdown(0)
        store.close()


async def test_a_failing_store_refuses_and_changes_nothing() -> None:
    store = FlakyStore()
    running = await _with_store(store)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game_id = await create_game(stub, 2, seed=52)
            tokens = await join_all(stub, game_id, 2)
            before = await spectator_view(stub, game_id)
            store.broken = True
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.SubmitAction(
                    gs.SubmitActionRequest(
                        game_id=game_id, seat_token=tokens[0], legal_index=0, state_version=0
                    )
                )
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
            assert await spectator_view(stub, game_id) == before
            assert running.games.get(game_id).log == []
            store.broken = False
            view = await seat_view(stub, game_id, tokens[0])
            reply = await stub.SubmitAction(
                gs.SubmitActionRequest(
                    game_id=game_id, seat_token=tokens[0], legal_index=0, state_version=0
                )
            )
            assert reply.state_version == view.state_version + 1
            assert len(store.logs[game_id]) == 1
    finally:
        await running.shutdown(0)


class SnapshotRefusingStore(MemoryStore):
    """A durable store (snapshots are asked for) that refuses every snapshot."""

    durable = True
    refused = 0

    async def snapshot(self, game_id: str, version: int, data: dict[str, Any]) -> None:
        self.refused += 1
        raise OSError("no space left for snapshots")


async def test_refused_snapshots_are_counted_and_play_goes_on() -> None:
    store = SnapshotRefusingStore()
    metrics = Metrics(new_registry(process_collectors=False))
    running = await _with_store(store, metrics, snapshot_every=5, max_games=123)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            game_id = await create_game(stub, 2, seed=53)
            tokens = await join_all(stub, game_id, 2)
            rng = random.Random(4)
            for _ in range(12):
                assert await random_step(stub, game_id, tokens, rng)
            await running.games.get(game_id).idle()
        registry = metrics.registry
        assert store.refused >= 2
        assert registry.get_sample_value("yggdrasil_snapshot_failures_total") == store.refused
        assert registry.get_sample_value("yggdrasil_max_games") == 123
        assert len(store.logs[game_id]) == 12  # the log has every decision all the same
    finally:
        await running.shutdown(0)
