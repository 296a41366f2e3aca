"""``python -m server.probe`` against a real in-process server (the probe is blocking, so it
runs in a thread while the server's event loop keeps answering)."""

from __future__ import annotations

import asyncio
import os
import socket
import sys

import pytest
from deploy_support import ROOT

from server import probe
from server.main import RunningServer
from server.ops.health import set_not_serving


def _address(running: RunningServer) -> str:
    return f"127.0.0.1:{running.port}"


async def _probe(*argv: str) -> int:
    return await asyncio.to_thread(probe.main, list(argv))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_serving(running: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert await _probe("--address", _address(running)) == probe.EXIT_SERVING
    out = capsys.readouterr().out
    assert out.strip() == f"{_address(running)}: SERVING"


async def test_named_services(running: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    for service in ("yggdrasil.v1.GameService", "yggdrasil.v1.DiagnosticsService"):
        code = await _probe("--address", _address(running), "--service", service)
        assert code == probe.EXIT_SERVING, service
    code = await _probe("--address", _address(running), "--service", "no.Such")
    assert code == probe.EXIT_NOT_SERVING
    err = capsys.readouterr().err
    assert "'no.Such': SERVICE_UNKNOWN" in err


async def test_not_serving_once_shutdown_begins(
    running: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # RunningServer.shutdown's first step: health turns NOT_SERVING while the server still
    # answers (before server.stop refuses new calls).
    await set_not_serving(running.health)
    for service in ("", "yggdrasil.v1.GameService"):
        code = await _probe("--address", _address(running), "--service", service)
        assert code == probe.EXIT_NOT_SERVING
    err = capsys.readouterr().err
    assert f"not healthy: {_address(running)}: NOT_SERVING" in err


async def test_unreachable_after_shutdown(
    running: RunningServer, capsys: pytest.CaptureFixture[str]
) -> None:
    address = _address(running)
    await running.shutdown(0)
    assert await _probe("--address", address, "--timeout", "2") == probe.EXIT_NOT_SERVING
    assert f"{address}: UNREACHABLE" in capsys.readouterr().err


def test_nothing_listening(capsys: pytest.CaptureFixture[str]) -> None:
    address = f"127.0.0.1:{_free_port()}"
    assert probe.main(["--address", address, "--timeout", "60"]) == probe.EXIT_NOT_SERVING
    # Refused at once (UNAVAILABLE), not given up on after the timeout.
    assert f"{address}: UNREACHABLE (UNAVAILABLE" in capsys.readouterr().err


def test_silent_peer_times_out(capsys: pytest.CaptureFixture[str]) -> None:
    # A socket that accepts TCP connections but never speaks HTTP/2.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        address = f"127.0.0.1:{listener.getsockname()[1]}"
        result = probe.check(address, timeout=0.5)
    assert not result.serving
    # Given up on after the timeout (the peer never answers, so nothing else ends the wait).
    assert result.status == "UNREACHABLE" and "no answer within 0.5 s" in result.detail


def test_default_address_follows_yggdrasil_port() -> None:
    assert probe.default_address({}) == "127.0.0.1:50051"
    assert probe.default_address({"YGGDRASIL_PORT": "6000"}) == "127.0.0.1:6000"
    assert probe.default_address({"YGGDRASIL_PORT": ""}) == "127.0.0.1:50051"
    assert probe.default_address({"YGGDRASIL_PORT": "0"}) == "127.0.0.1:50051"
    assert probe.default_address({"YGGDRASIL_PORT": "nope"}) == "127.0.0.1:50051"


@pytest.mark.parametrize("argv", [["--timeout", "0"], ["--timeout", "x"], ["--address", " "]])
def test_bad_arguments(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        probe.main(argv)
    assert caught.value.code == 2


async def test_module_entry_point(running: RunningServer) -> None:
    """What the container HEALTHCHECK runs: default address from YGGDRASIL_PORT."""
    env = {**os.environ, "YGGDRASIL_PORT": str(running.port), "PYTHONPATH": str(ROOT)}

    async def run() -> tuple[int, str]:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "server.probe",
            "--timeout",
            "5",
            env=env,
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        out, _ = await asyncio.wait_for(process.communicate(), timeout=60)
        assert process.returncode is not None
        return process.returncode, out.decode()

    code, out = await run()
    assert (code, out.strip()) == (0, f"127.0.0.1:{running.port}: SERVING")
    await set_not_serving(running.health)
    code, out = await run()
    assert code == 1 and "NOT_SERVING" in out
