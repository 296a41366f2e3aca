"""bench/tls_bench.py runs end to end on a tiny budget: both servers answer, each figure is
measured, and every TLS figure is given as a ratio to the plaintext one of the same run."""

from __future__ import annotations

from bench.tls_bench import measure


async def test_the_tls_bench_measures_both_sides_in_one_run() -> None:
    cost = await measure(rounds=1, seconds=0.2, connections=3)
    assert cost.calls_per_s_plain > 0 and cost.calls_per_s_tls > 0
    assert cost.connect_ms_plain > 0 and cost.connect_ms_tls > 0
    rows = cost.rows()
    assert [what for what, _, _ in rows] == [
        "GetView on an open channel",
        "a new connection and its first call",
    ]
    assert all("x the plaintext" in ratio for _, _, ratio in rows)
