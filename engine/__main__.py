"""Play one random game of a registered game and print its scores:
``python -m engine demo --game blood_rage --players 4 --seed 1``. (Replays of a server's games
are not this module's: ``yggdrasil replay GAME --verify`` writes and checks one, ``python -m
server.replay FILE`` checks a saved one.)"""

from __future__ import annotations

import argparse
import sys
import time

from engine import registry
from engine.core.errors import OptionsError
from engine.core.playout import random_playout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="play one random game and print the scores")
    demo.add_argument("--game", default=registry.DEFAULT, choices=[g.name for g in registry.GAMES])
    demo.add_argument("--players", type=int, default=4)
    demo.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rules = registry.rules(args.game)
    try:
        options = rules.options(args.players, args.seed, {})
    except OptionsError as exc:
        parser.error(str(exc))
    started = time.perf_counter()
    playout = random_playout(rules, options)
    elapsed = time.perf_counter() - started
    r = rules.result(playout.state)
    assert r is not None
    print(
        f"{rules.title}, {args.players} players, seed {args.seed}: "
        f"{len(playout.log)} decisions in {elapsed * 1000:.1f} ms"
    )
    for seat in sorted(range(args.players), key=lambda s: r.ranks[s]):
        mark = "  winner" if seat in r.winners else ""
        print(
            f"  {r.ranks[seat]}. seat {seat} ({rules.seat_label(seat)}): "
            f"{r.scores[seat]} {rules.score_name}{mark}"
        )
    print(f"state hash {playout.state.state_hash()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
