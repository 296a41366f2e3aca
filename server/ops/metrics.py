"""Prometheus metrics for the Yggdrasil server.

All metrics live on a :class:`prometheus_client.CollectorRegistry` handed to
:class:`Metrics`, so tests can use a fresh registry each; by default Metrics
makes its own registry with the process/platform/GC collectors added.

Importing this module turns off prometheus_client's ``*_created`` series (one per counter,
histogram and summary child, holding its creation time): nothing in ``deploy/`` reads them,
they double the series a scrape stores, and Prometheus itself never uses them. The switch is
process-wide, as prometheus_client offers it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import grpc
from prometheus_client import (
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    disable_created_metrics,
)

from server.ops.interceptors import MethodInfo, ObservingInterceptor
from server.ops.metrics_http import MetricsHttpServer, start_metrics_http_server
from server.ops.version import server_version

if TYPE_CHECKING:
    from server.ops.interceptors import AioContext

__all__ = [
    "MAX_CLIENT_LABELS",
    "RPC_BUCKETS",
    "Metrics",
    "MetricsHttpServer",
    "MetricsInterceptor",
    "new_registry",
    "start_metrics_http_server",
]

disable_created_metrics()  # type: ignore[no-untyped-call]  # (untyped in prometheus_client)

# Label values a client label takes at most (see Metrics.client_label).
MAX_CLIENT_LABELS = 100

# 100 µs .. 5 s
RPC_BUCKETS: tuple[float, ...] = (
    0.0001, 0.00025, 0.0005,
    0.001, 0.0025, 0.005,
    0.01, 0.025, 0.05,
    0.1, 0.25, 0.5,
    1.0, 2.5, 5.0,
)  # fmt: skip
# 50 µs .. 1 s: an append is a write (and maybe an fsync).
STORE_APPEND_BUCKETS: tuple[float, ...] = (
    0.00005, 0.0001, 0.00025, 0.0005,
    0.001, 0.0025, 0.005,
    0.01, 0.025, 0.05,
    0.1, 0.25, 1.0,
)  # fmt: skip
# 1 ms .. 10 s: a snapshot serialises and writes a whole game.
SNAPSHOT_BUCKETS: tuple[float, ...] = (
    0.001, 0.0025, 0.005,
    0.01, 0.025, 0.05,
    0.1, 0.25, 0.5,
    1.0, 2.5, 5.0, 10.0,
)  # fmt: skip


def new_registry(*, process_collectors: bool = True) -> CollectorRegistry:
    """A fresh registry, optionally with process, platform and GC metrics."""
    registry = CollectorRegistry(auto_describe=True)
    if process_collectors:
        for collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
            registry.register(collector)
    return registry


class Metrics:
    """Every metric the server exports, registered on one registry."""

    def __init__(
        self, registry: CollectorRegistry | None = None, namespace: str = "yggdrasil"
    ) -> None:
        self.registry = new_registry() if registry is None else registry
        ns = namespace
        reg = self.registry
        self.build_info = Info(
            "build", "The server's release (label version).", namespace=ns, registry=reg
        )
        self.build_info.info({"version": server_version()})
        self.games_hosted = Gauge(
            "games_hosted", "Games currently held in memory.", namespace=ns, registry=reg
        )
        self.games_created_total = Counter(
            "games_created_total", "Games created.", namespace=ns, registry=reg
        )
        self.games_finished_total = Counter(
            "games_finished_total", "Games that reached their end.", namespace=ns, registry=reg
        )
        self.actions_applied_total = Counter(
            "actions_applied_total",
            "Actions submitted, by kind and outcome.",
            ["kind", "outcome"],
            namespace=ns,
            registry=reg,
        )
        self.rpc_duration_seconds = Histogram(
            "rpc_duration_seconds",
            "Server-side RPC latency (for streams: stream lifetime), by method and status code.",
            ["method", "code"],
            buckets=RPC_BUCKETS,
            namespace=ns,
            registry=reg,
        )
        self.watch_streams_active = Gauge(
            "watch_streams_active", "Open watch streams.", namespace=ns, registry=reg
        )
        self.play_sessions_active = Gauge(
            "play_sessions_active",
            "Open PlaySession streams (one seat played per stream).",
            namespace=ns,
            registry=reg,
        )
        self.decisions_timed_out_total = Counter(
            "decisions_timed_out_total",
            "Pending decisions resolved by timeout.",
            namespace=ns,
            registry=reg,
        )
        self.snapshot_failures_total = Counter(
            "snapshot_failures_total",
            "Snapshots the store refused (recovery then replays a longer log).",
            namespace=ns,
            registry=reg,
        )
        self.max_games = Gauge(
            "max_games",
            "Most games the server hosts at once (its setting).",
            namespace=ns,
            registry=reg,
        )
        self.snapshot_seconds = Histogram(
            "snapshot_seconds",
            "Time to write one game snapshot.",
            buckets=SNAPSHOT_BUCKETS,
            namespace=ns,
            registry=reg,
        )
        self.store_append_seconds = Histogram(
            "store_append_seconds",
            "Time to append one record to a game's log.",
            buckets=STORE_APPEND_BUCKETS,
            namespace=ns,
            registry=reg,
        )
        self.quota_refusals_total = Counter(
            "quota_refusals_total",
            "Calls refused with RESOURCE_EXHAUSTED for going over a client's quota, by client "
            "(the API key's name, 'anonymous', or 'other' past the first "
            f"{MAX_CLIENT_LABELS} names) and limit.",
            ["client", "limit"],
            namespace=ns,
            registry=reg,
        )
        self.games_aborted_total = Counter(
            "games_aborted_total",
            "Games aborted before their end, by cause (open_timeout, idle_timeout: abandoned; "
            "requested: AbortGame).",
            ["cause"],
            namespace=ns,
            registry=reg,
        )
        self._client_labels: set[str] = set()
        self._action_children: dict[tuple[str, str], Counter] = {}
        self._rpc_children: dict[tuple[str, grpc.StatusCode], Histogram] = {}

    def action_applied(self, kind: str, outcome: str) -> None:
        """Count one action (children cached: no label lookup per call)."""
        key = (kind, outcome)
        child = self._action_children.get(key)
        if child is None:
            child = self._action_children.setdefault(
                key, self.actions_applied_total.labels(kind=kind, outcome=outcome)
            )
        child.inc()

    def client_label(self, client: str) -> str:
        """``client`` as a label value: the first MAX_CLIENT_LABELS names, then 'other' (keys
        are named by whoever writes the keys file: the label's cardinality stays bounded)."""
        if client in self._client_labels:
            return client
        if len(self._client_labels) < MAX_CLIENT_LABELS:
            self._client_labels.add(client)
            return client
        return "other"

    def games_aborted(self, cause: str) -> None:
        self.games_aborted_total.labels(cause=cause).inc()

    def quota_refused(self, client: str, limit: str) -> None:
        self.quota_refusals_total.labels(client=self.client_label(client), limit=limit).inc()

    def observe_rpc(self, method: str, code: grpc.StatusCode, seconds: float) -> None:
        """Record one finished RPC (children cached)."""
        key = (method, code)
        child = self._rpc_children.get(key)
        if child is None:
            child = self._rpc_children.setdefault(
                key, self.rpc_duration_seconds.labels(method=method, code=code.name)
            )
        child.observe(seconds)


class MetricsInterceptor(ObservingInterceptor[tuple[MethodInfo, float, bool]]):
    """Records ``rpc_duration_seconds{method, code}`` for every RPC.

    Unary-unary and unary-stream async handlers are observed.  Streams are
    timed over their whole lifetime; those whose short method name is in
    ``watch_methods`` also move ``watch_streams_active`` up and down.
    """

    def __init__(self, metrics: Metrics, watch_methods: Iterable[str] = ()) -> None:
        super().__init__()
        self._metrics = metrics
        self._watch_methods = frozenset(watch_methods)
        self._gauge = metrics.watch_streams_active

    def _begin(
        self, method: MethodInfo, request: Any, context: AioContext
    ) -> tuple[MethodInfo, float, bool]:
        watched = method.streaming and method.short in self._watch_methods
        if watched:
            self._gauge.inc()
        return method, time.perf_counter(), watched

    def _end(
        self, state: tuple[MethodInfo, float, bool], code: grpc.StatusCode, context: AioContext
    ) -> None:
        method, started, watched = state
        self._metrics.observe_rpc(method.short, code, time.perf_counter() - started)
        if watched:
            self._gauge.dec()
