"""The environments pass the field's own conformance checks: PettingZoo's ``api_test``,
``parallel_api_test``, ``seed_test`` and ``parallel_seed_test``, OpenSpiel's
``random_sim_test`` with serialization (each plays whole games)."""

from __future__ import annotations

import warnings

import pyspiel
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import envs.openspiel
from envs.aec import env
from envs.parallel import parallel_env

# What api_test says of every environment whose observation is the dict of an observation
# and an action mask (its own classic games are on a list that silences it).
_DICT_OBSERVATION_NOTES = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)


def _notes(caught: list[warnings.WarningMessage]) -> list[str]:
    return sorted(
        {str(w.message) for w in caught if not str(w.message).startswith(_DICT_OBSERVATION_NOTES)}
    )


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_aec_environment_passes_pettingzoos_api_test(players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env("blood_rage", players), num_cycles=2000)
    assert _notes(caught) == []


@pytest.mark.parametrize("players", [2, 4])
def test_the_parallel_environment_passes_pettingzoos_parallel_api_test(players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        e = parallel_env("blood_rage", players)
        parallel_api_test(e, num_cycles=5000)
    assert _notes(caught) == []
    assert e.agents == [], "the game was played to its end"


@pytest.mark.parametrize("reward", ["win", "rank", "score"])
def test_the_aec_environment_passes_pettingzoos_seed_test(reward: str) -> None:
    seed_test(lambda: env("blood_rage", 4, reward=reward), num_cycles=2000)


def test_the_parallel_environment_passes_pettingzoos_parallel_seed_test() -> None:
    # The seed test samples actions without the mask: illegal ones take the default decision.
    parallel_seed_test(
        lambda: parallel_env("blood_rage", 4, illegal_action="default"), num_cycles=2000
    )


@pytest.mark.parametrize(("players", "reward"), [(2, "win"), (3, "rank"), (4, "win"), (5, "score")])
def test_the_openspiel_game_passes_random_sim_test_with_serialization(
    players: int, reward: str
) -> None:
    game = pyspiel.load_game(
        envs.openspiel.short_name("blood_rage"), {"players": players, "reward": reward}
    )
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_the_openspiel_game_is_the_engines() -> None:
    game = pyspiel.load_game("yggdrasil_blood_rage", {"players": 3, "deals": 100})
    kind = game.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.CONSTANT_SUM
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert len(state.chance_outcomes()) == 100
    state.apply_action(7)
    seen = set()
    while not state.is_terminal():
        player = state.current_player()
        if player == pyspiel.PlayerId.SIMULTANEOUS:
            seen.add("simultaneous")
            state.apply_actions([state.legal_actions(p)[0] for p in range(3)])
        else:
            seen.add("sequential")
            state.apply_action(state.legal_actions()[0])
    assert seen == {"simultaneous", "sequential"}
    returns = state.returns()
    assert sum(returns) == pytest.approx(1.0)
    assert state.information_state_string(0) != state.information_state_string(1)
    assert len(state.information_state_tensor(0)) == 2 * len(state.observation_tensor(0))
