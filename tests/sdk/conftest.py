"""Fixtures of the SDK and tournament tests: a real grpc.aio server on 127.0.0.1 (port 0 unless
asked), in process, with the memory store or a SQLite store in a temporary data directory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from server.config import ServerConfig
from server.main import RunningServer, open_store, start_server
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry

StartServer = Callable[..., Awaitable[RunningServer]]


@pytest.fixture(autouse=True, scope="session")
def _quiet_logs() -> None:
    configure_logging("WARNING")


async def _start(port: int = 0, data_dir: Path | None = None) -> RunningServer:
    """A server on ``port``; with ``data_dir`` it keeps its games in SQLite there (and
    restores the unfinished ones when started again on the same directory)."""
    # Every creator's seed deals its game: the tests play known deals (a bot lab's server;
    # tests/api/test_api_seed.py checks the default, where only admin and tournament keys do).
    if data_dir is None:
        config = ServerConfig(port=port, metrics_port=-1, store="memory", seed_choice="anyone")
        return await start_server(config, metrics=Metrics(new_registry(process_collectors=False)))
    config = ServerConfig(
        port=port,
        metrics_port=-1,
        store="sqlite",
        data_dir=data_dir,
        fsync=False,
        grace_period_s=0.0,
        seed_choice="anyone",
    )
    store = open_store(config)
    return await start_server(
        config,
        metrics=Metrics(new_registry(process_collectors=False)),
        store=store,
        owns_store=True,
    )


@pytest.fixture
async def running() -> AsyncIterator[RunningServer]:
    server = await _start()
    try:
        yield server
    finally:
        await server.shutdown(0)


@pytest.fixture
def start_server_at() -> StartServer:
    """``await start_server_at(port=0, data_dir=None)`` starts a server the test stops."""
    return _start
