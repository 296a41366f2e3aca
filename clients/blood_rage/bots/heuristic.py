"""A rule-based bot: scores every legal action with ``policy`` and plays the best."""

from __future__ import annotations

import random

from clients.blood_rage.bots.policy import choose
from clients.blood_rage.bots.views import redacted_state, view_actions
from clients.bots.base import View, has_state, view_seat


class HeuristicBot:
    """Plays by the hand-written value estimates of ``policy`` (fast: about a millisecond)."""

    name = "heuristic"

    def __init__(self, temperature: float = 0.0, opts: dict[str, float] | None = None) -> None:
        self.temperature = temperature
        self.opts = opts

    def choose(self, view: View, rng: random.Random) -> int:
        actions = view_actions(view)
        if len(actions) <= 1:
            return 0
        if not has_state(view):
            return rng.randrange(len(actions))
        # Hidden cards stay blanked: the policy reads only public facts and the seat's own cards.
        state = redacted_state(view)
        return choose(state, view_seat(view), actions, rng, self.temperature, self.opts)
