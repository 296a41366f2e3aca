"""The bench's PlaySession load plays what it counts, and its tables read right."""

from __future__ import annotations

import asyncio
import time

import grpc.aio

from bench.server_bench import Latencies, _seat_games, plan_games
from bench.session_load import GameSource, SeatedGame, SessionLoad
from bench.tournament_bench import TournamentBench
from engine.blood_rage import flow
from server.config import ServerConfig
from server.games.record import Status
from server.games.registry import GameRegistry
from server.main import start_server
from server.ops.metrics import Metrics, new_registry
from yggdrasil.v1 import game_service_pb2_grpc


class _Taken:
    """The bench's game source, remembering which games the load took."""

    def __init__(self, source: GameSource) -> None:
        self.source = source
        self.ids: list[str] = []

    def take(self) -> SeatedGame | None:
        game = self.source.take()
        if game is not None:
            self.ids.append(game.game_id)
        return game


async def _settled(load: SessionLoad, games: GameRegistry, taken: list[str]) -> None:
    """Wait (the gate being closed) until no decision is on its way: every game the load took
    is over, or each seat it awaits holds its request to decide at the gate. Then no game can
    move until the gate opens. A decision lost between the load and the log never settles."""

    def settled() -> bool:
        for game_id in taken:
            game = games.get(game_id)
            if game.status == Status.IN_PROGRESS and any(
                (game_id, seat) not in load.held for seat in flow.awaiting(game.state)
            ):
                return False
        return True

    loop = asyncio.get_running_loop()
    give_up = loop.time() + 60.0  # only a guard against a hang: settling takes milliseconds
    while not settled():
        assert loop.time() < give_up, (
            f"the load did not settle: {load.decisions} decisions sent, "
            f"{_logged(games, taken)} logged, {load.refused} refused"
        )
        await asyncio.sleep(0.01)


def _logged(games: GameRegistry, ids: list[str]) -> int:
    return sum(len(games.get(game_id).log) for game_id in ids)


async def test_the_load_counts_the_decisions_the_games_logged() -> None:
    running = await start_server(
        # As the bench's servers: no per-caller quota (its load is one caller, on purpose).
        ServerConfig(port=0, metrics_port=-1, store="memory", anonymous_quota="unlimited"),
        metrics=Metrics(new_registry(process_collectors=False)),
    )
    began = time.perf_counter()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            prepared = await _seat_games(stub, plan_games(4), 12)
            ids = [game.game_id for game in list(prepared._ready)]
            taken = _Taken(prepared)
            load = SessionLoad(stub, taken, 8)
            load.start()
            phases = 0
            # At least two phases (the sessions stay open across a closed gate) and enough
            # decisions to count, however slowly the machine runs.
            while phases < 2 or load.decisions <= 50:
                assert phases < 500, f"only {load.decisions} decisions in {phases} phases"
                await load.phase(time.perf_counter() + 0.2)
                phases += 1
                sent = load.decisions  # the gate is closed: nobody sends another
                await _settled(load, running.games, taken.ids)
                assert load.refused == 0
                assert load.decisions == sent
                assert _logged(running.games, ids) == sent
            await load.close()
    finally:
        await running.shutdown(0)
    elapsed = time.perf_counter() - began
    assert _logged(running.games, ids) == load.decisions
    assert load.refused == 0
    assert 0 < len(load.latencies) <= load.decisions
    # Each latency runs between two moments of this test.
    assert all(0 < t < elapsed for t in load.latencies)


def test_the_tournament_rows_compare_the_two_transports() -> None:
    bench = TournamentBench(8, 4, 2, games={"unary": 16, "session": 16})
    bench.seconds = {"unary": 8.0, "session": 2.0}
    rows = {name: value for name, value, _ in bench.rows()}
    assert rows["4-player random games / s, unary calls"] == "2.00"
    assert rows["4-player random games / s, PlaySession"] == "8.00"
    assert rows["PlaySession / unary games per second"] == "4.00x"


def test_latencies_rate() -> None:
    assert Latencies(calls=300, seconds=2.0, p50_ms=1.0, p99_ms=2.0).per_s == 150.0
