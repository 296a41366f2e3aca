"""Issue 26, points 5 and 8, at the edge of a real local cluster (``make cluster``'s: node
processes on PostgreSQL, Envoy in front): what a client can and cannot claim.

* The nodes believe ``x-forwarded-for`` from Envoy only: a client that reaches a node's port
  directly with fresh addresses in the header gets no fresh anonymous quota (8 of 8 creates
  passed a quota of 3), and through Envoy the address Envoy saw is the one counted.
* A client cannot pose as a node: node metadata without the cluster's signature is refused at
  a node, and Envoy drops it at the edge.
* No internal address reaches a client: the owner trailer (``x-yggdrasil-owner:
  node1/...@127.0.0.1:port``) is sent to nodes only, and Envoy drops it, on errors too.
* An anonymous creator's address is no proof that it created a game (every client behind the
  same address would be its creator): AbortGame wants the creator token CreateGame returned.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest

from localcluster.cluster import ClusterSettings, LocalCluster
from localcluster.postgres import ThrowawayPostgres
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

QUOTA = 3
OWNER = "x-yggdrasil-owner"


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory) -> Any:
    postgres = ThrowawayPostgres(base_dir=None).start()
    settings = ClusterSettings(
        nodes=2,
        lease_ttl_s=30.0,
        lease_margin_s=5.0,
        extra_args=("--anonymous-quota", f"open_games={QUOTA},create_burst=100"),
    )
    cluster = LocalCluster(settings, tmp_path_factory.mktemp("edge"), postgres=postgres)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        postgres.stop()


@pytest.fixture
async def stubs(edge: LocalCluster) -> AsyncIterator[tuple[Any, Any, Any]]:
    """(through Envoy, straight to node1, straight to node2)."""
    channels = [
        grpc.aio.insecure_channel(a) for a in (edge.address, *(n.address for n in edge.nodes))
    ]
    try:
        yield tuple(game_service_pb2_grpc.GameServiceStub(c) for c in channels)  # type: ignore[misc]
    finally:
        for channel in channels:
            await channel.close()


def _create(players: int = 2) -> gs.CreateGameRequest:
    return gs.CreateGameRequest(options=gp.GameOptions(player_count=players))


async def _creates(stub: Any, forged: str) -> list[str]:
    """Eight CreateGame calls, each naming a fresh client address in x-forwarded-for; the
    codes they got."""
    codes = []
    for n in range(8):
        try:
            await stub.CreateGame(_create(), metadata=(("x-forwarded-for", f"{forged}.{n + 1}"),))
            codes.append("OK")
        except grpc.aio.AioRpcError as error:
            codes.append(error.code().name)
    return codes


async def test_a_client_cannot_pose_as_a_node(stubs: tuple[Any, Any, Any]) -> None:
    envoy, node1, node2 = stubs
    forged = (
        (("x-yggdrasil-forwarded", "node9/feedface"),),
        (("x-yggdrasil-node-auth", "v1 1700000000 node9/feedface " + "0" * 64),),
    )
    for metadata in forged:
        for stub in (node1, node2):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.GetCatalog(gs.GetCatalogRequest(), metadata=metadata)
            assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        # Envoy drops node metadata from clients: the call is an ordinary one.
        await envoy.GetCatalog(gs.GetCatalogRequest(), metadata=metadata)


async def test_no_internal_address_reaches_a_client(
    edge: LocalCluster, stubs: tuple[Any, Any, Any]
) -> None:
    envoy, node1, node2 = stubs
    # A game on node1; calls about it sent straight to node2 are relayed to node1.
    game_id = (await node1.CreateGame(_create())).game_id
    ok = node2.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=0))
    await ok
    refused = node2.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=0))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await refused
    assert caught.value.code() == grpc.StatusCode.ALREADY_EXISTS
    for trailers in (await ok.trailing_metadata(), caught.value.trailing_metadata()):
        assert OWNER not in dict(trailers or ())
    # Through Envoy, whichever node it picks, with the header Envoy hashes and without.
    for metadata in ((("x-game-id", game_id),), (("x-game-id", f"{game_id}-elsewhere"),), ()):
        call = envoy.GetView(
            gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()), metadata=metadata
        )
        await call
        assert OWNER not in dict(await call.trailing_metadata())
        bad = envoy.JoinGame(gs.JoinGameRequest(game_id=game_id, seat=0), metadata=metadata)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await bad
        assert OWNER not in dict(caught.value.trailing_metadata() or ())
        assert "127.0.0.1:" not in (caught.value.details() or "")


async def test_a_forged_x_forwarded_for_gets_no_fresh_quota(
    edge: LocalCluster, stubs: tuple[Any, Any, Any]
) -> None:
    envoy, node1, _ = stubs
    # (Every client here is 127.0.0.1: the games earlier tests left open count already.)
    opened = len((await envoy.ListGames(gs.ListGamesRequest(status=gp.GAME_STATUS_OPEN))).games)
    left = QUOTA - opened
    assert left > 0
    direct = await _creates(node1, "198.51.100")
    assert direct.count("OK") == left, direct  # straight to a node: the header is ignored
    assert set(direct[left:]) == {"RESOURCE_EXHAUSTED"}
    # Through Envoy the caller is the address Envoy saw (for a client on loopback, the host's
    # own address), whatever the client wrote before it: one quota for all eight.
    via = await _creates(envoy, "203.0.113")
    assert via.count("OK") == QUOTA and set(via[QUOTA:]) == {"RESOURCE_EXHAUSTED"}, via
    listed = (await envoy.ListGames(gs.ListGamesRequest(status=gp.GAME_STATUS_OPEN))).games
    assert len(listed) == 2 * QUOTA


async def test_an_anonymous_creator_aborts_with_its_creator_token_not_its_address(
    tmp_path: Path,
) -> None:
    """One server behind nobody: two anonymous clients share an address; the one that created
    the game proves it with the token CreateGame gave it, the other cannot abort it."""
    from server.config import ServerConfig
    from server.main import start_server
    from server.ops.metrics import Metrics, new_registry

    running = await start_server(
        ServerConfig(port=0, metrics_port=-1, anonymous_quota="unlimited"),
        metrics=Metrics(new_registry(process_collectors=False)),
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            created = await stub.CreateGame(_create())
            assert len(created.creator_token) >= 32
            with pytest.raises(grpc.aio.AioRpcError) as caught:  # same address, no token
                await stub.AbortGame(gs.AbortGameRequest(game_id=created.game_id))
            assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.AbortGame(
                    gs.AbortGameRequest(game_id=created.game_id, creator_token="x" * 43)
                )
            assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
            reply = await stub.AbortGame(
                gs.AbortGameRequest(game_id=created.game_id, creator_token=created.creator_token)
            )
            assert reply.game.status == gp.GAME_STATUS_ABORTED
    finally:
        await running.shutdown(0)
