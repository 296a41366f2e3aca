"""Fixtures every test directory may use: a throwaway PostgreSQL server (started once per
session, only if a test asks for it) and a fresh database per test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from localcluster.postgres import ThrowawayPostgres


@pytest.fixture(scope="session")
def postgres() -> Iterator[ThrowawayPostgres]:
    """One PostgreSQL server for the whole session (``fsync=off``: only processes die here)."""
    server = ThrowawayPostgres().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(postgres: ThrowawayPostgres) -> str:
    """The URL of a new, empty database on the session's server."""
    return postgres.create_database(f"t_{uuid.uuid4().hex[:12]}")
