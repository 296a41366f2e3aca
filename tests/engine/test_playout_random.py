"""``playout.play_random``, the game the speed benchmarks play (``bench.random_games``): a
whole game from the set-up to its end, each decision chosen by the engine's own
``SplitMix64(seed)`` among the legal actions of the first seat awaited, and the number of
decisions it took. The benchmarks compare runs by that number, so it must be the game's."""

from __future__ import annotations

import pytest

from engine.blood_rage.flow import apply, awaiting, legal_actions
from engine.blood_rage.ids import Step
from engine.blood_rage.playout import play_random
from engine.blood_rage.setup import new_game
from engine.core.rng import SplitMix64


def _replayed(players: int, seed: int) -> int:
    """The same game played through the checked ``apply``: its number of decisions."""
    chooser = SplitMix64(seed)
    state = new_game(players, seed)
    decisions = 0
    while state.step != Step.GAME_OVER:
        seat = awaiting(state)[0]
        actions = legal_actions(state, seat)
        assert actions, f"seat {seat} is awaited with no legal action"
        apply(state, seat, actions[chooser.below(len(actions))])
        decisions += 1
    return decisions


@pytest.mark.parametrize(("players", "seed"), [(2, 11), (3, 5), (5, 8)])
def test_play_random_counts_the_decisions_of_the_whole_game(players: int, seed: int) -> None:
    played = play_random(players, seed)
    # Three drafts alone take 6 picks per seat each.
    assert played > 3 * 6 * players
    assert played == _replayed(players, seed)
