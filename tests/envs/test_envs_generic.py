"""The environments are generic over the game contract: a second game that gives only its
rules and an encoding (tests/envs/toy_game.py) passes the same conformance checks, and its
observations and masks keep the same promises."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pyspiel
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import envs.openspiel
from envs.aec import env
from envs.parallel import parallel_env
from envs.table import Table
from tests.envs.games_support import positions
from tests.envs.toy_game import TOY

_DICT_NOTES = ("Observation is not a NumPy array", "Observation space for each agent probably")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_second_game_passes_the_pettingzoo_checks(players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(TOY, players), num_cycles=100)
        parallel_api_test(parallel_env(TOY, players), num_cycles=100)
    assert (
        sorted({str(w.message) for w in caught if not str(w.message).startswith(_DICT_NOTES)}) == []
    )
    seed_test(lambda: env(TOY, players), num_cycles=100)
    parallel_seed_test(lambda: parallel_env(TOY, players, illegal_action="default"))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_second_game_passes_openspiels_random_sim_test(players: int) -> None:
    name = envs.openspiel.register(TOY)
    game = pyspiel.load_game(name, {"players": players, "reward": "score"})
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_second_games_masks_and_observations_keep_the_promises(players: int) -> None:
    table = Table(TOY, players)
    for seed in range(5):
        for state, _ in positions(TOY, players, seed):
            table.state = state
            table._forget()
            for seat in range(players):
                legal = TOY.rules.legal_actions(state, seat)
                mask = np.flatnonzero(table.mask(seat)).tolist()
                expected = sorted(TOY.encoding.action_index(a) for a in legal) or [table.noop]
                assert mask == expected
                view = json.loads(json.dumps(TOY.rules.view(state, seat, include_state=True)))
                redacted = TOY.encoding.encode(TOY.encoding.seat_state(view), seat)
                assert np.array_equal(TOY.encoding.encode(state, seat), redacted)
