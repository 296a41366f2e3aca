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
    # A bot lab: the seed a test asks for deals its game (--seed-choice anyone), so the same
    # position can be set up locally from that seed and the server's log.
    config = ServerConfig(port=0, metrics_port=-1, store="memory", seed_choice="anyone")
    server = await start_server(config, metrics=Metrics(new_registry(process_collectors=False)))
    try:
        yield server
    finally:
        await server.shutdown(0)
