"""Fire & Axe's bots: ``heuristic`` (the rules of thumb of ``policy``). ``random`` is every
game's (``clients.bots.base.RandomBot``)."""
