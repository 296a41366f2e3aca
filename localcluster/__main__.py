"""``make cluster`` (``python -m localcluster``): a local cluster until Ctrl-C.

Starts a throwaway PostgreSQL, three nodes on it and Envoy in front, prints the address to give
clients (``--server`` / ``$YGGDRASIL_SERVER``), and removes everything on Ctrl-C or SIGTERM.
With ``OTEL_EXPORTER_OTLP_ENDPOINT`` set, Envoy and the nodes export their spans there
(OTLP/gRPC; docs/cluster.md, "Tracing").
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from localcluster.cluster import ClusterSettings, LocalCluster


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m localcluster",
        description="A local Yggdrasil cluster: PostgreSQL, nodes, Envoy (until Ctrl-C).",
    )
    parser.add_argument("--nodes", type=int, default=3, help="nodes to start (default 3)")
    parser.add_argument(
        "--port", type=int, default=0, help="Envoy's listener port (default: a free one)"
    )
    parser.add_argument("--lease-ttl-s", type=float, default=5.0)
    parser.add_argument("--log-dir", type=Path, default=None, help="node and Envoy logs")
    parser.add_argument("--metrics", action="store_true", help="each node serves /metrics")
    parser.add_argument(
        "--tls",
        action="store_true",
        help="TLS on every hop: clients to Envoy (check it with the CA printed), Envoy and "
        "the nodes to the nodes (mutual TLS); throwaway certificates in the log directory",
    )
    args = parser.parse_args(argv)
    log_dir = args.log_dir or Path(tempfile.mkdtemp(prefix="ygg-cluster-"))
    settings = ClusterSettings(
        nodes=args.nodes,
        envoy_port=args.port,
        lease_ttl_s=args.lease_ttl_s,
        metrics=args.metrics,
        log_level="INFO",
        tls=args.tls,
    )
    if settings.otlp_endpoint:
        from scripts.envoy_proxy import EnvoyError, collector_address

        try:
            collector_address(settings.otlp_endpoint)
        except EnvoyError as e:
            print(f"cluster: {e}", file=sys.stderr)
            return 2
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    with LocalCluster(settings, log_dir) as cluster:
        assert cluster.postgres is not None
        print(f"cluster: PostgreSQL {cluster.database_url}", flush=True)
        for node in cluster.nodes:
            metrics = (
                f", metrics http://127.0.0.1:{node.metrics_port}/metrics"
                if node.metrics_port > 0
                else ""
            )
            print(f"cluster: node{node.index} on {node.address}{metrics}", flush=True)
        print(f"cluster: logs in {log_dir}", flush=True)
        print(
            f"cluster: the nodes sign their calls to one another with {log_dir}/cluster-secret "
            "(edit it to rotate: they re-read it); they trust x-forwarded-for from Envoy "
            "(127.0.0.2) only",
            flush=True,
        )
        if settings.otlp_endpoint:
            print(
                f"cluster: Envoy and the nodes export spans to {settings.otlp_endpoint}", flush=True
            )
        else:
            print("cluster: tracing off (OTEL_EXPORTER_OTLP_ENDPOINT turns it on)", flush=True)
        if cluster.ca_file is not None:
            print(
                f"cluster: TLS on every hop; clients: --tls --ca-file {cluster.ca_file} "
                f"(export YGGDRASIL_CA_FILE={cluster.ca_file})",
                flush=True,
            )
        print(
            f"cluster: ready. Give clients --server {cluster.address} "
            f"(export YGGDRASIL_SERVER={cluster.address}); Ctrl-C stops everything",
            flush=True,
        )
        stop.wait()
        print("cluster: stopping", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
