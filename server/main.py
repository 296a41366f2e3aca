"""``python -m server``: build the configuration, serve, shut down gracefully.

Shutdown on SIGTERM/SIGINT: health turns NOT_SERVING, new games are refused, decision clocks
stop and watch streams end, then ``server.stop(grace)`` stops accepting RPCs and gives the
ones in flight (decisions being applied) ``grace_period_s`` to finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import grpc
import grpc.aio
import structlog

from server.config import ServerConfig
from server.games import GameRegistry, GameStore, MemoryStore
from server.health import HealthControl, add_health_and_reflection, set_not_serving
from server.logs import AccessLogInterceptor, configure_logging
from server.metrics import (
    Metrics,
    MetricsHttpServer,
    MetricsInterceptor,
    start_metrics_http_server,
)
from server.service import DiagnosticsService, GameService
from yggdrasil.v1 import diagnostics_service_pb2_grpc, game_service_pb2_grpc

__all__ = ["RunningServer", "main", "serve", "start_server"]

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

    async def shutdown(self, grace: float | None = None) -> None:
        """Graceful stop (idempotent enough to be called from a finally)."""
        await set_not_serving(self.health)
        self.games.close()  # no new games, clocks stopped, watch streams end
        grace_s = self.config.grace_period_s if grace is None else grace
        await self.server.stop(grace_s)  # in-flight RPCs get the grace period
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.games.idle(), timeout=max(grace_s, 0.1))
        if self.metrics_http is not None:
            self.metrics_http.close()
            self.metrics_http = None


async def start_server(
    config: ServerConfig,
    *,
    metrics: Metrics | None = None,
    store: GameStore | None = None,
    event_cap: int | None = None,
) -> RunningServer:
    """Build and start the gRPC server (and the metrics endpoint, if enabled)."""
    metrics = Metrics() if metrics is None else metrics
    registry = GameRegistry(
        MemoryStore() if store is None else store,
        metrics,
        max_games=config.max_games,
        finished_retention_s=config.finished_game_retention_s,
        **({} if event_cap is None else {"event_cap": event_cap}),
    )
    server = grpc.aio.server(
        interceptors=[
            MetricsInterceptor(metrics, watch_methods=["WatchGame"]),
            AccessLogInterceptor(quiet_methods=["Check", "Watch", "Ping"]),
        ],
    )
    game_service_pb2_grpc.add_GameServiceServicer_to_server(GameService(registry, config), server)
    diagnostics_service_pb2_grpc.add_DiagnosticsServiceServicer_to_server(
        DiagnosticsService(), server
    )
    health = await add_health_and_reflection(server, SERVICE_NAMES)
    port = server.add_insecure_port(f"{config.host}:{config.port}")
    await server.start()
    metrics_http = None
    if config.metrics_enabled:
        metrics_http = start_metrics_http_server(
            config.metrics_port, config.host, registry=metrics.registry
        )
    return RunningServer(config, server, port, health, registry, metrics, metrics_http)


async def serve(config: ServerConfig) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    logger = structlog.get_logger("yggdrasil.server")
    running = await start_server(config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stop.set)
    metrics_note = (
        f"metrics on http://{config.host}:{running.metrics_http.port}/metrics"
        if running.metrics_http is not None
        else "metrics disabled"
    )
    print(
        f"yggdrasil: gRPC on {config.host}:{running.port}; {metrics_note}",
        file=sys.stderr,
        flush=True,
    )
    logger.info(
        "server_started",
        port=running.port,
        metrics_port=running.metrics_http.port if running.metrics_http else None,
    )
    try:
        await stop.wait()
        logger.info("server_stopping", grace_period_s=config.grace_period_s)
    finally:
        await running.shutdown()
        logger.info("server_stopped")


def main(argv: Sequence[str] | None = None) -> int:
    config = ServerConfig.from_env_and_args(argv, prog="python -m server")
    configure_logging(config.log_level)
    asyncio.run(serve(config))
    return 0
