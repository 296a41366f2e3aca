"""Soak tests: quiet logs (each test starts its own server process; see soak_support.py)."""

from __future__ import annotations

import pytest

from server.ops.logs import configure_logging


@pytest.fixture(autouse=True, scope="session")
def _quiet_logs() -> None:
    configure_logging("WARNING")
