"""The action mask of an awaited seat is exactly the rules' legal list in catalogue indices;
a seat with nothing to decide has only the no-op; an action outside the mask changes
nothing."""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs.aec import env
from envs.games import available, spec
from envs.parallel import parallel_env
from envs.table import IllegalIndex, Table
from tests.envs.games_support import positions


@pytest.mark.parametrize("game", available())
@pytest.mark.parametrize(("players", "seed"), [(2, 31), (3, 32), (4, 33), (5, 34)])
def test_the_mask_is_the_rules_legal_list(game: str, players: int, seed: int) -> None:
    g = spec(game)
    table = Table(g, players)
    noop = table.noop
    for state, waiting in positions(g, players, seed):
        table.state = state
        table._forget()
        for seat in range(players):
            mask = table.mask(seat)
            assert mask.shape == (g.encoding.num_actions + 1,) and mask.dtype == np.int8
            legal = g.rules.legal_actions(state, seat)
            if seat in waiting:
                assert legal
                decoded = [g.encoding.action_at(i) for i in np.flatnonzero(mask)]
                assert sorted(decoded) == sorted(legal) and len(set(legal)) == len(legal)
                assert mask[noop] == 0
            else:
                assert not legal and np.flatnonzero(mask).tolist() == [noop]


def test_the_catalogue_is_one_to_one() -> None:
    enc = spec().encoding
    for i in range(enc.num_actions):
        assert enc.action_index(enc.action_at(i)) == i
    codes = {enc.action_at(i).code() for i in range(enc.num_actions)}
    assert len(codes) == enc.num_actions
    with pytest.raises(IndexError):
        enc.action_at(enc.num_actions)


def test_the_aec_environment_masks_only_the_selected_seats_legal_actions() -> None:
    e = env("blood_rage", 3)
    e.reset(seed=4)
    rng = random.Random(4)
    rules = e.table.rules
    for agent in e.agent_iter():
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        seat = int(agent.split("_")[1])
        assert seat == rules.awaiting(e.table.state)[0]
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) == len(rules.legal_actions(e.table.state, seat))
        e.step(int(legal[rng.randrange(len(legal))]))


def test_an_action_outside_the_mask_is_refused_and_changes_nothing() -> None:
    e = env("blood_rage", 4)
    e.reset(seed=9)
    agent = e.agent_selection
    before = e.table.state.state_hash()
    obs = e.observe(agent)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalIndex, match="not legal"):
        e.step(illegal)
    with pytest.raises(ValueError, match="must act"):
        e.step(None)
    assert e.table.state.state_hash() == before and e.agent_selection == agent
    lenient = env("blood_rage", 4, illegal_action="default")
    lenient.reset(seed=9)
    lenient.step(illegal)
    assert lenient.infos[agent] == {"illegal_action": illegal}
    assert lenient.table.decisions == 1


def test_a_parallel_step_checks_every_action_before_applying_any() -> None:
    e = parallel_env("blood_rage", 4)
    observations, _ = e.reset(seed=3)
    assert e.table.simultaneous(), "the game starts with the draft: every seat picks"
    actions = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
    bad = dict(actions, player_3=e.table.noop)
    before = e.table.state.state_hash()
    with pytest.raises(IllegalIndex, match="player_3"):
        e.step(bad)
    assert e.table.state.state_hash() == before
    e.step(actions)
    assert e.table.decisions == 4, "all four secret picks in one step"


def test_seats_with_nothing_to_decide_send_the_noop_in_a_parallel_step() -> None:
    e = parallel_env("blood_rage", 3)
    observations, _ = e.reset(seed=5)
    rng = random.Random(5)
    sequential = 0
    while e.agents:
        waiting = e.table.awaiting()
        actions = {}
        for agent, o in observations.items():
            legal = np.flatnonzero(o["action_mask"])
            if int(agent.split("_")[1]) not in waiting:
                assert legal.tolist() == [e.table.noop]
            actions[agent] = int(legal[rng.randrange(len(legal))])
        sequential += len(waiting) == 1
        observations, rewards, terminations, _, _ = e.step(actions)
    assert sequential > 20
    assert all(terminations.values()) and sum(rewards.values()) == pytest.approx(1.0)
