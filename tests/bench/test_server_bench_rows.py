"""The server bench's derived figures: ratios and the cores a target would need."""

from __future__ import annotations

import pytest

from bench.server_bench import Latencies, ServerBench


def _bench(ping_per_s: float, server_us: float, client_us: float) -> ServerBench:
    ping = Latencies(calls=int(ping_per_s), seconds=1.0, p50_ms=4.0, p99_ms=8.0)
    calls = 1000
    submit = Latencies(
        calls=calls,
        seconds=1.0,
        p50_ms=8.0,
        p99_ms=12.0,
        server_cpu_s=server_us * calls / 1e6,
        client_cpu_s=client_us * calls / 1e6,
    )
    session = Latencies(calls=2 * calls, seconds=1.0, p50_ms=2.0, p99_ms=9.0)
    return ServerBench(16, ping, submit, session, session, 18.0, 1000, "memory store")


def test_cores_at_target_adds_server_and_client_cpu_at_the_target_rate() -> None:
    # 0.8 x 3,000 calls/s x (500 + 250) us = 1.8 cores.
    assert _bench(3000, 500, 250).cores_at_target() == pytest.approx(1.8)
    assert _bench(3000, 500, 250).cores_at_target(1.0) == pytest.approx(2.25)


def test_rows_report_client_cpu_and_the_cores_needed() -> None:
    rows = {name: value for name, value, _ in _bench(3000, 500, 250).rows()}
    assert rows["client CPU / call"] == "250 us"
    assert rows["server CPU / call"] == "500 us"
    assert rows["cores busy at 0.8x the no-op rate"] == "1.80"
    assert rows["SubmitAction / no-op throughput"] == "0.33x"
