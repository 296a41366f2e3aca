"""`apply` refuses any action it is not offered with an EngineError and changes nothing.

The checked path is what a client's free-form action reaches (the API converts it and asks the
engine why it is illegal), so it must hold for every four ints, not only for actions close to
legal ones: cards, areas and units that do not exist, unknown kinds, other seats.
"""

from __future__ import annotations

import random

import pytest

from engine.blood_rage import apply, awaiting, legal_actions, new_game
from engine.blood_rage.actions import Action, ActionKind, describe
from engine.blood_rage.flow import apply_unchecked
from engine.blood_rage.ids import Step
from engine.blood_rage.state import GameState
from engine.core.errors import EngineError

KINDS = [int(k) for k in ActionKind]
# Values around the ends of every table (cards, areas, units, stats) and past them.
EDGES = [0, 1, 2, 3, 8, 9, 10, 11, 12, 125, 126, 127, 128, 200, 255]


def _nearby(rng: random.Random, legal: list[Action]) -> Action:
    """A legal action with some of its numbers changed: mostly illegal, and close to legal."""
    base = rng.choice(legal)
    args = [
        x if rng.random() < 0.6 else rng.choice([*EDGES, x + 1, max(0, x - 1)]) for x in base[1:]
    ]
    return Action(base.kind, *args)


def _arbitrary(rng: random.Random) -> Action:
    kind = rng.choice([*KINDS, len(KINDS), 31])
    return Action(kind, *(rng.choice(EDGES) for _ in range(3)))


def refusals_in_random_games(games: int, probes_per_decision: int, seed: int) -> int:
    """Play random games; before each decision, try actions that are not on offer. Returns how
    many were refused (every one is checked)."""
    rng = random.Random(seed)
    refused = 0
    for game in range(games):
        players = 2 + game % 4
        state: GameState = new_game(players, seed * 1000 + game)
        while state.step != Step.GAME_OVER:
            seat = rng.choice(awaiting(state))
            legal = legal_actions(state, seat)
            before = state.state_hash()
            for _ in range(probes_per_decision):
                actor = seat if rng.random() < 0.85 else rng.randrange(players)
                action = _nearby(rng, legal) if rng.random() < 0.5 else _arbitrary(rng)
                if action in legal_actions(state, actor):
                    continue  # on offer (to another seat too, in a simultaneous step)
                probe = state.copy()
                with pytest.raises(EngineError) as caught:
                    apply(probe, actor, action)
                assert str(caught.value), action
                assert probe.state_hash() == before, (action, str(caught.value))
                refused += 1
            apply_unchecked(state, seat, rng.choice(legal))
    return refused


def test_every_action_not_on_offer_is_refused_cleanly() -> None:
    assert refusals_in_random_games(games=16, probes_per_decision=4, seed=11) > 5_000


@pytest.mark.slow
def test_every_action_not_on_offer_is_refused_cleanly_long() -> None:
    assert refusals_in_random_games(games=400, probes_per_decision=8, seed=12) > 200_000


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (Action(ActionKind.LATE_CARD, 255), "play no card #255 late"),
        (Action(ActionKind.MARCH, 200, 1, 40), "march no unit 40 no area 200 -> Myrkulor"),
        (Action(ActionKind.RAISE_STAT, 7), "raise no stat 7"),
        (Action(40, 1, 2, 3), "unknown action kind 40 (1, 2, 3)"),
    ],
)
def test_describe_names_numbers_that_name_nothing(action: Action, text: str) -> None:
    assert describe(action) == text
