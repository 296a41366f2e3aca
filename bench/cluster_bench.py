"""``make bench-cluster``: what the cluster costs, each figure against a baseline of the same run.

1. SubmitAction through Envoy against the same node called directly (a one-node cluster, so
   Envoy always reaches the owner): mean latency of SubmitAction alone (its GetView not
   timed), rounds interleaved. Target: direct/Envoy >= 0.8.
2. A forwarded call against a direct one (two nodes; the game's owner called directly, and the
   other node, which relays): GetView and SubmitAction.
3. Failover: SIGKILL the owner of a game (lease TTL 2 s), then retry a decision through Envoy
   until one succeeds on the new owner. Target: <= TTL + 2 s.
4. Group commit (``bench/group_commit_bench.py``): the PostgreSQL store's append throughput
   against SQLite's, both with fsync on, many games appending at once through each store's
   own API; SubmitAction on a PostgreSQL node against the same node on SQLite; and the
   latency batching adds to a decision at low load (one game).

Every process runs on this machine's cores together with the load generator: the figures are
ratios, not capacities, and on a loaded machine they move (docs/cluster.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import psycopg

from bench import group_commit_bench
from bench.group_commit_bench import GroupCommitBench
from clients.connection import game_id_interceptors
from localcluster.cluster import ClusterSettings, LocalCluster
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

TTL_S = 2.0
_RETRIED = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.CANCELLED,
)


@dataclass
class ClusterBench:
    submit_direct_ms: float = 0.0
    submit_envoy_ms: float = 0.0
    envoy_ratio: float = 0.0  # direct / Envoy latency (1 = free)
    view_direct_ms: float = 0.0
    view_forwarded_ms: float = 0.0
    submit_forwarded_ms: float = 0.0
    forwarded_view_ratio: float = 0.0
    forwarded_submit_ratio: float = 0.0
    failover_s: list[float] | None = None
    failover_target_s: float = TTL_S + 2.0
    group_commit: GroupCommitBench | None = None

    def rows(self) -> list[tuple[str, str, str]]:
        fo = self.failover_s or []
        return [
            ("SubmitAction direct", f"{self.submit_direct_ms:.2f} ms", "baseline"),
            ("SubmitAction through Envoy", f"{self.submit_envoy_ms:.2f} ms",
             f"{self.envoy_ratio:.2f}x of direct (target >= 0.8)"),
            ("GetView on the owner", f"{self.view_direct_ms:.2f} ms", "baseline"),
            ("GetView forwarded", f"{self.view_forwarded_ms:.2f} ms",
             f"{self.forwarded_view_ratio:.2f}x of direct"),
            ("SubmitAction forwarded", f"{self.submit_forwarded_ms:.2f} ms",
             f"{self.forwarded_submit_ratio:.2f}x of direct"),
            ("failover (SIGKILL -> decision)", ", ".join(f"{s:.2f} s" for s in fo),
             f"max {max(fo, default=0):.2f} s (target <= {self.failover_target_s:.1f} s)"),
        ] + (self.group_commit.rows() if self.group_commit is not None else [])  # fmt: skip


class Player:
    """Plays one game with random legal decisions, timing SubmitAction alone."""

    def __init__(self, stub: Any, game_id: str, tokens: list[str], seed: int) -> None:
        self.stub = stub
        self.game_id = game_id
        self.tokens = tokens
        self.rng = random.Random(seed)
        self.n = 0

    async def request(self) -> gs.SubmitActionRequest | None:
        spectator = gs.GetViewRequest(game_id=self.game_id, spectator=gs.Spectator())
        view = (await self.stub.GetView(spectator)).view
        waiting = [s for s in view.awaiting_seats if s not in view.committed_seats]
        if not waiting or view.status != gp.GAME_STATUS_IN_PROGRESS:
            return None
        seat = waiting[0]
        mine = await self.stub.GetView(
            gs.GetViewRequest(game_id=self.game_id, seat_token=self.tokens[seat])
        )
        legal = mine.view.legal_actions
        self.n += 1
        return gs.SubmitActionRequest(
            game_id=self.game_id,
            seat_token=self.tokens[seat],
            legal_index=self.rng.randrange(len(legal)),
            state_version=mine.view.state_version,
            idempotency_key=f"{self.game_id}/{self.n}",
        )

    async def timed_submits(self, count: int, stub: Any) -> list[float]:
        out = []
        for _ in range(count):
            request = await self.request()
            if request is None:
                break
            started = time.perf_counter()
            await stub.SubmitAction(request)
            out.append(time.perf_counter() - started)
        return out


async def _game(stub: Any, players: int, seed: int) -> tuple[str, list[str]]:
    created = await stub.CreateGame(
        gs.CreateGameRequest(options=gp.GameOptions(player_count=players, seed=seed))
    )
    tokens = []
    for seat in range(players):
        joined = await stub.JoinGame(gs.JoinGameRequest(game_id=created.game_id, seat=seat))
        tokens.append(joined.seat_token)
    return str(created.game_id), tokens


def _stub(address: str) -> tuple[grpc.aio.Channel, Any]:
    channel = grpc.aio.insecure_channel(address, interceptors=game_id_interceptors())
    return channel, game_service_pb2_grpc.GameServiceStub(channel)


async def _envoy_vs_direct(cluster: LocalCluster, games: int, rounds: int) -> tuple[float, float]:
    envoy_channel, envoy = _stub(cluster.address)
    direct_channel, direct = _stub(cluster.nodes[0].address)
    players = [Player(direct, *(await _game(direct, 4, 100 + i)), seed=i) for i in range(games)]
    times: dict[str, list[float]] = {"direct": [], "envoy": []}
    for r in range(rounds):
        for name, stub in (("direct", direct), ("envoy", envoy))[:: 1 if r % 2 else -1]:
            batches = await asyncio.gather(*(p.timed_submits(5, stub) for p in players))
            times[name] += [t for b in batches for t in b]
    await envoy_channel.close()
    await direct_channel.close()
    return statistics.mean(times["direct"]) * 1000, statistics.mean(times["envoy"]) * 1000


async def _forwarded(cluster: LocalCluster, games: int, rounds: int) -> dict[str, float]:
    a_channel, a = _stub(cluster.nodes[0].address)
    b_channel, b = _stub(cluster.nodes[1].address)
    players = [Player(a, *(await _game(a, 4, 200 + i)), seed=i) for i in range(games)]
    views: dict[str, list[float]] = {"direct": [], "forwarded": []}
    submits: dict[str, list[float]] = {"direct": [], "forwarded": []}
    for r in range(rounds):
        for name, stub in (("direct", a), ("forwarded", b))[:: 1 if r % 2 else -1]:
            for p in players:
                request = gs.GetViewRequest(game_id=p.game_id, spectator=gs.Spectator())
                for _ in range(5):
                    started = time.perf_counter()
                    await stub.GetView(request)
                    views[name].append(time.perf_counter() - started)
            batches = await asyncio.gather(*(p.timed_submits(5, stub) for p in players))
            submits[name] += [t for batch in batches for t in batch]
    await a_channel.close()
    await b_channel.close()
    return {
        "view_direct": statistics.mean(views["direct"]) * 1000,
        "view_forwarded": statistics.mean(views["forwarded"]) * 1000,
        "submit_direct": statistics.mean(submits["direct"]) * 1000,
        "submit_forwarded": statistics.mean(submits["forwarded"]) * 1000,
    }


async def _failover(cluster: LocalCluster, times: int) -> list[float]:
    channel, envoy = _stub(cluster.address)
    out = []
    for i in range(times):
        game_id, tokens = await _game(envoy, 2, 300 + i)
        player = Player(envoy, game_id, tokens, seed=i)
        await player.timed_submits(3, envoy)
        request = await player.request()
        assert request is not None
        with psycopg.connect(cluster.database_url) as conn:
            row = conn.execute("SELECT owner FROM games WHERE game_id = %s", (game_id,)).fetchone()
        assert row is not None
        index = int(str(row[0]).split("/")[0].removeprefix("node"))
        node = cluster.nodes[index - 1]
        killed = time.perf_counter()
        await asyncio.to_thread(node.kill)
        while True:
            try:
                await envoy.SubmitAction(request, timeout=5)
                break
            except grpc.aio.AioRpcError as e:
                if e.code() not in _RETRIED:
                    raise
                await asyncio.sleep(0.02)
        out.append(time.perf_counter() - killed)
        await asyncio.to_thread(node.start)
        await asyncio.sleep(1.5)  # Envoy sees it healthy again
    await channel.close()
    return out


def _settings(nodes: int) -> ClusterSettings:
    return ClusterSettings(nodes=nodes, lease_ttl_s=TTL_S, lease_renew_s=0.4, lease_margin_s=0.5)


async def run_async(
    games: int,
    rounds: int,
    failovers: int,
    *,
    shapes: list[tuple[int, int]],
    in_flight: int = 16,
    seconds: float = 5.0,
    store_only: bool = False,
) -> ClusterBench:
    out = ClusterBench()
    out.group_commit = await group_commit_bench.run_async(shapes, in_flight, seconds)
    if store_only:
        return out
    with tempfile.TemporaryDirectory(prefix="ygg-bench-") as tmp:
        settings = ClusterSettings(
            nodes=1, lease_ttl_s=TTL_S, lease_renew_s=0.4, lease_margin_s=0.5
        )
        with LocalCluster(settings, Path(tmp) / "one") as one:
            out.submit_direct_ms, out.submit_envoy_ms = await _envoy_vs_direct(one, games, rounds)
        out.envoy_ratio = out.submit_direct_ms / out.submit_envoy_ms
        settings = ClusterSettings(
            nodes=3, lease_ttl_s=TTL_S, lease_renew_s=0.4, lease_margin_s=0.5
        )
        with LocalCluster(settings, Path(tmp) / "three") as three:
            forwarded = await _forwarded(three, games, rounds)
            out.failover_s = await _failover(three, failovers)
        out.view_direct_ms = forwarded["view_direct"]
        out.view_forwarded_ms = forwarded["view_forwarded"]
        out.submit_forwarded_ms = forwarded["submit_forwarded"]
        out.forwarded_view_ratio = out.view_direct_ms / out.view_forwarded_ms
        out.forwarded_submit_ratio = forwarded["submit_direct"] / out.submit_forwarded_ms
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cluster_bench")
    parser.add_argument("--games", type=int, default=8, help="games played at once")
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds per path")
    parser.add_argument("--failovers", type=int, default=3)
    parser.add_argument(
        "--append-shapes",
        default="32x40,256x10",
        help="games x appends each, comma separated, for the append throughput",
    )
    parser.add_argument("--in-flight", type=int, default=16, help="SubmitAction calls at once")
    parser.add_argument("--seconds", type=float, default=5.0, help="per SubmitAction figure")
    parser.add_argument(
        "--store-only", action="store_true", help="only the group commit figures (no Envoy)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    shapes = [
        (int(g), int(n)) for g, n in (part.split("x") for part in args.append_shapes.split(","))
    ]
    result = asyncio.run(
        run_async(
            args.games,
            args.rounds,
            args.failovers,
            shapes=shapes,
            in_flight=args.in_flight,
            seconds=args.seconds,
            store_only=args.store_only,
        )
    )
    if args.json:
        print(json.dumps(asdict(result)))
        return 0
    width = max(len(r[0]) for r in result.rows())
    for name, value, note in result.rows():
        print(f"{name:<{width}}  {value:>22}  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
