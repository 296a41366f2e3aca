"""Fixtures of the environment tests: a real grpc.aio server on 127.0.0.1 (port 0), in
process, with the memory store (the remote seat plays against it)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.config import ServerConfig
from server.main import RunningServer, start_server
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry


@pytest.fixture
async def running() -> AsyncIterator[RunningServer]:
    configure_logging("WARNING")
    config = ServerConfig(port=0, metrics_port=-1, store="memory")
    server = await start_server(config, metrics=Metrics(new_registry(process_collectors=False)))
    try:
        yield server
    finally:
        await server.shutdown(0)
