"""A rule-based bot for Fire & Axe: scores every legal action with ``policy`` and plays the
best."""

from __future__ import annotations

import random

from clients.bots.base import View, has_state, view_seat
from clients.fire_and_axe.bots.policy import choose
from engine.fire_and_axe.actions import Action
from engine.fire_and_axe.snapshot import SnapshotError, from_snapshot

__all__ = ["HeuristicBot"]


class HeuristicBot:
    """Plays by the value estimates of ``policy`` on the state rebuilt from its view's
    redacted engine state (hidden cards stay blanked: it reads public facts and its own
    Runes only). Without that state, or on a data pack this process does not know, it plays
    at random."""

    name = "heuristic"

    def choose(self, view: View, rng: random.Random) -> int:
        actions = [Action.from_code(int(a["code"])) for a in view["legal_actions"]]
        if len(actions) <= 1:
            return 0
        if not has_state(view):
            return rng.randrange(len(actions))
        try:
            state = from_snapshot(view["engine_state"])
        except SnapshotError:
            return rng.randrange(len(actions))
        return choose(state, view_seat(view), actions, rng)
