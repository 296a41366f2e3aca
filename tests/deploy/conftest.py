"""Fixtures of the deploy tests: a real in-process server (127.0.0.1, port 0) for the probe."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.config import ServerConfig
from server.main import RunningServer, start_server
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry


@pytest.fixture(autouse=True, scope="session")
def _quiet_logs() -> None:
    configure_logging("WARNING")


@pytest.fixture
async def running() -> AsyncIterator[RunningServer]:
    server = await start_server(
        ServerConfig(port=0, metrics_port=-1, store="memory"),
        metrics=Metrics(new_registry(process_collectors=False)),
    )
    try:
        yield server
    finally:
        await server.shutdown(0)
