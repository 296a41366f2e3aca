"""``python -m engine demo --players 4 --seed 1``: play a random game and print the result.

Also ``python -m engine replay FILE`` re-plays a replay JSON offline (see engine.replay).
"""

from __future__ import annotations

import argparse
import sys
import time

from engine.ids import CLAN_NAMES
from engine.playout import random_game
from engine.results import result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="play one random game and print the scores")
    demo.add_argument("--players", type=int, default=4, choices=range(2, 6))
    demo.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.command == "demo":
        started = time.perf_counter()
        playout = random_game(args.players, args.seed)
        elapsed = time.perf_counter() - started
        r = result(playout.state)
        assert r is not None
        print(
            f"Blood Rage, {args.players} players, seed {args.seed}: "
            f"{len(playout.log)} decisions in {elapsed * 1000:.1f} ms"
        )
        for seat in sorted(range(args.players), key=lambda s: r.ranks[s]):
            mark = "  winner" if seat in r.winners else ""
            print(
                f"  {r.ranks[seat]}. seat {seat} ({CLAN_NAMES[seat]}): {r.glory[seat]} Glory{mark}"
            )
        print(f"state hash {playout.state.state_hash()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
