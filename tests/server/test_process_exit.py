"""``python -m server`` ends once it has stopped, whatever threads are still running: a node
whose database pool was stuck resolving a PostgreSQL that stopped with it overran its stop
grace period and was killed (exit 137) instead of ending 0 on SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The server as `python -m server` runs it, with a thread that would keep a normal interpreter
# exit waiting for ten minutes (as a thread blocked in getaddrinfo does).
_WITH_A_STUCK_THREAD = """
import runpy, sys, threading, time
threading.Thread(target=time.sleep, args=(600,), name="stuck").start()
sys.argv = ["server", "--port", "0", "--metrics-port", "-1", "--store", "memory"]
runpy.run_module("server", run_name="__main__")
"""


def test_the_server_process_ends_on_sigterm_whatever_threads_remain() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", _WITH_A_STUCK_THREAD],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # the start line names the port once it serves
            if "gRPC on" in line:
                break
        else:
            raise AssertionError(f"the server did not start (exit {proc.wait()})")
        proc.send_signal(signal.SIGTERM)
        # Far below the thread's ten minutes: a hang shows as TimeoutExpired here.
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
