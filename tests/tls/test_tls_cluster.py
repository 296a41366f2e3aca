"""TLS on every hop of a local cluster (issue 27, point 1): clients reach Envoy over TLS (gRPC
and gRPC-Web), Envoy and the nodes reach the nodes over mutual TLS, a node relays a call about
another node's game over it; clients that do not trust the CA, that speak plaintext, or that
reach a node without a cluster certificate are refused; Envoy takes a renewed certificate
without a restart."""

from __future__ import annotations

import asyncio
import os
import shutil
import ssl
import struct
import time
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import grpc.aio
import pytest

from clients.cli import amain
from clients.connection import ClientTls, connection_hint, open_channel, stub_for
from localcluster.certs import Authority
from localcluster.cluster import ClusterSettings, LocalCluster
from localcluster.postgres import ThrowawayPostgres
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs


@pytest.fixture
async def tls_cluster(
    postgres: ThrowawayPostgres, pg_url: str, tmp_path: Path
) -> AsyncIterator[LocalCluster]:
    settings = ClusterSettings(nodes=2, lease_ttl_s=30.0, lease_margin_s=5.0, tls=True)
    cluster = LocalCluster(settings, tmp_path / "cluster", postgres=postgres, database_url=pg_url)
    try:
        await asyncio.to_thread(cluster.start)
        yield cluster
    finally:
        await asyncio.to_thread(cluster.stop)


def _node_tls(cluster: LocalCluster) -> ClientTls:
    """What a node itself presents: a certificate of the cluster CA."""
    assert cluster.pki is not None
    return ClientTls(cluster.pki.cluster_ca, cluster.pki.node_cert, cluster.pki.node_key)


async def _call(address: str, tls: ClientTls | None, call: str, request: object) -> object:
    # One try: a refused connection is what these tests look at (no resending: patience 0).
    async with open_channel(address, tls=tls, patience_s=0) as channel:
        return await getattr(stub_for(channel), call)(request, timeout=10)


def _grpc_web(url: str, ca: Path, method: str, request: bytes) -> tuple[bytes, str]:
    """One unary gRPC-Web call over https, as a browser makes it: (message, grpc-status)."""
    body = b"\x00" + struct.pack(">I", len(request)) + request
    http = urllib.request.Request(
        f"{url}/yggdrasil.v1.GameService/{method}",
        data=body,
        method="POST",
        headers={"content-type": "application/grpc-web+proto", "x-grpc-web": "1"},
    )
    context = ssl.create_default_context(cafile=str(ca))
    with urllib.request.urlopen(http, timeout=10, context=context) as reply:
        payload = reply.read()
        status = reply.headers.get("grpc-status", "")
    message = b""
    while payload:
        flags, length = payload[0], struct.unpack(">I", payload[1:5])[0]
        frame, payload = payload[5 : 5 + length], payload[5 + length :]
        if flags & 0x80:
            for line in frame.decode().split("\r\n"):
                if line.startswith("grpc-status:"):
                    status = line.partition(":")[2].strip()
        else:
            message = frame
    return message, status


async def test_a_game_over_tls_on_every_hop(
    tls_cluster: LocalCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster = tls_cluster
    assert cluster.ca_file is not None and cluster.envoy.url.startswith("https://")
    monkeypatch.setenv("YGGDRASIL_TOKEN_FILE", str(tmp_path / "tokens.json"))
    server = ["--server", cluster.address, "--ca-file", str(cluster.ca_file)]
    assert await amain([*server, "create", "--players", "2", "--seed", "3"]) == 0
    listed = await _call(
        cluster.address, ClientTls(cluster.ca_file), "ListGames", gs.ListGamesRequest()
    )
    (game,) = listed.games  # type: ignore[attr-defined]
    bots = [
        amain([*server, "bot", game.game_id, "--seat", str(s), "--rng-seed", str(s)])
        for s in range(2)
    ]
    assert await asyncio.wait_for(asyncio.gather(*bots), 240) == [0, 0]
    assert await amain([*server, "result", game.game_id]) == 0
    # gRPC-Web over https reaches the same game
    raw, status = await asyncio.to_thread(
        _grpc_web,
        cluster.envoy.url,
        cluster.ca_file,
        "GetResult",
        gs.GetResultRequest(game_id=game.game_id).SerializeToString(),
    )
    assert status == "0"
    assert gs.GetResultResponse.FromString(raw).result.winners


async def test_a_node_relays_to_the_owner_over_mutual_tls(tls_cluster: LocalCluster) -> None:
    node1, node2 = (n.address for n in tls_cluster.nodes)
    mine = _node_tls(tls_cluster)
    created = await _call(
        node1, mine, "CreateGame", gs.CreateGameRequest(options=gp.GameOptions(player_count=2))
    )
    game_id = created.game_id  # type: ignore[attr-defined]
    # node2 does not own it: it relays the call to node1, over the cluster's mutual TLS
    view = await _call(node2, mine, "GetView", gs.GetViewRequest(game_id=game_id))
    assert view.view.game_id == game_id  # type: ignore[attr-defined]


async def test_strangers_are_refused_at_every_hop(tls_cluster: LocalCluster) -> None:
    cluster = tls_cluster
    assert cluster.pki is not None and cluster.ca_file is not None
    listing = gs.ListGamesRequest()

    async def refused(address: str, tls: ClientTls | None) -> str:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _call(address, tls, "ListGames", listing)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        return connection_hint(caught.value, tls is not None)

    # Envoy: a client that does not trust the edge CA, and a plaintext one
    assert "--ca-file" in await refused(cluster.address, ClientTls())
    assert "--ca-file" in await refused(cluster.address, ClientTls(cluster.pki.cluster_ca))
    assert "expect TLS" in await refused(cluster.address, None)
    # a node: plaintext, TLS without a client certificate, one of the edge's clients
    node = cluster.nodes[0].address
    assert "expect TLS" in await refused(node, None)
    assert "client certificate" in await refused(node, ClientTls(cluster.pki.cluster_ca))
    stranger = Authority("stranger").issue("stranger")
    where = cluster.log_dir / "stranger"
    cert, key = stranger.write(where, "stranger")
    await refused(node, ClientTls(cluster.pki.cluster_ca, cert, key))
    # and the cluster's own certificate gets in
    assert await _call(node, _node_tls(cluster), "ListGames", listing) is not None


async def test_envoy_takes_a_renewed_certificate_without_a_restart(
    tls_cluster: LocalCluster,
) -> None:
    cluster = tls_cluster
    assert cluster.pki is not None
    pid = cluster.envoy.process.pid
    renewed = Authority("Renewed edge CA")
    staging = cluster.log_dir / "renewal"
    cert, key = renewed.issue("localhost", client=False).write(staging, "edge")
    new_ca = renewed.write_ca(staging / "ca.pem")
    # as a renewal tool does: each file written beside and renamed into place
    for source, target in ((key, cluster.pki.edge_key), (cert, cluster.pki.edge_cert)):
        shutil.copyfile(source, target.with_suffix(".new"))
        os.replace(target.with_suffix(".new"), target)
    deadline = time.monotonic() + 20
    while True:
        try:
            await _call(cluster.address, ClientTls(new_ca), "ListGames", gs.ListGamesRequest())
            break
        except grpc.aio.AioRpcError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)
    assert cluster.envoy.process.pid == pid and cluster.envoy.process.poll() is None
    with pytest.raises(grpc.aio.AioRpcError):
        await _call(cluster.address, ClientTls(cluster.ca_file), "ListGames", gs.ListGamesRequest())
