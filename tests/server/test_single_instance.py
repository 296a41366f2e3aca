"""One server per port and per store: a second one refuses to start, saying why."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from server.main import EXIT_LISTEN_ERROR, EXIT_STORE_ERROR
from server.stores.contract import StoreError
from server.stores.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parents[2]
_READY = re.compile(r"gRPC on [\d.]+:(\d+)")


async def _spawn(*args: str) -> asyncio.subprocess.Process:
    env = dict(os.environ, YGGDRASIL_LOG_LEVEL="WARNING")
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--metrics-port", "-1", *args,
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


async def _port_of(process: asyncio.subprocess.Process) -> int:
    assert process.stderr is not None
    line = (await asyncio.wait_for(process.stderr.readline(), timeout=30)).decode()
    match = _READY.search(line)
    assert match, line
    return int(match[1])


async def _refused(process: asyncio.subprocess.Process) -> tuple[int, str]:
    assert process.stderr is not None
    err = await asyncio.wait_for(process.stderr.read(), timeout=30)
    return await process.wait(), err.decode()


async def _stop(process: asyncio.subprocess.Process, sig: int = signal.SIGTERM) -> None:
    if process.returncode is None:
        process.send_signal(sig)
        await asyncio.wait_for(process.wait(), timeout=15)


async def test_a_second_server_on_the_same_port_does_not_start(tmp_path: Path) -> None:
    first = await _spawn("--port", "0", "--data-dir", str(tmp_path / "a"))
    try:
        port = await _port_of(first)
        second = await _spawn("--port", str(port), "--data-dir", str(tmp_path / "b"))
        code, err = await _refused(second)
        assert code == EXIT_LISTEN_ERROR
        assert f"cannot listen on 127.0.0.1:{port}" in err
    finally:
        await _stop(first)


async def test_a_second_server_on_the_same_store_does_not_start(tmp_path: Path) -> None:
    first = await _spawn("--port", "0", "--data-dir", str(tmp_path))
    try:
        await _port_of(first)
        second = await _spawn("--port", "0", "--data-dir", str(tmp_path))
        code, err = await _refused(second)
        assert code == EXIT_STORE_ERROR
        assert "in use by another server process" in err and f"pid {first.pid}" in err
        # Killed outright, the first server leaves no stale lock behind.
        await _stop(first, signal.SIGKILL)
        third = await _spawn("--port", "0", "--data-dir", str(tmp_path))
        try:
            await _port_of(third)
        finally:
            await _stop(third)
    finally:
        await _stop(first, signal.SIGKILL)


def test_a_store_file_opens_once_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    first = SqliteStore(path)
    first.open()
    try:
        with pytest.raises(StoreError, match="in use by another server process"):
            SqliteStore(path).open()
    finally:
        first.close()
    again = SqliteStore(path)
    again.open()  # closed, the lock is free again
    again.close()


def test_the_server_process_keeps_full_collections_rare() -> None:
    """python -m server freezes its start-up objects and raises the full-collection
    threshold (server.main.tune_gc); checked in a fresh process, as it changes the process."""
    code = (
        "import gc; from server.main import FULL_GC_EVERY, tune_gc; tune_gc(); "
        "assert gc.get_threshold()[2] == FULL_GC_EVERY > 10, gc.get_threshold(); "
        "assert gc.get_freeze_count() > 10_000, gc.get_freeze_count()"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
