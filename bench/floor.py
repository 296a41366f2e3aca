"""Floors of the SubmitAction/no-op ratio: the server bench against servers whose
SubmitAction does less than the real one (``bench/floor_server.py``):

- **empty**: none of the game's work (it answers the next state version at once): what gRPC
  and the interceptors allow;
- **engine**: token check, lock, legal list, copy and apply only: what any server running
  these rules in Python must spend, with no events or bookkeeping at all;
- **lean**: the engine floor plus the least bookkeeping the API asks for (idempotency digest,
  the action's own event for the answer and the watchers, the action counter, a log call).

What the real server's ratio loses beyond these is its own work (events, log, metrics);
see ``docs/performance.md``. Not part of ``make bench``:

    .venv/bin/python -m bench.floor
"""

from __future__ import annotations

import asyncio
import os

from bench.server_bench import ServerProcess, _measure


def main() -> None:
    seconds = float(os.environ.get("BENCH_SECONDS", "5"))
    for floor in ("empty", "engine", "lean"):
        os.environ["YGG_FLOOR"] = floor  # read by the server process
        server = ServerProcess(["--store", "memory"], module="bench.floor_server")
        try:
            measured = asyncio.run(_measure(server, 16, seconds, session_counts=()))
            ping, submit = measured.ping, measured.submit
        finally:
            server.stop()
        for name, figures in (("no-op Ping", ping), (f"{floor} SubmitAction", submit)):
            print(
                f"  {name + ' / s':<26}{figures.per_s:9,.0f}   "
                f"server CPU {figures.server_us_per_call:,.0f} us/call"
            )
        print(f"  ratio ({floor})            {submit.per_s / ping.per_s:9.2f}x")


if __name__ == "__main__":
    main()
