"""Fixtures of the server tests."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import structlog

from server.ops.logs import configure_logging

Lines = Callable[[], list[dict[str, Any]]]


@pytest.fixture
def captured() -> Iterator[tuple[io.StringIO, Lines]]:
    root = logging.getLogger()
    old_handlers, old_level = list(root.handlers), root.level
    structlog.contextvars.clear_contextvars()
    buffer = io.StringIO()
    configure_logging("DEBUG", buffer)

    def lines() -> list[dict[str, Any]]:
        return [json.loads(line) for line in buffer.getvalue().splitlines()]

    yield buffer, lines
    structlog.reset_defaults()
    structlog.contextvars.clear_contextvars()
    root.handlers[:] = old_handlers
    root.setLevel(old_level)
