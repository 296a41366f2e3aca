"""Child processes for the scripts that stage a server on this machine (make ts-example,
make web, the browser tests): each child in its own process group with its output in a log
file, stopped with SIGTERM then SIGKILL, and the gRPC server started on a free port whose
address is read from its start-up line."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
LISTEN_LINE = re.compile(r"gRPC on (\S+?):(\d+)")


class Proc:
    """A child process in its own process group, with its output captured to a file."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        log_dir: Path,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.log_path = log_dir / f"{name}.log"
        self._log: IO[bytes] = self.log_path.open("wb")
        self.popen = subprocess.Popen(
            list(argv),
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def output(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self, grace_s: float = 5.0) -> None:
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, signal.SIGTERM)
                self.popen.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait()
            except ProcessLookupError:
                self.popen.wait()
        self._log.close()


def server_argv(*options: str) -> list[str]:
    """`python -m server` on a free port without /metrics, quiet, plus ``options``."""
    return [
        sys.executable,
        "-m",
        "server",
        "--port",
        "0",
        "--metrics-port",
        "-1",
        "--log-level",
        "WARNING",
        *options,
    ]


def wait_for_address(server: Proc, timeout_s: float) -> str:
    """host:port from the server's "gRPC on host:port" start-up line."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        match = LISTEN_LINE.search(server.output())
        if match:
            return f"{match.group(1)}:{match.group(2)}"
        code = server.popen.poll()
        if code is not None:
            raise RuntimeError(
                f"the server exited with status {code} before listening:\n{server.output()}"
            )
        time.sleep(0.1)
    raise RuntimeError(f"the server did not report its address within {timeout_s:.0f} s")
