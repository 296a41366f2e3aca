"""Blood Rage's bots: ``heuristic`` (hand-written value estimates, ``policy``/``knowledge``/
``evaluate``), ``ismcts`` (information-set Monte Carlo tree search on top of it) and ``duct``
(the same search with secret simultaneous choices searched as simultaneous, and a widening
root). They read only a seat's view (``views``), as every bot does."""

from clients.blood_rage.bots.duct import DuctBot
from clients.blood_rage.bots.heuristic import HeuristicBot
from clients.blood_rage.bots.ismcts import IsmctsBot

__all__ = ["DuctBot", "HeuristicBot", "IsmctsBot"]
