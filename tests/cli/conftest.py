"""Fixtures of the CLI tests: a real grpc.aio server on 127.0.0.1, port 0, per test (the same
idea as tests/api, kept separate so the two suites do not depend on each other)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import grpc.aio
import pytest

from server.config import ServerConfig
from server.main import RunningServer, start_server
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry
from yggdrasil.v1 import game_service_pb2_grpc


@pytest.fixture(autouse=True, scope="session")
def _quiet_server_logs() -> None:
    configure_logging("WARNING")


@pytest.fixture
def seed_choice() -> str:
    """Whose seeds deal their games (``--seed-choice``): anyone's here, since the rendering
    tests look for positions in known deals; a module that checks the mixing of an ordinary
    player's seed overrides this with "keys" (the server's default)."""
    return "anyone"


@pytest.fixture
async def server(seed_choice: str) -> AsyncIterator[RunningServer]:
    running = await start_server(
        ServerConfig(port=0, metrics_port=-1, seed_choice=seed_choice),
        metrics=Metrics(new_registry(process_collectors=False)),
    )
    try:
        yield running
    finally:
        await running.shutdown(0)


@pytest.fixture
def address(server: RunningServer) -> str:
    return f"127.0.0.1:{server.port}"


@pytest.fixture
async def stub(address: str) -> AsyncIterator[object]:
    async with grpc.aio.insecure_channel(address) as channel:
        yield game_service_pb2_grpc.GameServiceStub(channel)


@pytest.fixture
def token_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private token file (and HOME) so tests never touch ~/.yggdrasil."""
    path = tmp_path / "tokens.json"
    monkeypatch.setenv("YGGDRASIL_TOKEN_FILE", str(path))
    monkeypatch.setenv("HOME", str(tmp_path))
    return path
