"""Issue 26, point 10: the 512-character clip is for what clients send; the server's own
tracebacks keep their cause (bounded, head and tail), through structlog and through the
standard ``logging`` records of libraries such as grpc."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from typing import Any

import structlog

from server.ops.logs import MAX_LOGGED_CHARS, MAX_TRACEBACK_CHARS

Lines = Callable[[], list[dict[str, Any]]]
CAUSE = "the-cause-at-the-very-end"


def _deep(depth: int) -> None:
    if depth:
        _deep(depth - 1)
        return
    try:
        raise ValueError("the first failure")
    except ValueError as first:
        raise RuntimeError(CAUSE) from first


def _raise_chained() -> BaseException:
    try:
        _deep(12)
    except RuntimeError as exc:
        return exc
    raise AssertionError("nothing raised")


def test_a_traceback_keeps_its_cause(captured: tuple[io.StringIO, Lines]) -> None:
    _, lines = captured
    error = _raise_chained()
    structlog.get_logger("t").error("boom", exc_info=error, peer="p" * 10_000)
    logging.getLogger("grpc._cython.cygrpc").error("grpc's own line", exc_info=error)
    ours, grpcs = [line for line in lines() if line["event"] in ("boom", "grpc's own line")]
    for line in (ours, grpcs):
        text = line["exception"]
        assert len(text) > MAX_LOGGED_CHARS  # not clipped to the clients' bound
        assert "ValueError: the first failure" in text
        assert f"RuntimeError: {CAUSE}" in text
        assert "direct cause" in text
    # A value from a client is still clipped.
    assert ours["peer"] == "p" * MAX_LOGGED_CHARS + "...(10000 characters)"


def test_a_huge_traceback_is_bounded_and_keeps_its_ends(
    captured: tuple[io.StringIO, Lines],
) -> None:
    _, lines = captured
    try:
        raise KeyError("k" * 2_000_000)  # an exception quoting a huge value
    except KeyError as exc:
        structlog.get_logger("t").error("huge", exc_info=exc)
    deep = _deep_error(300)  # thousands of lines
    structlog.get_logger("t").error("deep", exc_info=deep)
    huge, long = [line["exception"] for line in lines() if line["event"] in ("huge", "deep")]
    assert len(huge) <= 4 * MAX_LOGGED_CHARS
    assert huge.startswith("Traceback (most recent call last):")
    assert "KeyError: 'kkkk" in huge and huge.endswith("characters)")
    assert len(long) <= MAX_TRACEBACK_CHARS + 100
    assert long.startswith("Traceback (most recent call last):")
    assert "characters left out" in long
    assert long.endswith(f"RuntimeError: {CAUSE}")


def _deep_error(links: int) -> BaseException:
    """An exception at the end of a chain of ``links`` others (each printed with its frame)."""
    error: BaseException | None = None
    for n in range(links):
        try:
            raise ValueError(f"link {n}") from error
        except ValueError as exc:
            error = exc
    try:
        raise RuntimeError(CAUSE) from error
    except RuntimeError as exc:
        return exc
