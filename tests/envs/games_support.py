"""Positions for the environment tests: states along random games of any registered game."""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine.core.contract import State
from envs.games import GameSpec


def positions(
    game: GameSpec, players: int, seed: int, every: int = 1
) -> Iterator[tuple[State, list[int]]]:
    """Every ``every``-th position of a random game (and its last), with the seats awaited."""
    rules = game.rules
    state = rules.new_game(rules.options(players, seed, {}))
    rng = random.Random(seed)
    step = 0
    while True:
        waiting = rules.awaiting(state)
        if step % every == 0 or not waiting:
            yield state, waiting
        if not waiting:
            return
        seat = waiting[rng.randrange(len(waiting))]
        legal = rules.legal_actions(state, seat)
        rules.apply_unchecked(state, seat, legal[rng.randrange(len(legal))])
        step += 1
