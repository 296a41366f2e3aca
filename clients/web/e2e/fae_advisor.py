"""The browser test's advice for a Fire & Axe seat: what the heuristic bot would choose.

The end-to-end test plays a whole game in the browser as a person would, by clicking; to
make that game go somewhere in a few hundred decisions it asks, for each of its decisions,
which of the legal actions the game's heuristic bot (through ``clients.games.make_bot``, the
client kits' registry, so no game folder is imported here) would take,
given the seat's own view (its redacted engine state: nothing the seat may not see). One JSON
object per line in ({"viewer", "engine_state", "codes"}), one index per line out."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from clients.games import make_bot


def main() -> None:
    bot = make_bot("heuristic", "fire_and_axe")
    rng = random.Random(7)
    for line in sys.stdin:
        asked = json.loads(line)
        view = {
            "viewer": asked["viewer"],
            "engine_state": asked["engine_state"],
            "legal_actions": [{"code": code} for code in asked["codes"]],
        }
        print(bot.choose(view, rng), flush=True)


if __name__ == "__main__":
    main()
