"""Game-playing bots for Yggdrasil's Blood Rage.

Every bot implements ``Bot.choose(view, rng) -> index``: it decides from the seat's view dict
only (the same information the gRPC API gives that seat, asked with ``include_state=True``).
"""

from clients.bots.base import Bot, RandomBot
from clients.bots.heuristic import HeuristicBot
from clients.bots.ismcts import IsmctsBot

__all__ = ["Bot", "HeuristicBot", "IsmctsBot", "RandomBot"]
