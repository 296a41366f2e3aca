"""Blood Rage's bots: ``heuristic`` (hand-written value estimates, ``policy``/``knowledge``/
``evaluate``) and ``ismcts`` (information-set Monte Carlo tree search on top of it). They read
only a seat's view (``views``), as every bot does."""

from clients.blood_rage.bots.heuristic import HeuristicBot
from clients.blood_rage.bots.ismcts import IsmctsBot

__all__ = ["HeuristicBot", "IsmctsBot"]
