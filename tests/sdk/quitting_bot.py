"""An external tournament bot that plays a few decisions, then crashes (exit status 1).

``python tests/sdk/quitting_bot.py --server H:P --game ID --seat N``: the arguments the
tournament runner gives every ``cmd:`` bot.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from clients.bots.base import RandomBot
from clients.sdk import play_seat

DECISIONS_BEFORE_THE_CRASH = 5


class QuittingBot(RandomBot):
    def __init__(self) -> None:
        self.decisions = 0

    def choose(self, view: dict[str, Any], rng: random.Random) -> int:
        self.decisions += 1
        if self.decisions > DECISIONS_BEFORE_THE_CRASH:
            raise RuntimeError("the bot crashed")
        return super().choose(view, rng)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--game", required=True)
    parser.add_argument("--seat", type=int, required=True)
    args = parser.parse_args()
    asyncio.run(play_seat(args.server, args.game, QuittingBot(), seat=args.seat))


if __name__ == "__main__":
    main()
