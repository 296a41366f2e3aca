"""Fixtures of the TLS tests: certificates made here (a CA, a server certificate it signs, a
stranger CA nobody trusts), and a server in process serving TLS with them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from tls_support import Pki, StartTls, make_pki

from server.config import ServerConfig
from server.main import RunningServer, start_server
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics, new_registry


@pytest.fixture(autouse=True, scope="session")
def _quiet_server_logs() -> None:
    configure_logging("WARNING")


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture
async def start_tls(pki: Pki) -> AsyncIterator[StartTls]:
    """``await start_tls(mutual=False, **config)``: a memory-store server on a free port
    serving TLS with the test CA's server certificate (and requiring client certificates of
    that CA when ``mutual``); stopped after the test."""
    started: list[RunningServer] = []

    async def start(mutual: bool = False, **overrides: object) -> RunningServer:
        settings: dict[str, object] = {
            "port": 0,
            "metrics_port": -1,
            "store": "memory",
            "tls_cert": pki.server_cert,
            "tls_key": pki.server_key,
            "tls_client_ca": pki.ca if mutual else None,
        }
        settings.update(overrides)
        running = await start_server(
            ServerConfig(**settings),  # type: ignore[arg-type]
            metrics=Metrics(new_registry(process_collectors=False)),
        )
        started.append(running)
        return running

    try:
        yield start
    finally:
        for running in started:
            await running.shutdown(0)


@pytest.fixture
async def start_server_plain() -> AsyncIterator[RunningServer]:
    """A plaintext memory-store server on a free port."""
    running = await start_server(
        ServerConfig(port=0, metrics_port=-1, store="memory"),
        metrics=Metrics(new_registry(process_collectors=False)),
    )
    try:
        yield running
    finally:
        await running.shutdown(0)
