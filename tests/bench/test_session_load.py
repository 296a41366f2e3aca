"""The bench's PlaySession load plays what it counts, and its tables read right."""

from __future__ import annotations

import asyncio
import time

import grpc.aio

from bench.server_bench import Latencies, _seat_games, plan_games
from bench.session_load import SessionLoad
from bench.tournament_bench import TournamentBench
from server.config import ServerConfig
from server.main import start_server
from server.metrics import Metrics, new_registry
from yggdrasil.v1 import game_service_pb2_grpc


async def test_the_load_counts_the_decisions_the_games_logged() -> None:
    running = await start_server(
        # As the bench's servers: no per-caller quota (its load is one caller, on purpose).
        ServerConfig(port=0, metrics_port=-1, store="memory", anonymous_quota="unlimited"),
        metrics=Metrics(new_registry(process_collectors=False)),
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            prepared = await _seat_games(stub, plan_games(4), 12)
            ids = [game.game_id for game in list(prepared._ready)]
            load = SessionLoad(stub, prepared, 8)
            load.start()
            await load.phase(time.perf_counter() + 0.4)
            await asyncio.sleep(0.3)  # decisions sent before the gate closed are applied
            paused = sum(len(running.games.get(g).log) for g in ids)
            await asyncio.sleep(0.3)  # the gate is closed: nobody decides
            assert sum(len(running.games.get(g).log) for g in ids) == paused
            await load.phase(time.perf_counter() + 0.4)
            await asyncio.sleep(0.3)
            await load.close()
    finally:
        await running.shutdown(0)
    logged = sum(len(running.games.get(g).log) for g in ids)
    assert load.decisions == logged > 50
    assert load.refused == 0
    assert 0 < len(load.latencies) <= load.decisions
    assert all(0 < t < 5 for t in load.latencies)


def test_the_tournament_rows_compare_the_two_transports() -> None:
    bench = TournamentBench(8, 4, 2, games={"unary": 16, "session": 16})
    bench.seconds = {"unary": 8.0, "session": 2.0}
    rows = {name: value for name, value, _ in bench.rows()}
    assert rows["4-player random games / s, unary calls"] == "2.00"
    assert rows["4-player random games / s, PlaySession"] == "8.00"
    assert rows["PlaySession / unary games per second"] == "4.00x"


def test_latencies_rate() -> None:
    assert Latencies(calls=300, seconds=2.0, p50_ms=1.0, p99_ms=2.0).per_s == 150.0
