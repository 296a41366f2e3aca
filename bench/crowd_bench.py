"""Crowds and memory (issue 13): what a thousand spectators cost a game's decisions, and what
a whole game played with ``include_view`` leaves in memory.

* **Decision latency with spectators.** One planned 4-player game is played decision after
  decision (each SubmitAction waits for the previous answer) on a server in its own process,
  once with nobody watching and once with ``spectators`` spectator streams open on it from
  another process (reading every message, serialized bytes only). The two alternate over
  ``rounds`` rounds on the same server; the figure is the ratio of the median latencies
  (target <= 2x), and how long after the last decision the spectators had everything.
* **Memory per finished game.** ``games`` whole games are played with ``include_view`` on
  every SubmitAction (eight at a time) on a fresh server; the server's resident memory after
  them, less before them (after eight warm-up games), per game (target <= 64 KiB). Finished
  games stay in memory for the retention (10 minutes) and are counted here.

Both are ratios or figures of the same run; the machine's other load weighs on both sides.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field

import grpc
import grpc.aio

from bench.server_bench import ROOT, ServerProcess, _create, plan_games
from yggdrasil.v1 import game_service_pb2, game_service_pb2_grpc

__all__ = ["CrowdBench", "run"]

SPECTATORS_PER_CHANNEL = 100

# The spectators: another process, each channel its own connection, messages kept as bytes.
_SPECTATORS = r"""
import asyncio, sys, time, grpc, grpc.aio
from yggdrasil.v1 import game_service_pb2 as gs
async def main(port, game_id, count, per_channel):
    options = [("grpc.use_local_subchannel_pool", 1)]
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options)
                for _ in range(max(1, -(-count // per_channel)))]
    request = gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()).SerializeToString()
    calls = [channels[i % len(channels)].unary_stream(
                 "/yggdrasil.v1.GameService/WatchGame",
                 request_serializer=lambda b: b, response_deserializer=lambda b: b)(request)
             for i in range(count)]
    for call in calls:
        await call.read()
    print("READY", flush=True)
    async def drain(call):
        while await call.read() is not grpc.aio.EOF:
            pass
    results = await asyncio.gather(*(drain(c) for c in calls), return_exceptions=True)
    failed = sum(1 for r in results if isinstance(r, BaseException))
    print("DONE", time.time(), failed, flush=True)
asyncio.run(main(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
"""


@dataclass
class CrowdBench:
    spectators: int
    rounds: int
    quiet_p50_ms: list[float] = field(default_factory=list)
    crowd_p50_ms: list[float] = field(default_factory=list)
    quiet_p99_ms: list[float] = field(default_factory=list)
    crowd_p99_ms: list[float] = field(default_factory=list)
    caught_up_s: list[float] = field(default_factory=list)  # after the last decision
    spectators_failed: int = 0
    finished_games: int = 0
    kib_per_finished_game: float = 0.0

    def rows(self) -> list[tuple[str, str, str]]:
        quiet = statistics.median(self.quiet_p50_ms)
        crowd = statistics.median(self.crowd_p50_ms)
        p99 = statistics.median(self.crowd_p99_ms) / statistics.median(self.quiet_p99_ms)
        return [
            (
                "decision latency, nobody watching",
                f"{quiet:.2f} ms",
                f"p50, median of {self.rounds} games (baseline)",
            ),
            (
                f"decision latency, {self.spectators} spectators",
                f"{crowd:.2f} ms",
                f"p50; {crowd / quiet:.2f}x the baseline (target <= 2x), p99 {p99:.2f}x",
            ),
            (
                "spectators caught up after the game",
                f"{statistics.median(self.caught_up_s):.2f} s",
                f"after its last decision (median); streams failed: {self.spectators_failed}",
            ),
            (
                "resident memory per finished game",
                f"{self.kib_per_finished_game:.1f} KiB",
                f"{self.finished_games} games played with include_view; target <= 64 KiB",
            ),
        ]


async def _play(
    stub: game_service_pb2_grpc.GameServiceAsyncStub,
    seed: int,
    steps: tuple[tuple[int, int, int], ...],
    include_view: bool = False,
    game: tuple[str, list[str]] | None = None,
) -> list[float]:
    game_id, tokens = game if game is not None else await _create(stub, seed)
    latencies = []
    for i, (seat, index, version) in enumerate(steps):
        request = game_service_pb2.SubmitActionRequest(
            game_id=game_id,
            seat_token=tokens[seat],
            legal_index=index,
            state_version=version,
            idempotency_key=f"k{i}",
            include_view=include_view,
        )
        started = time.perf_counter()
        await stub.SubmitAction(request)
        latencies.append(time.perf_counter() - started)
    return latencies


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def _latency(bench: CrowdBench, server: ServerProcess) -> None:
    plan = plan_games(1)[0]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        await _play(stub, plan.seed, plan.steps[:40])  # warm up
        for _ in range(bench.rounds):
            quiet = await _play(stub, plan.seed, plan.steps)
            bench.quiet_p50_ms.append(_p(quiet, 0.5))
            bench.quiet_p99_ms.append(_p(quiet, 0.99))
            game = await _create(stub, plan.seed)
            crowd = subprocess.Popen(
                [sys.executable, "-c", _SPECTATORS, str(server.port), game[0],
                 str(bench.spectators), str(SPECTATORS_PER_CHANNEL)],
                cwd=ROOT, stdout=subprocess.PIPE, text=True,
            )  # fmt: skip
            try:
                assert crowd.stdout is not None
                line = await asyncio.to_thread(crowd.stdout.readline)
                if "READY" not in line:
                    raise RuntimeError(f"the spectators did not all get in: {line!r}")
                watched = await _play(stub, plan.seed, plan.steps, game=game)
                ended = time.time()
                done = (await asyncio.to_thread(crowd.stdout.readline)).split()
                bench.caught_up_s.append(float(done[1]) - ended)
                bench.spectators_failed += int(done[2])
            finally:
                crowd.kill()
                crowd.wait()
            bench.crowd_p50_ms.append(_p(watched, 0.5))
            bench.crowd_p99_ms.append(_p(watched, 0.99))


async def _memory(bench: CrowdBench, server: ServerProcess, games: int) -> None:
    plans = plan_games(8)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)

        async def batch(first: int, count: int) -> None:
            await asyncio.gather(
                *(
                    _play(stub, plans[i % 8].seed, plans[i % 8].steps, include_view=True)
                    for i in range(first, first + count)
                )
            )

        await batch(0, 8)
        await asyncio.sleep(0.5)
        before = server.rss_kib()
        for first in range(0, games, 8):
            await batch(first, min(8, games - first))
        await asyncio.sleep(0.5)
        bench.kib_per_finished_game = (server.rss_kib() - before) / games
        bench.finished_games = games


def run(spectators: int = 1000, rounds: int = 3, games: int = 200) -> CrowdBench:
    bench = CrowdBench(spectators, rounds)
    server = ServerProcess(["--store", "memory", "--max-spectators-per-game", str(spectators)])
    try:
        asyncio.run(_latency(bench, server))
    finally:
        server.stop()
    server = ServerProcess(["--store", "memory"])
    try:
        asyncio.run(_memory(bench, server, games))
    finally:
        server.stop()
    return bench


if __name__ == "__main__":
    for name, value, note in run().rows():
        print(f"  {name:<40} {value:>12}   {note}")
