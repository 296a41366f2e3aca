"""Random legal playouts: the demo, the benchmark and the property tests drive games with it."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engine.blood_rage.actions import Action
from engine.blood_rage.flow import apply_unchecked, awaiting, legal_actions
from engine.blood_rage.ids import Step
from engine.blood_rage.setup import new_game
from engine.blood_rage.state import GameState
from engine.core.rng import SplitMix64


@dataclass
class Playout:
    state: GameState
    log: list[tuple[int, Action]] = field(default_factory=list)


def random_game(
    players: int, seed: int, chooser_seed: int | None = None, max_actions: int = 20_000
) -> Playout:
    """Play a whole game choosing uniformly among legal actions."""
    rng = random.Random(seed if chooser_seed is None else chooser_seed)
    state = new_game(players, seed)
    log: list[tuple[int, Action]] = []
    while state.step != Step.GAME_OVER:
        seat = awaiting(state)[0]
        actions = legal_actions(state, seat)
        action = actions[rng.randrange(len(actions))]
        apply_unchecked(state, seat, action)
        log.append((seat, action))
        if len(log) > max_actions:
            raise RuntimeError(f"game did not end after {max_actions} actions")
    return Playout(state, log)


def play_random(players: int, seed: int) -> int:
    """One complete game with uniform random choices, returning its number of decisions: the
    game of the speed benchmarks (``bench.random_games``). The choices come from the engine's
    own generator, ``SplitMix64(seed)``, so with the compiled build (``make accel``) no
    interpreted code runs between two decisions."""
    chooser = SplitMix64(seed)
    state = new_game(players, seed)
    decisions = 0
    over = int(Step.GAME_OVER)
    while state.step != over:
        seat = awaiting(state)[0]
        actions = legal_actions(state, seat)
        apply_unchecked(state, seat, actions[chooser.below(len(actions))])
        decisions += 1
    return decisions
