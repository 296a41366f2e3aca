"""``make bench``: run the benchmarks and print one table (``--json`` for machines).

Every figure is reported with a baseline measured in the same run: the engine against a
calibration loop and ``copy.deepcopy``, the compiled engine against the interpreted one, the
learning environments' steps against the raw engine's decisions, SubmitAction and
PlaySession decisions against a no-op RPC on the same server, tournaments over PlaySession
against the same over unary calls, a game's decisions with a thousand spectators against the
same game with none.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from bench import (
    accel_bench,
    crowd_bench,
    durability_bench,
    engine_bench,
    envs_bench,
    scale_bench,
    server_bench,
    tournament_bench,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--games", type=int, default=200, help="random 4-player games to play")
    parser.add_argument("--seconds", type=float, default=5.0, help="per server load phase")
    parser.add_argument("--in-flight", type=int, default=16, help="concurrent server calls")
    parser.add_argument("--idle-games", type=int, default=1000, help="games for the memory figure")
    parser.add_argument(
        "--only",
        choices=["engine", "accel", "envs", "server", "crowd", "tournament", "durability", "scale"],
        help="run one part only (scale: only when asked for)",
    )
    parser.add_argument("--scale-games", type=int, default=100_000, help="games of the scale run")
    parser.add_argument(
        "--sessions", type=int, default=1000, help="PlaySession sessions of the scale run"
    )
    parser.add_argument(
        "--scale-parts",
        default="sessions,idle,sqlite,postgres",
        help="parts of the scale run, comma separated",
    )
    parser.add_argument(
        "--restore-games", type=int, default=10_000, help="unfinished games to restore"
    )
    parser.add_argument(
        "--eager",
        action="store_true",
        help="the scale run's restarts also with --restore eager, for comparison",
    )
    parser.add_argument(
        "--accel-games", type=int, default=100, help="random games per build per round (accel)"
    )
    parser.add_argument(
        "--env-games", type=int, default=20, help="random games per kind per round (envs)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {}
    tables: list[tuple[str, list[tuple[str, str, str]]]] = []
    if args.only in (None, "engine"):
        engine = engine_bench.run(args.games)
        results["engine"] = asdict(engine)
        tables.append(("engine (one core)", engine.rows()))
    if args.only in (None, "accel"):
        accel = accel_bench.run(args.accel_games)
        results["accel"] = {
            "per_s": {
                f"{d}/{'compiled' if c else 'interpreted'}": v for (d, c), v in accel.per_s.items()
            },
            "ratio": accel.ratio(),
        }
        tables.append(("the compiled engine (make accel) against the interpreted", accel.rows()))
    if args.only in (None, "envs"):
        envs = envs_bench.run(args.env_games)
        results["envs"] = asdict(envs)
        tables.append(("learning environments against the raw engine (one core)", envs.rows()))
    if args.only in (None, "server"):
        server = server_bench.run(
            args.in_flight,
            args.seconds,
            args.idle_games,
            ["--store", "memory"],
            server_bench.MEMORY_STORE,
        )
        results["server"] = asdict(server)
        tables.append(("server (separate process, loopback, memory store)", server.rows()))
        durable = server_bench.run(
            args.in_flight, args.seconds, args.idle_games, [], "SQLite, fsync"
        )
        results["server_durable"] = asdict(durable)
        tables.append(("server (separate process, loopback, SQLite store)", durable.rows()))
        stores = server_bench.compare_stores(args.in_flight, args.seconds)
        results["stores"] = asdict(stores)
        tables.append(("SQLite against memory (two servers, alternated)", stores.rows()))
    if args.only in (None, "crowd"):
        crowd = crowd_bench.run()
        results["crowd"] = asdict(crowd)
        tables.append(("spectators and memory (server in its own process)", crowd.rows()))
    if args.only in (None, "tournament"):
        tournament = tournament_bench.run()
        results["tournament"] = asdict(tournament)
        tables.append(("tournaments (random bots, server in its own process)", tournament.rows()))
    if args.only in (None, "durability"):
        restore = durability_bench.run(
            restore_games=args.restore_games,
            submit_seconds=args.seconds,
            in_flight=args.in_flight,
        )
        results["durability"] = asdict(restore)
        tables.append(("durability", restore.rows()))
    if args.only == "scale":
        parts = tuple(p.strip() for p in args.scale_parts.split(",") if p.strip())
        modes = ("lazy", "eager") if args.eager else ("lazy",)
        scale = scale_bench.run(args.scale_games, args.sessions, args.seconds, parts, modes)
        results["scale"] = asdict(scale)
        tables.append(("what one node holds (servers in their own processes)", scale.rows()))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for title, rows in tables:
        print(f"== {title} ==")
        for name, value, note in rows:
            print(f"  {name:<40} {value:>12}   {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
