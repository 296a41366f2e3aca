"""In-process cluster nodes for the ownership and forwarding tests: several servers in one
event loop on one PostgreSQL database.

Their leases are long (30 s, renewed every second), so that a loaded machine (other jobs on the
same cores) never costs a node its lease in the middle of a test: with 1 s leases nodes lost
theirs within a second of starting and calls failed UNAVAILABLE. A test that needs a lease to
run out ends it in the database (``end_lease``) instead of waiting against the clock; one that
needs a node to stop serving on its own uses ``TOLERANT_LEASE``."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio
import psycopg

from server.cluster.node_auth import ClusterSecrets
from server.cluster.ownership import Ownership
from server.config import ServerConfig
from server.main import RunningServer, start_server
from server.ops.metrics import Metrics, new_registry
from server.stores.postgres import PostgresStore
from server.stores.postgres_batch import BatchSettings
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

# The test cluster's shared secret: nodes sign the calls they relay to one another with it
# (server.cluster.node_auth).
CLUSTER_SECRET = "test-cluster-secret-0123456789abcdefghijklmnop"
TTL_S = 30.0
RENEW_S = 1.0
MARGIN_S = 2.0
# A short lease that still takes a 2 s stall of a loaded machine to lose (renewed every 0.2 s,
# served until 1 s before its end): for a test that waits for a lease period to pass.
TOLERANT_LEASE = {"lease_ttl_s": 3.0, "lease_renew_s": 0.2, "lease_margin_s": 1.0}


@dataclass
class Node:
    running: RunningServer
    channel: grpc.aio.Channel
    stub: Any

    @property
    def ownership(self) -> Ownership:
        assert self.running.ownership is not None
        return self.running.ownership

    @property
    def store(self) -> PostgresStore:
        assert isinstance(self.running.store, PostgresStore)
        return self.running.store

    def value(self, name: str, **labels: str) -> float:
        found = self.running.metrics.registry.get_sample_value(name, labels or None)
        return 0.0 if found is None else found

    async def stop(self) -> None:
        await self.running.shutdown(grace=0.2)
        await self.channel.close()


async def start_node(url: str, batch: BatchSettings | None = None, **config: Any) -> Node:
    settings = ServerConfig(
        **{  # type: ignore[arg-type]
            "port": 0,
            "metrics_port": -1,
            "store": "postgres",
            "lease_ttl_s": TTL_S,
            "lease_renew_s": RENEW_S,
            "lease_margin_s": MARGIN_S,
            "grace_period_s": 0.2,
            "cluster_secret": CLUSTER_SECRET,
            **config,
        }
    )
    store = PostgresStore(url, min_connections=1, max_connections=4, batch=batch)
    await store.open()
    try:
        running = await start_server(
            settings,
            metrics=Metrics(new_registry(process_collectors=False)),
            store=store,
            owns_store=True,
        )
    except BaseException:
        await store.close()
        raise
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    return Node(running, channel, game_service_pb2_grpc.GameServiceStub(channel))


def node_signature(member: str, method: str) -> tuple[str, str]:
    """The metadata that makes a call of ``method`` one from node ``member`` (signed with the
    test cluster's secret: server.cluster.node_auth)."""
    return ClusterSecrets.from_text(CLUSTER_SECRET).sign(member, method)


async def new_game(node: Node, players: int = 2, seed: int = 3, limit_ms: int = 0) -> str:
    reply = await node.stub.CreateGame(
        gs.CreateGameRequest(
            options=gp.GameOptions(player_count=players, seed=seed, decision_time_limit_ms=limit_ms)
        )
    )
    return str(reply.game_id)


async def join_all(node: Node, game_id: str, players: int = 2) -> list[str]:
    tokens = []
    for seat in range(players):
        reply = await node.stub.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=seat))
        tokens.append(str(reply.seat_token))
    return tokens


async def decision(node: Node, game_id: str, tokens: list[str], key: str) -> gs.SubmitActionRequest:
    """The first legal decision of the first awaited seat, as a request."""
    view = (
        await node.stub.GetView(gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()))
    ).view
    seat = next(s for s in view.awaiting_seats if s not in view.committed_seats)
    mine = (
        await node.stub.GetView(gs.GetViewRequest(game_id=game_id, seat_token=tokens[seat]))
    ).view
    return gs.SubmitActionRequest(
        game_id=game_id,
        seat_token=tokens[seat],
        legal_index=0,
        state_version=mine.state_version,
        idempotency_key=key,
    )


async def pause_renewals(node: Node) -> None:
    """As if the process were stopped (SIGSTOP) while it believes its lease is good: no more
    renewals, and its own clock says it may go on serving.

    A renewal already sent may still extend the lease at the database (as a stopped process's
    would): this returns once it has ended, so that nothing extends the lease afterwards."""
    ownership = node.ownership
    renewer = ownership._renewer
    assert renewer is not None
    ownership._valid_until = float("inf")
    renewer.cancel()
    await asyncio.gather(renewer, return_exceptions=True)


async def end_lease(node: Node) -> None:
    """The lease of a node whose renewals are paused runs out now, by the database's clock
    (as if its TTL had passed; a test does not wait the TTL out against a loaded machine)."""
    async with await psycopg.AsyncConnection.connect(node.store.url, autocommit=True) as conn:
        await conn.execute(
            "UPDATE nodes SET lease_until = now() WHERE member = %s", (node.ownership.member,)
        )


async def database_says(url: str, sql: str, args: tuple[object, ...], what: str) -> None:
    """Wait until the one-value query ``sql`` answers true (by the database's clock, when it
    reads ``now()``). The 60 s guard only stops a hang; ``what`` says what never happened."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + 60.0
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        while True:
            cur = await conn.execute(sql, args)
            row = await cur.fetchone()
            if row is not None and row[0]:
                return
            assert loop.time() < give_up, f"after 60 s: {what}"
            await asyncio.sleep(0.05)
