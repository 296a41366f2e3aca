"""Print a game's observation layout and action catalogue for people:

    python -m envs.layout blood_rage 4          # the layout as a Markdown table
    python -m envs.layout blood_rage 4 --actions  # every action index and what it does

docs/bots.md carries Blood Rage's layout for four players (tests/envs check it is current).
"""

from __future__ import annotations

import argparse
import sys

from engine import registry
from envs.games import available, spec

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m envs.layout", description=__doc__)
    parser.add_argument("game", nargs="?", default=registry.DEFAULT, choices=available())
    parser.add_argument("players", nargs="?", type=int, default=4)
    parser.add_argument("--actions", action="store_true", help="list the action catalogue")
    args = parser.parse_args(argv)
    game = spec(args.game)
    if args.actions:
        enc = game.encoding
        for index in range(enc.num_actions):
            print(f"{index}\t{game.rules.describe(enc.action_at(index))}")
        print(f"{enc.num_actions}\tno-op (a seat with nothing to decide)")
        return 0
    try:
        layout = game.encoding.layout(args.players)
    except ValueError as error:
        parser.error(str(error))
    print(layout.markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
