"""Complete random 4-player games per second, in this process: ``bench.accel_bench`` runs it
twice, interpreted and through ``scripts/accel.py`` (the mypyc build), and compares.

    python -m bench.random_games --games 100          # prints one JSON line

Two drivers of the same games (a uniform legal choice at each of the first awaited seat's
decisions): ``engine`` is ``engine.blood_rage.playout.play_random`` (the whole game in the
engine, compiled with it, choices from the engine's own generator); ``bench`` is
``bench.engine_bench``'s loop (this module's Python between two decisions, choices from
``random.Random``), the measure the figures before this one were taken with. Both builds play
exactly the same games. Games per second
are per second of this process's CPU time: on a machine shared with other work, wall time
measures the other work as much as this.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from bench.engine_bench import _play
from engine.blood_rage.playout import play_random

DRIVERS = ("engine", "bench")


def run(games: int, first_seed: int = 0, driver: str = "engine") -> dict[str, float]:
    decisions = 0
    wall = time.perf_counter()
    started = time.process_time()
    for seed in range(first_seed, first_seed + games):
        if driver == "engine":
            decisions += play_random(4, seed)
        else:
            decisions += len(_play(seed)[1])
    elapsed = time.process_time() - started
    return {
        "games": games,
        "cpu_seconds": elapsed,
        "wall_seconds": time.perf_counter() - wall,
        "games_per_s": games / elapsed,
        "decisions": decisions,
        "decisions_per_s": decisions / elapsed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.random_games")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--driver", choices=DRIVERS, default="engine")
    parser.add_argument(
        "--serve",
        action="store_true",
        help="answer requests 'GAMES FIRST_SEED DRIVER' read line by line from stdin",
    )
    args = parser.parse_args(argv)
    if args.serve:
        for line in sys.stdin:
            games, first_seed, driver = line.split()
            print(json.dumps(run(int(games), int(first_seed), driver)), flush=True)
        return 0
    print(json.dumps(run(args.games, args.first_seed, args.driver)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
