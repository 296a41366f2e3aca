"""Every bot answers every kind of decision with a legal index, for 2 to 5 players.

Views come from games driven at random through all phases (draft, action, march, call to
battle, battle cards, discard) and the prompts card texts and rules create; each bot gets the
seat's view as the gRPC API would give it (a JSON copy, with the redacted engine state).
"""

from __future__ import annotations

import json
import random

import pytest

from clients.blood_rage.bots import HeuristicBot, IsmctsBot
from clients.bots import RandomBot
from engine.blood_rage import awaiting, legal_actions, new_game
from engine.blood_rage.flow import apply_unchecked
from engine.blood_rage.ids import Step
from engine.blood_rage.view import view


def _views(players: int, seed: int, every: int):
    """Yield (view, legal action count) along a random game, every `every` decisions."""
    rng = random.Random(seed)
    state = new_game(players, seed)
    count = 0
    while state.step != Step.GAME_OVER:
        seats = awaiting(state)
        seat = rng.choice(seats)
        actions = legal_actions(state, seat)
        if count % every == 0 or state.prompts:
            v = json.loads(json.dumps(view(state, seat, include_state=True)))
            yield v, len(actions), (Step(state.step).name, bool(state.prompts))
        apply_unchecked(state, seat, rng.choice(actions))
        count += 1


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_and_heuristic_bots_choose_legal_indexes(players: int) -> None:
    bots = [RandomBot(), HeuristicBot(), HeuristicBot(temperature=1.0)]
    rng = random.Random(players)
    seen: set[tuple[str, bool]] = set()
    for seed in range(3):
        for v, n, where in _views(players, 100 * players + seed, every=1):
            seen.add(where)
            for bot in bots:
                index = bot.choose(v, rng)
                assert isinstance(index, int) and 0 <= index < n, (bot.name, where, index, n)
    steps = {step for step, _ in seen}
    assert {"DRAFT_PICK", "ACTION", "CALL_TO_BATTLE", "BATTLE_CARDS"} <= steps
    assert any(prompt for _, prompt in seen)  # some prompt (free invade, stat, ...) was met


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_ismcts_bot_chooses_legal_indexes(players: int) -> None:
    bot = IsmctsBot(time_budget_s=0.004)
    rng = random.Random(players)
    seen: set[str] = set()
    for v, n, where in _views(players, 7 * players, every=9):
        seen.add(where[0])
        index = bot.choose(v, rng)
        assert isinstance(index, int) and 0 <= index < n, (where, index, n)
    assert {"DRAFT_PICK", "ACTION"} <= seen


def test_bots_do_not_change_the_view() -> None:
    rng = random.Random(3)
    for v, _, _ in _views(4, 42, every=23):
        before = json.dumps(v, sort_keys=True)
        for bot in (HeuristicBot(), IsmctsBot(time_budget_s=0.003)):
            bot.choose(v, rng)
            assert json.dumps(v, sort_keys=True) == before
