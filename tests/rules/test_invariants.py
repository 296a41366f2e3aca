"""Rule invariants that must hold after every decision of any legal game (§2, §3, §5, §8):
village limits, Horns, fjords hold only ships, nothing in destroyed provinces, Rage never
negative, Ages and Ragnaröks in order. Games are driven by seeded random legal choices."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.blood_rage import new_game
from engine.blood_rage.actions import ActionKind
from engine.blood_rage.flow import apply, awaiting, legal_actions
from engine.blood_rage.ids import FIG_SHIP, FJORDS, NUM_AREAS, Phase, Step, Unit, monster_fig

VILLAGES = (None, 3, 4, 5, 5, 4, 3, 3, 5)
SHIPS = {FIG_SHIP, monster_fig(Unit.SEA_SERPENT)}
SETUP_DESTROYED = {2: 3, 3: 2, 4: 1, 5: 0}


def check(state, players: int, last_age: int) -> None:
    counted = [0] * NUM_AREAS
    for clan in state.clans:
        on_board = 0
        for fig, where in enumerate(clan.loc):
            if where < NUM_AREAS:
                on_board += 1
                counted[where] += 1
                if where in FJORDS:
                    assert fig in SHIPS, "fjords hold only ships"
                else:
                    assert fig not in SHIPS, "ships stay in fjords"
                    assert not state.destroyed[where], "nothing stands in a destroyed province"
        assert on_board <= clan.horns, "Horns caps the figures on the board"
        assert clan.rage >= 0
        assert all(0 <= s <= 5 for s in clan.steps)
    assert counted == list(state.occupancy)
    for p in range(1, 9):
        assert counted[p] <= VILLAGES[p], "a village holds one figure"
    assert not state.destroyed[0]
    ragnaroks_done = state.age - 1 + (1 if state.phase > Phase.RAGNAROK else 0)
    if state.step == Step.GAME_OVER:
        ragnaroks_done = 3
    assert sum(state.destroyed) == SETUP_DESTROYED[players] + ragnaroks_done
    assert state.age >= last_age


def play(players: int, seed: int, chooser: int) -> int:
    rng = random.Random(chooser)
    state = new_game(players, seed)
    moves = 0
    last_age = 1
    while state.step != Step.GAME_OVER:
        seat = awaiting(state)[0]
        legal = legal_actions(state, seat)
        assert legal, "an awaited seat always has a legal action"
        options = [a for a in legal if a.kind != ActionKind.PASS] or legal
        if rng.random() < 0.05:
            options = legal
        apply(state, seat, rng.choice(options))
        check(state, players, last_age)
        last_age = state.age
        moves += 1
        assert moves < 20_000
    return moves


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(min_value=2, max_value=5),
    seed=st.integers(min_value=0, max_value=2**32),
    chooser=st.integers(min_value=0, max_value=2**16),
)
def test_random_legal_games_keep_the_rule_invariants(players, seed, chooser):
    assert play(players, seed, chooser) > 0
