"""The floor of the SubmitAction/no-op ratio: the server bench against a server whose
SubmitAction does none of the game's work (it answers the next state version at once).

What the real server's ratio loses beyond this floor is the decision's own work (token check,
engine, events, bookkeeping); see ``docs/performance.md``. Not part of ``make bench``:

    .venv/bin/python -m bench.floor
"""

from __future__ import annotations

import asyncio
import os

from bench.server_bench import ServerProcess, _measure


def main() -> None:
    seconds = float(os.environ.get("BENCH_SECONDS", "5"))
    server = ServerProcess(["--store", "memory"], module="bench.floor_server")
    try:
        ping, submit = asyncio.run(_measure(server, 16, seconds))
    finally:
        server.stop()
    for name, figures in (("no-op Ping", ping), ("empty SubmitAction", submit)):
        print(
            f"  {name + ' / s':<24}{figures.per_s:9,.0f}   "
            f"server CPU {figures.server_us_per_call:,.0f} us/call"
        )
    print(f"  ratio                   {submit.per_s / ping.per_s:9.2f}x")


if __name__ == "__main__":
    main()
