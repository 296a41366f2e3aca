"""Connections are bounded: idle ones are closed, a real client is served through a flood,
the file limit is raised, and the metrics count connections."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
from pathlib import Path

import grpc
import grpc.aio
import pytest

from server.api import connections
from server.config import ServerConfig
from server.main import start_server
from server.ops.metrics import Metrics, new_registry
from tests.waiting import until
from yggdrasil.v1 import game_service_pb2 as gs
from yggdrasil.v1 import game_service_pb2_grpc

FLOOD = 1000  # the fast version; make abuse opens many more


def _closed(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (it may have sent its HTTP/2 settings first)."""
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def _flood(port: int) -> list[socket.socket]:
    """FLOOD connections to ``port`` that never say a word."""
    flood: list[socket.socket] = []
    for _ in range(FLOOD):
        sock = socket.socket()
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            sock.connect(("127.0.0.1", port))
        flood.append(sock)
    return flood


async def test_a_flood_of_idle_connections_is_counted_and_a_real_client_is_served() -> None:
    # The default idle time (minutes): every connection of the flood stays while it is
    # counted, however long the machine takes to open them.
    config = ServerConfig(port=0, metrics_port=-1)
    server = await start_server(config, metrics=Metrics(new_registry(process_collectors=False)))
    port = server.port
    flood: list[socket.socket] = []
    try:
        flood = _flood(port)
        await until(
            lambda: connections.open_connections(port) == FLOOD,
            f"the {FLOOD} connections of the flood were never all established",
        )
        # (At most a few more: a channel of an earlier test may reconnect to a port number
        # this server took over.)
        gauge = server.metrics.registry.get_sample_value("yggdrasil_connections_open")
        assert gauge is not None and FLOOD <= gauge <= FLOOD + 8
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            listed = await asyncio.wait_for(stub.ListGames(gs.ListGamesRequest()), 60)
            assert list(listed.games) == []
            count = connections.open_connections(port)
            assert count is not None and FLOOD + 1 <= count <= FLOOD + 9
    finally:
        for sock in flood:
            sock.close()
        await server.shutdown(0)


async def test_idle_connections_are_closed_and_a_client_connects_again() -> None:
    config = ServerConfig(port=0, metrics_port=-1, connection_idle_s=1.0)
    server = await start_server(config, metrics=Metrics(new_registry(process_collectors=False)))
    port = server.port
    flood: list[socket.socket] = []
    try:
        flood = _flood(port)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            listed = await asyncio.wait_for(stub.ListGames(gs.ListGamesRequest()), 60)
            assert list(listed.games) == []
            # Every idle connection is closed after the idle time: the flood's and, once it
            # has no call open, the real client's too.
            await until(
                lambda: all(_closed(s) for s in flood) and connections.open_connections(port) == 0,
                "idle connections are still open",
            )
            # A channel whose connection was closed connects again by itself.
            await asyncio.wait_for(stub.ListGames(gs.ListGamesRequest()), 60)
    finally:
        for sock in flood:
            sock.close()
        await server.shutdown(0)


def test_the_soft_file_limit_is_raised_to_the_hard_one(monkeypatch: pytest.MonkeyPatch) -> None:
    limits = {resource.RLIMIT_NOFILE: (1024, 65536)}
    monkeypatch.setattr(connections.resource, "getrlimit", lambda which: limits[which])

    def setrlimit(which: int, value: tuple[int, int]) -> None:
        limits[which] = value

    monkeypatch.setattr(connections.resource, "setrlimit", setrlimit)
    assert connections.raise_file_limit() == (65536, 65536)
    assert connections.connection_ceiling() == 65536 - connections.RESERVED_FDS
    limits[resource.RLIMIT_NOFILE] = (1024, resource.RLIM_INFINITY)
    soft, _ = connections.raise_file_limit()
    assert soft == 1 << 20


async def test_the_server_process_starts_with_its_soft_file_limit_at_the_hard_one(
    tmp_path: Path,
) -> None:
    # `python -m server` started with a low soft limit (as a shell's default of 1024 would
    # be): it raises it to the hard one before serving and says so in server_started.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = 256
    assert hard == resource.RLIM_INFINITY or hard > low

    # The limit is lowered by a small launcher that then execs the server, not by a
    # preexec_fn: that runs Python in a fork of this process, whose gRPC threads' at-fork
    # handling once killed the child before its exec (an epoll "Bad file descriptor", in CI).
    lower_then_exec = (
        "import os, resource, sys; "
        "resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), int(sys.argv[2]))); "
        "os.execv(sys.executable, [sys.executable, *sys.argv[3:]])"
    )
    log = tmp_path / "server.log"
    argv = [sys.executable, "-m", "server", "--port", "0", "--metrics-port", "-1"]
    more = ["--store", "memory", "--log-level", "INFO"]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", lower_then_exec, str(low), str(hard), *argv[1:], *more],
            cwd=Path(__file__).resolve().parents[2],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:

        def started() -> dict[str, object] | None:
            for line in log.read_text(errors="replace").splitlines():
                if line.startswith("{") and '"server_started"' in line:
                    found: dict[str, object] = json.loads(line)
                    return found
            return None

        await until(lambda: started() is not None or process.poll() is not None, "no start")
        line = started()
        assert line is not None, log.read_text()
        want = connections._UNLIMITED_CAP if hard == resource.RLIM_INFINITY else hard
        assert line["file_limit"] == want
        assert line["connection_ceiling"] == want - connections.RESERVED_FDS
        limits = Path(f"/proc/{process.pid}/limits").read_text()
        assert f"Max open files            {want}" in limits
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
        process.wait(timeout=60)


def test_open_connections_reads_proc(tmp_path: Path) -> None:
    net = tmp_path / "net"
    net.mkdir()
    header = "  sl  local_address rem_address   st tx_queue rx_queue ...\n"
    (net / "tcp").write_text(
        header
        + "   0: 0100007F:C383 00000000:0000 0A 00000000:00000000 (listening)\n"
        + "   1: 0100007F:C383 0100007F:D431 01 00000000:00000000 (established to us)\n"
        + "   2: 0100007F:D431 0100007F:C383 01 00000000:00000000 (the client side)\n"
        + "   3: 0100007F:C383 0100007F:D432 06 00000000:00000000 (time wait)\n"
    )
    (net / "tcp6").write_text(
        header + "   0: 00000000000000000000000001000000:C383 0000:D433 01 0:0 (v6)\n"
    )
    assert connections.open_connections(0xC383, tmp_path) == 2
    assert connections.open_connections(0xC383, tmp_path / "missing") is None
