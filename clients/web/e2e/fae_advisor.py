"""The browser test's advice for a Fire & Axe seat: what the heuristic bot would choose.

The end-to-end test plays a whole game in the browser as a person would, by clicking; to
make that game go somewhere in a few hundred decisions it asks, for each of its decisions,
which of the legal actions the heuristic bot (``clients.fire_and_axe.bots``) would take,
given the seat's own view (its redacted engine state: nothing the seat may not see). One JSON
object per line in ({"viewer", "engine_state", "codes"}), one index per line out."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from clients.fire_and_axe.bots.heuristic import HeuristicBot


def main() -> None:
    bot = HeuristicBot()
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
