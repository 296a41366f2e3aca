"""Fixtures of the API tests: a real grpc.aio server on 127.0.0.1, port 0, per test.

(grpcio-testing does not support grpc.aio, so the tests talk to a real server.) Helpers the
tests share live in ``api_support.py`` next to this file.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import grpc.aio
import pytest
from api_support import ADMIN_TOKEN

from server.config import ServerConfig
from server.games.decision_clock import LOOP_CLOCK, LoopClock, ManualClock
from server.main import RunningServer, start_server
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry
from yggdrasil.v1 import diagnostics_service_pb2_grpc, game_service_pb2_grpc


@pytest.fixture(autouse=True, scope="session")
def _quiet_logs() -> None:
    # Access logs at INFO for every RPC would slow the end-to-end games down.
    configure_logging("WARNING")


async def _start(**config: object) -> RunningServer:
    """A server; ``event_cap`` and ``clock`` (a ManualClock) go to start_server, the rest to
    its ServerConfig."""
    event_cap = config.pop("event_cap", None)
    clock = config.pop("clock", LOOP_CLOCK)
    assert isinstance(clock, LoopClock | ManualClock)
    # Anonymous callers get no quota here (the quota tests set their own), and every
    # creator's seed deals its game: the tests play known deals (test_api_seed.py checks
    # the default, where only admin and tournament keys choose seeds).
    defaults = {
        "port": 0,
        "metrics_port": -1,
        "admin_token": ADMIN_TOKEN,
        "anonymous_quota": "unlimited",
        "seed_choice": "anyone",
    }
    settings = ServerConfig(**{**defaults, **config})  # type: ignore[arg-type]
    return await start_server(
        settings,
        metrics=Metrics(new_registry(process_collectors=False)),
        event_cap=event_cap if isinstance(event_cap, int) else None,
        clock=clock,
    )


@pytest.fixture
async def running() -> AsyncIterator[RunningServer]:
    server = await _start()
    try:
        yield server
    finally:
        await server.shutdown(0)


@pytest.fixture
def server_factory() -> object:
    """``await server_factory(**config)`` starts another server (stopped by the test)."""
    return _start


@pytest.fixture
async def channel(running: RunningServer) -> AsyncIterator[grpc.aio.Channel]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as ch:
        yield ch


@pytest.fixture
def stub(channel: grpc.aio.Channel) -> game_service_pb2_grpc.GameServiceAsyncStub:
    return game_service_pb2_grpc.GameServiceStub(channel)


@pytest.fixture
def diagnostics(
    channel: grpc.aio.Channel,
) -> diagnostics_service_pb2_grpc.DiagnosticsServiceAsyncStub:
    return diagnostics_service_pb2_grpc.DiagnosticsServiceStub(channel)
