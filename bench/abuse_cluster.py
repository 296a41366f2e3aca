"""``make abuse``'s cluster section (issue 26): a local cluster (PostgreSQL, 3 nodes, Envoy in
front: ``localcluster``) attacked the ways a hostile client found, while a well-behaved client
with an API key plays through Envoy:

* **quota evasion through several nodes**: one anonymous caller creates games and opens
  streams on every node, straight to each node's port and through Envoy; its quotas (here 5
  open games, 4 streams) hold for the whole cluster (for each of the two addresses a caller on
  this machine is seen from: see ``quota_evasion``);
* **forged x-forwarded-for**: the same caller names a fresh client address in every call, to
  a node's port and through Envoy; no address buys it a fresh quota;
* **forged node metadata**: calls straight to a node that pose as a node (unsigned
  ``x-yggdrasil-forwarded``, a forged ``x-yggdrasil-node-auth``) are UNAUTHENTICATED; through
  Envoy they are dropped at the edge; and no answer to a client names an internal address
  (``x-yggdrasil-owner``).

Each row says what the flood got and what the well-behaved client saw; the run fails if a
quota gave way, a forgery was believed, an internal address reached a client, or the
well-behaved client got an error.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import tempfile
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import grpc.aio

from bench.abuse import Probe, Row
from bench.server_bench import GamePlan, plan_games
from clients.connection import key_interceptors
from localcluster.cluster import ClusterSettings, LocalCluster
from yggdrasil.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

__all__ = ["run_cluster"]

gs = game_service_pb2
OPEN_GAMES = 5
STREAMS = 4
OWNER = "x-yggdrasil-owner"


def _stub(address: str, key: str | None = None) -> tuple[grpc.aio.Channel, Any]:
    channel = grpc.aio.insecure_channel(
        address,
        options=[("grpc.use_local_subchannel_pool", 1)],
        interceptors=key_interceptors(key),
    )
    return channel, game_service_pb2_grpc.GameServiceStub(channel)


class Player:
    """The well-behaved client, through Envoy with its key: a round is a ListGames, a
    spectator GetView of its game and one decision of its own game."""

    def __init__(self, address: str, key: str, plan: GamePlan) -> None:
        self.channel, self.stub = _stub(address, key)
        self.plan = plan
        self.game_id = ""
        self.tokens: list[str] = []
        self.step = 0

    async def new_game(self) -> None:
        options = game_pb2.GameOptions(player_count=4, seed=self.plan.seed)
        created = await self.stub.CreateGame(gs.CreateGameRequest(options=options), timeout=30)
        self.game_id = created.game_id
        self.tokens = []
        for seat in range(4):
            join = gs.JoinGameRequest(game_id=self.game_id, seat=seat)
            self.tokens.append((await self.stub.JoinGame(join, timeout=30)).seat_token)
        self.step = 0

    async def round(self, probe: Probe) -> None:
        metadata = (("x-game-id", self.game_id),)
        calls: list[Callable[[], Awaitable[Any]]] = [
            lambda: self.stub.ListGames(gs.ListGamesRequest(page_size=10), timeout=30),
            lambda: self.stub.GetView(
                gs.GetViewRequest(game_id=self.game_id, spectator=gs.Spectator()),
                timeout=30,
                metadata=metadata,
            ),
            self._decide,
        ]
        for call in calls:
            started = asyncio.get_running_loop().time()
            try:
                await call()
            except grpc.aio.AioRpcError as error:
                probe.errors[error.code().name] += 1
                continue
            probe.latencies.append(asyncio.get_running_loop().time() - started)

    async def _decide(self) -> None:
        if self.step >= len(self.plan.steps):
            await self.new_game()
        seat, index, version = self.plan.steps[self.step]
        await self.stub.SubmitAction(
            gs.SubmitActionRequest(
                game_id=self.game_id,
                seat_token=self.tokens[seat],
                legal_index=index,
                state_version=version,
                idempotency_key=f"{self.game_id}-{self.step}",
            ),
            timeout=30,
            metadata=(("x-game-id", self.game_id),),
        )
        self.step += 1

    async def during(self, flood: Awaitable[Any]) -> tuple[Probe, Any]:
        probe = Probe()
        task = asyncio.ensure_future(flood)
        while True:
            await self.round(probe)
            if task.done():
                break
            await asyncio.sleep(0.02)
        return probe, await task


async def _code(call: Awaitable[Any]) -> tuple[str, Any]:
    try:
        return "OK", await call
    except grpc.aio.AioRpcError as error:
        return error.code().name, error


def _trailers_name_an_owner(outcome: Any) -> bool:
    trailers = outcome.trailing_metadata() if isinstance(outcome, grpc.aio.AioRpcError) else ()
    return any(key == OWNER for key, _ in trailers or ())


async def quota_evasion(cluster: LocalCluster, player: Player, attempts: int) -> Row:
    """Creates and streams of one anonymous caller on every node, direct and through Envoy.

    On this machine the caller is two addresses to the cluster, whatever the nodes do: straight
    to a node it is 127.0.0.1, and through Envoy it is the machine's own address (Envoy names a
    loopback caller by its host's address: ``use_remote_address``). In a deployment clients
    reach Envoy only. So each way in is held to the quota on its own, across the nodes: before
    the quotas were counted for the cluster, each node let each address in to its limit."""

    async def flood() -> tuple[Counter[str], Counter[str], Counter[str]]:
        outcome: Counter[str] = Counter()
        created: Counter[str] = Counter()  # by way in
        held: Counter[str] = Counter()
        targets = [cluster.address, *(n.address for n in cluster.nodes if n.running)]
        ways = ["envoy" if t == cluster.address else "node" for t in targets]
        opened: list[str] = []
        channels = [_stub(t) for t in targets]
        for n in range(attempts):
            _, stub = channels[n % len(channels)]
            code, reply = await _code(
                stub.CreateGame(
                    gs.CreateGameRequest(options=game_pb2.GameOptions(player_count=2)),
                    timeout=30,
                )
            )
            outcome[f"create {code}"] += 1
            if code == "OK":
                created[ways[n % len(ways)]] += 1
                opened.append(reply.game_id)
        # Streams: every game watched through every way in, while the others stay open.
        watches = []
        for game_id in opened:
            for way, (_, stub) in zip(ways, channels, strict=True):
                watch = stub.WatchGame(
                    gs.WatchGameRequest(game_id=game_id, spectator=gs.Spectator()),
                    metadata=(("x-game-id", game_id),),
                )
                code, _ = await _code(asyncio.wait_for(watch.read(), 30))
                outcome[f"stream {code}"] += 1
                if code == "OK":
                    held[way] += 1
                    watches.append(watch)
                else:
                    watch.cancel()
        for watch in watches:
            watch.cancel()
        for channel, _ in channels:
            await channel.close()
        return outcome, created, held

    probe, (outcome, created, held) = await player.during(flood())
    did = ", ".join(f"{n} {k}" for k, n in sorted(outcome.items()))
    did += (
        f"; through Envoy {created['envoy']} games and {held['envoy']} streams, straight to "
        f"the 3 nodes {created['node']} games and {held['node']} streams (quota: "
        f"{OPEN_GAMES} open games, {STREAMS} streams)"
    )
    ok = (
        all(created[way] <= OPEN_GAMES and held[way] <= STREAMS for way in ("envoy", "node"))
        and created["envoy"] > 0
        and created["node"] > 0
        and not probe.errors
    )
    return Row("cluster: quota evasion through several nodes", did, probe.summary(None), ok)


async def forged_forwarded_for(cluster: LocalCluster, player: Player, attempts: int) -> Row:
    """Creates naming a fresh address each, to a node's port and through Envoy (the caller's
    quota is used up already by the previous flood: none may pass)."""

    async def flood() -> Counter[str]:
        outcome: Counter[str] = Counter()
        targets = [cluster.address, *(n.address for n in cluster.nodes if n.running)]
        channels = [_stub(t) for t in targets]
        for n in range(attempts):
            _, stub = channels[n % len(channels)]
            forged = (("x-forwarded-for", f"198.51.{n // 250}.{n % 250 + 1}"),)
            code, _ = await _code(
                stub.CreateGame(
                    gs.CreateGameRequest(options=game_pb2.GameOptions(player_count=2)),
                    metadata=forged,
                    timeout=30,
                )
            )
            outcome[code] += 1
        for channel, _ in channels:
            await channel.close()
        return outcome

    probe, outcome = await player.during(flood())
    did = ", ".join(f"{n} {k}" for k, n in sorted(outcome.items()))
    ok = outcome["OK"] == 0 and not probe.errors
    return Row("cluster: forged x-forwarded-for", did, probe.summary(None), ok)


async def forged_node_metadata(cluster: LocalCluster, player: Player, attempts: int) -> Row:
    """Calls that pose as a node, straight to the nodes and through Envoy; every answer to a
    client is searched for an internal address."""
    game_id = player.game_id
    forgeries = (
        (("x-yggdrasil-forwarded", "node9/feedface"),),
        (("x-yggdrasil-node-auth", f"v1 1700000000 node9/feedface {'0' * 64}"),),
        (("x-yggdrasil-node-auth", f"v1 9999999999 node9/feedface {secrets.token_hex(32)}"),),
    )

    async def flood() -> tuple[Counter[str], int]:
        outcome: Counter[str] = Counter()
        named = 0
        nodes = [n.address for n in cluster.nodes if n.running]
        channels = {t: _stub(t) for t in (cluster.address, *nodes)}
        for n in range(attempts):
            forged = forgeries[n % len(forgeries)]
            for target, (_, stub) in channels.items():
                where = "envoy" if target == cluster.address else "node"
                call = stub.GetView(
                    gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()),
                    metadata=(*forged, ("x-game-id", f"{game_id}-{n}")),
                    timeout=30,
                )
                code, outcome_value = await _code(call)
                outcome[f"{where} {code}"] += 1
                trailers = (await call.trailing_metadata() if code == "OK" else ()) or ()
                if any(k == OWNER for k, _ in trailers) or _trailers_name_an_owner(outcome_value):
                    named += 1
        for channel, _ in channels.values():
            await channel.close()
        return outcome, named

    probe, (outcome, named) = await player.during(flood())
    did = ", ".join(f"{n} {k}" for k, n in sorted(outcome.items()))
    did += f"; answers naming an internal address: {named}"
    believed = sum(
        n for k, n in outcome.items() if k.startswith("node") and k != "node UNAUTHENTICATED"
    )
    ok = believed == 0 and outcome["envoy OK"] > 0 and named == 0 and not probe.errors
    return Row("cluster: forged node metadata", did, probe.summary(None), ok)


async def run_cluster(args: Any) -> list[Row]:
    """The cluster section's rows (a throwaway PostgreSQL, 3 nodes and Envoy of its own)."""
    with tempfile.TemporaryDirectory(prefix="ygg-abuse-cluster-") as tmp:
        key = "ygg_" + secrets.token_urlsafe(24)
        keys = Path(tmp) / "keys.toml"
        keys.write_text(
            f'[[keys]]\nname = "well-behaved"\nrole = "tournament"\n'
            f'sha256 = "{hashlib.sha256(key.encode()).hexdigest()}"\n'
            'decision_rate = "unlimited"\n',
            encoding="utf-8",
        )
        settings = ClusterSettings(
            nodes=3,
            lease_ttl_s=10.0,
            lease_margin_s=2.0,
            otlp_endpoint="",
            extra_args=(
                "--api-keys", str(keys),
                "--anonymous-quota",
                f"open_games={OPEN_GAMES},streams={STREAMS},create_burst=1000",
            ),
        )  # fmt: skip
        cluster = await asyncio.to_thread(LocalCluster(settings, Path(tmp) / "logs").start)
        try:
            player = Player(cluster.address, key, plan_games(1)[0])
            await player.new_game()
            rows = [
                await quota_evasion(cluster, player, args.cluster_creates),
                await forged_forwarded_for(cluster, player, args.cluster_creates),
                await forged_node_metadata(cluster, player, args.cluster_forgeries),
            ]
            await player.channel.close()
        finally:
            await asyncio.to_thread(cluster.stop)
    return rows
