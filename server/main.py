"""``python -m server``: build the configuration, serve, shut down gracefully.

Start-up: the game store is opened (``--store sqlite``, the default: ``<data-dir>/games.sqlite3``;
``--store memory`` for tests and benchmarks) and every unfinished game in it is restored
(``server.games.recovery``) before the server accepts calls: from the store's index, each game
rebuilt from its log on first use (``--restore lazy``, the default), or every game rebuilt
first (``--restore eager``). A store that cannot be read at all
stops the start with a message naming the file and exit status 3; single damaged games are
logged at ERROR and kept out of service while the others are served.

Shutdown on SIGTERM/SIGINT: health turns NOT_SERVING, new games are refused, decision clocks
stop and watch streams end, then ``server.stop(grace)`` stops accepting RPCs and gives the
ones in flight (decisions being applied) ``grace_period_s`` to finish; queued store writes
(snapshots) are committed before the store closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import resource
import signal
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

import grpc
import grpc.aio
import structlog
from grpc_health.v1 import health_pb2

from protocol.registry import all_wires
from server.api.auth import AuthInterceptor
from server.api.connections import ConnectionCollector, connection_ceiling, raise_file_limit
from server.api.fanout import FanoutGate
from server.api.faults import FaultBarrierInterceptor
from server.api.identity import KeyFileError, KeyRing
from server.api.malformed import MalformedRequestInterceptor
from server.api.quotas import QuotaBook
from server.api.service import DiagnosticsService, GameService
from server.api.streams import StreamBook
from server.cluster.forwarding import ForwardingInterceptor
from server.cluster.node_auth import ClusterSecretError, ClusterSecrets, NodeAuthInterceptor
from server.cluster.ownership import ClusterMetrics, LeaseSettings, Ownership
from server.cluster.shared_quotas import StreamLeases
from server.config import ServerConfig
from server.games.abandon import Abandonment, AbandonPolicy
from server.games.decision_clock import LOOP_CLOCK, DecisionClock
from server.games.event_log import DEFAULT_EVENT_CAP
from server.games.game import Game
from server.games.record import Status
from server.games.recovery import RestoreReport, load_finished, restore_games, restore_lazily
from server.games.registry import GameRegistry, creator_of
from server.ops import tracing
from server.ops.health import HealthControl, add_health_and_reflection, set_not_serving
from server.ops.logs import AccessLogInterceptor, configure_logging
from server.ops.metrics import (
    Metrics,
    MetricsHttpServer,
    MetricsInterceptor,
    start_metrics_http_server,
)
from server.ops.tls import ServerTls, TlsError
from server.stores.contract import GameStore, StoreError
from server.stores.memory import MemoryStore
from server.stores.postgres import PostgresStore
from server.stores.postgres_batch import BatchSettings
from server.stores.sqlite import SqliteStore
from yggdrasil.v1 import diagnostics_service_pb2_grpc, game_service_pb2_grpc

__all__ = [
    "EXIT_CONFIG_ERROR",
    "EXIT_LISTEN_ERROR",
    "EXIT_STORE_ERROR",
    "ListenError",
    "RunningServer",
    "main",
    "open_store",
    "serve",
    "start_server",
]

EXIT_STORE_ERROR = 3
EXIT_LISTEN_ERROR = 4
EXIT_CONFIG_ERROR = 5
# Seconds between checks of the keys file for changes.
KEYS_RELOAD_S = 2.0


class ListenError(OSError):
    """The gRPC port cannot be bound (typically: another process listens on it)."""


SERVICE_NAMES = ("yggdrasil.v1.GameService", "yggdrasil.v1.DiagnosticsService")


@dataclass
class RunningServer:
    """A started server and everything that must be stopped with it."""

    config: ServerConfig
    server: grpc.aio.Server
    port: int
    health: HealthControl
    games: GameRegistry
    metrics: Metrics
    metrics_http: MetricsHttpServer | None
    store: GameStore | None = None
    restore: RestoreReport | None = None  # what the start-up restore did (durable stores)
    owns_store: bool = False  # close the store on shutdown
    keys: KeyRing | None = None
    quotas: QuotaBook | None = None
    abandonment: Abandonment | None = None
    streams: StreamBook | None = None
    fanout: FanoutGate | None = None
    background: list[asyncio.Task[None]] = field(default_factory=list)
    ownership: Ownership | None = None  # a cluster node's lease and games (PostgreSQL store)
    forwarding: ForwardingInterceptor | None = None
    cluster_secrets: ClusterSecrets | None = None  # signs and checks node-to-node calls

    def reload_keys(self) -> bool:
        """Read the keys file and the cluster secret file again (SIGHUP, or when one
        changed); False if one cannot be used (what was read before stays, and the problem
        is logged)."""
        logger = structlog.get_logger("yggdrasil.server")
        ok = True
        if self.keys is not None and self.keys.path is not None:
            try:
                self.keys.load()
                logger.info("api_keys_loaded", keys=self.keys.names())
            except KeyFileError as exc:
                logger.error("api_keys_not_reloaded", error=str(exc))
                ok = False
        if self.cluster_secrets is not None and self.cluster_secrets.path is not None:
            try:
                self.cluster_secrets.load()
                logger.info("cluster_secrets_loaded")
            except ClusterSecretError as exc:
                logger.error("cluster_secrets_not_reloaded", error=str(exc))
                ok = False
        return ok and (self.keys is not None or self.cluster_secrets is not None)

    async def _watch_keys(self) -> None:
        while True:
            await asyncio.sleep(KEYS_RELOAD_S)
            keys, secrets = self.keys, self.cluster_secrets
            if (keys is not None and keys.changed()) or (secrets is not None and secrets.changed()):
                self.reload_keys()

    async def shutdown(self, grace: float | None = None) -> None:
        """Graceful stop (idempotent enough to be called from a finally)."""
        for task in self.background:
            task.cancel()
        self.background.clear()
        if self.abandonment is not None:
            self.abandonment.stop()
        await set_not_serving(self.health)
        self.games.close()  # no new games, clocks stopped, watch streams end
        grace_s = self.config.grace_period_s if grace is None else grace
        if self.streams is not None:
            # Let the streams say UNAVAILABLE and where to resume before the server cancels
            # whatever is still open (they only need the event loop for a moment).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.streams.ended(), timeout=max(grace_s, 1.0))
        await self.server.stop(grace_s)  # in-flight RPCs get the grace period
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.games.idle(), timeout=max(grace_s, 0.1))
        if self.ownership is not None:
            await self.ownership.stop()  # release the games: no takeover waits for the TTL
            self.ownership = None
        if self.forwarding is not None:
            await self.forwarding.close()
            self.forwarding = None
        if self.metrics_http is not None:
            self.metrics_http.close()
            self.metrics_http = None
        if self.owns_store and isinstance(self.store, SqliteStore):
            await asyncio.to_thread(self.store.close)  # commits what is queued
            self.owns_store = False
        if self.owns_store and isinstance(self.store, PostgresStore):
            await self.store.close()
            self.owns_store = False


async def report_serving(health: HealthControl, serving: bool) -> None:
    """Health of every service, as a cluster node's lease allows (see server.cluster.ownership)."""
    status = (
        health_pb2.HealthCheckResponse.SERVING
        if serving
        else (health_pb2.HealthCheckResponse.NOT_SERVING)
    )
    for name in ("", *SERVICE_NAMES):
        await health.set(name, status)


def open_store(config: ServerConfig) -> GameStore:
    """The store ``config`` asks for, opened. StoreError if the SQLite file is unusable.
    (The PostgreSQL store opens asynchronously: :func:`open_postgres`.)"""
    if config.store == "memory":
        return MemoryStore()
    store = SqliteStore(config.store_path, fsync=config.fsync)
    store.open()
    return store


async def open_postgres(config: ServerConfig) -> PostgresStore:
    """The cluster's store, opened and migrated (StoreError if it cannot be)."""
    store = PostgresStore(
        config.database_url or "",
        max_connections=config.pool_size,
        batch=BatchSettings(
            max_batch=config.store_batch_max,
            delay_s=config.store_batch_delay_ms / 1000.0,
            in_flight=config.store_batch_in_flight,
        ),
    )
    await store.open()
    return store


async def start_server(
    config: ServerConfig,
    *,
    metrics: Metrics | None = None,
    store: GameStore | None = None,
    event_cap: int | None = None,
    owns_store: bool = False,
    clock: DecisionClock = LOOP_CLOCK,
) -> RunningServer:
    """Build and start the gRPC server (and the metrics endpoint, if enabled).

    ``clock`` runs the games' decision time limits (tests pass a ManualClock).
    ``store`` is where game logs go; None means a :class:`MemoryStore` (embedding and tests;
    ``python -m server`` passes :func:`open_store`'s). With a :class:`SqliteStore`, every
    unfinished game in it is restored before the server accepts calls (StoreError if the
    store cannot be read at all), and finished games evicted from memory stay queryable.
    KeyFileError if the keys file (``config.api_keys``) cannot be used; ClusterSecretError if
    a cluster node (a PostgreSQL store) has no usable cluster secret
    (``config.cluster_secret_file``); TlsError if the TLS files (``config.tls_files``) cannot
    be.
    """
    tls = ServerTls(config.tls_files) if config.tls_files is not None else None
    keys = KeyRing(
        config.api_keys, admin_token=config.admin_token, anonymous=config.anonymous_policy
    )
    keys.load()
    if config.cluster_secret_file is not None:
        secrets = ClusterSecrets(config.cluster_secret_file)
        secrets.load()
    else:
        secrets = ClusterSecrets.from_text(config.cluster_secret)
    if isinstance(store, PostgresStore) and not secrets:
        raise ClusterSecretError(
            "a cluster node needs --cluster-secret-file (YGGDRASIL_CLUSTER_SECRET_FILE) or "
            "YGGDRASIL_CLUSTER_SECRET: the secret its nodes sign their calls to one another "
            "with (docs/cluster.md); make one with: python -m server.cluster.node_auth new"
        )
    for wire in all_wires():  # before the restore: games may need their settings
        wire.configure(config.settings_for(wire))
    metrics = Metrics() if metrics is None else metrics
    quotas = QuotaBook(on_refusal=metrics.quota_refused)
    store = MemoryStore() if store is None else store
    registry = GameRegistry(
        store,
        metrics,
        max_games=config.max_games,
        finished_retention_s=config.finished_game_retention_s,
        snapshot_every=config.snapshot_every,
        event_cap=DEFAULT_EVENT_CAP if event_cap is None else event_cap,
        clock=clock,
    )
    report: RestoreReport | None = None
    ownership: Ownership | None = None
    forwarding: ForwardingInterceptor | None = None
    stream_leases: StreamLeases | None = None
    cluster_interceptors: list[grpc.aio.ServerInterceptor] = []
    if isinstance(store, PostgresStore):
        cluster_metrics = ClusterMetrics(metrics)
        ownership = Ownership(
            store,
            registry,
            node_id=config.node_id or "",
            address=config.node_address or "",
            settings=LeaseSettings(config.lease_ttl_s, config.lease_renew_s, config.lease_margin_s),
            metrics=cluster_metrics,
            eager=config.restore == "eager",
        )
        forwarding = ForwardingInterceptor(ownership, cluster_metrics, secrets, tls=tls)
        cluster_interceptors.append(forwarding)
        # Open games and streams are counted for the whole cluster (server.cluster.shared_quotas).
        quotas.open_games_in_store = True
        stream_leases = StreamLeases(
            store, lambda: ownership.member if ownership else "", config.lease_ttl_s,
            config.lease_renew_s,
        )  # fmt: skip
        quotas.shared_streams = stream_leases
    elif isinstance(store, SqliteStore):
        sqlite = store

        async def archive(game_id: str) -> Game | None:
            return await load_finished(sqlite, registry, game_id)

        registry.archive = archive
        restore = restore_games if config.restore == "eager" else restore_lazily
        report = await restore(store, registry)
    registry.on_game_over.append(lambda game: quotas.game_over(creator_of(game)))
    streams = StreamBook(config.max_spectators_per_game)
    fanout = FanoutGate()
    streams.register_metrics(metrics.registry)
    abandonment = Abandonment(
        registry, AbandonPolicy(config.open_game_timeout_s, config.idle_game_timeout_s)
    )
    for game in registry.games.values():
        if game.record.creator and game.status in (Status.OPEN, Status.IN_PROGRESS):
            quotas.count_open_game(game.record.creator)
    for dormant in registry.dormant.values():  # unfinished, not rebuilt yet
        if dormant.creator:
            quotas.count_open_game(dormant.creator)
    registry.start()
    abandonment.start()
    server = grpc.aio.server(
        interceptors=[
            *tracing.server_interceptors(),  # outermost: the span covers the whole call
            MetricsInterceptor(metrics, watch_methods=["WatchGame"]),
            AccessLogInterceptor(
                quiet_methods=["Check", "Watch", "Ping"],
                level=logging.INFO if config.access_log else logging.DEBUG,
            ),
            NodeAuthInterceptor(secrets),  # before the identity: a signed node is trusted
            AuthInterceptor(keys, require_key=config.require_api_key, proxies=config.proxies),
            MalformedRequestInterceptor(),  # request bytes that do not parse: INVALID_ARGUMENT
            FaultBarrierInterceptor(),  # the ones above count the INTERNAL it sends
            *cluster_interceptors,  # innermost: forwarded calls are counted and logged too
        ],
        options=config.grpc_options,
    )
    game_service_pb2_grpc.add_GameServiceServicer_to_server(
        GameService(
            registry,
            config.admin_token,
            quotas,
            abandonment,
            streams,
            fanout,
            anyone_seeds=config.seed_choice == "anyone",
        ),
        server,
    )
    diagnostics_service_pb2_grpc.add_DiagnosticsServiceServicer_to_server(
        DiagnosticsService(), server
    )
    health = await add_health_and_reflection(server, SERVICE_NAMES)
    if ownership is not None:
        ownership.on_serving = partial(report_serving, health)
    address = f"{config.host}:{config.port}"
    try:
        if tls is None:
            port = server.add_insecure_port(address)
        else:
            port = server.add_secure_port(address, tls.server_credentials())
    except RuntimeError as exc:  # grpc's "Failed to bind to address ..."
        raise ListenError(
            f"cannot listen on {address}: {exc} (in use by another process?)"
        ) from None
    if ownership is not None:
        ownership.address = config.node_address or f"{config.host}:{port}"
        ownership.node_id = config.node_id or f"{socket.gethostname()}:{port}"
        try:
            await ownership.start()  # the lease first: no game is served without one
        except BaseException:
            await server.stop(None)
            raise
    await server.start()
    ConnectionCollector(port).register(metrics.registry)
    metrics_http = None
    if config.metrics_enabled:
        metrics_http = start_metrics_http_server(
            config.metrics_port, config.host, registry=metrics.registry
        )
    running = RunningServer(
        config,
        server,
        port,
        health,
        registry,
        metrics,
        metrics_http,
        store,
        report,
        owns_store,
        keys,
        quotas,
        abandonment,
        streams,
        fanout,
        ownership=ownership,
        forwarding=forwarding,
        cluster_secrets=secrets,
    )
    if config.api_keys is not None or config.cluster_secret_file is not None:
        running.background.append(asyncio.get_running_loop().create_task(running._watch_keys()))
    running.background.append(asyncio.get_running_loop().create_task(streams.trim_forever()))
    if stream_leases is not None:
        running.background.append(
            asyncio.get_running_loop().create_task(stream_leases.renew_forever())
        )
    return running


async def serve(config: ServerConfig) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    logger = structlog.get_logger("yggdrasil.server")
    if tracing.configure(instance=config.node_id or socket.gethostname()):
        logger.info("tracing_enabled", exporter="otlp")
    store = await open_postgres(config) if config.store == "postgres" else open_store(config)
    try:
        running = await start_server(config, store=store, owns_store=True)
    except BaseException:
        if isinstance(store, SqliteStore):
            store.close()
        if isinstance(store, PostgresStore):
            await store.close()
        raise
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stop.set)
    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGHUP, running.reload_keys)
    metrics_note = (
        f"metrics on http://{config.host}:{running.metrics_http.port}/metrics"
        if running.metrics_http is not None
        else "metrics disabled"
    )
    tls_note = ""
    if config.tls_files is not None:
        tls_note = " (TLS, client certificates required)" if config.tls_client_ca else " (TLS)"
    print(
        f"yggdrasil: gRPC on {config.host}:{running.port}{tls_note}; {metrics_note}",
        file=sys.stderr,
        flush=True,
    )
    if running.ownership is not None and isinstance(store, PostgresStore):
        print(
            f"yggdrasil: cluster node {running.ownership.member} at "
            f"{running.ownership.address} on {store.where}",
            file=sys.stderr,
            flush=True,
        )
    report = running.restore
    if report is not None:
        broken = len(report.problems)
        lazily = f" ({report.dormant} to be rebuilt on first use)" if report.dormant else ""
        print(
            f"yggdrasil: store {config.store_path}: restored {report.restored} game(s){lazily} "
            f"in {report.seconds:.2f} s"
            + (f"; {broken} game(s) out of service (see the ERROR log lines)" if broken else ""),
            file=sys.stderr,
            flush=True,
        )
    logger.info(
        "server_started",
        port=running.port,
        metrics_port=running.metrics_http.port if running.metrics_http else None,
        file_limit=resource.getrlimit(resource.RLIMIT_NOFILE)[0],
        connection_ceiling=connection_ceiling(),
    )
    try:
        await stop.wait()
        logger.info("server_stopping", grace_period_s=config.grace_period_s)
    finally:
        await running.shutdown()
        tracing.shutdown()
        logger.info("server_stopped")


# Full (generation 2) garbage collections after this many generation-1 ones (CPython's
# default is 10). A full pass walks every object of every hosted game and stalls every call
# in flight: about 30-50 ms with a hundred games in memory, every few seconds under load.
# Game data is freed by reference counting; only cycles wait for a full pass, now minutes
# apart instead of seconds.
FULL_GC_EVERY = 1000


def tune_gc() -> None:
    """Keep full collections rare, and out of the objects that live as long as the process
    (modules, classes, tables loaded at start-up: frozen, never walked again)."""
    gc.collect()
    gc.freeze()
    gen0, gen1, _ = gc.get_threshold()
    gc.set_threshold(gen0, gen1, FULL_GC_EVERY)


def main(argv: Sequence[str] | None = None) -> int:
    config = ServerConfig.from_env_and_args(argv, prog="python -m server")
    # The process configures logging once, so loggers may keep what they bound on first use.
    configure_logging(config.log_level, cache_loggers=True)
    raise_file_limit()  # each client connection is a descriptor (server.api.connections)
    tune_gc()
    try:
        asyncio.run(serve(config))
    except StoreError as e:
        print(f"yggdrasil: cannot start: {e}", file=sys.stderr, flush=True)
        return EXIT_STORE_ERROR
    except ListenError as e:
        print(f"yggdrasil: cannot start: {e}", file=sys.stderr, flush=True)
        return EXIT_LISTEN_ERROR
    except (KeyFileError, ClusterSecretError, TlsError) as e:
        print(f"yggdrasil: cannot start: {e}", file=sys.stderr, flush=True)
        return EXIT_CONFIG_ERROR
    return 0
