"""Random legal playouts of any game: the demo, benchmarks and property tests drive games
with them, through the contract only."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from engine.core.contract import Action, Rules, State

__all__ = ["Playout", "random_playout"]


@dataclass
class Playout:
    """A finished game and the decisions that led there, in order."""

    state: State
    log: list[tuple[int, Action]] = field(default_factory=list)


def random_playout(
    rules: Rules, options: Any, chooser_seed: int | None = None, max_actions: int = 50_000
) -> Playout:
    """Play a whole game choosing uniformly among the first awaited seat's legal actions
    (a ``random.Random`` seeded with ``chooser_seed``, by default the game's seed)."""
    rng = random.Random(options.seed if chooser_seed is None else chooser_seed)
    state = rules.new_game(options)
    log: list[tuple[int, Action]] = []
    while rules.result(state) is None:
        seat = rules.awaiting(state)[0]
        actions = rules.legal_actions(state, seat)
        action = actions[rng.randrange(len(actions))]
        rules.apply_unchecked(state, seat, action)
        log.append((seat, action))
        if len(log) > max_actions:
            raise RuntimeError(f"game did not end after {max_actions} actions")
    return Playout(state, log)
