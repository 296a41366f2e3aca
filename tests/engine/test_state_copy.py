"""copy.deepcopy, copy.copy and pickle of engine states, also on the compiled build.

A mypyc-compiled class (make accel) cannot be rebuilt by Python's default copy protocol (its
__new__ runs __init__ without arguments), so the state classes reduce themselves
(engine.blood_rage.state._reduction). `make test-accel` runs this file against the compiled modules.
"""

from __future__ import annotations

import copy
import pickle
import random

from engine.blood_rage.flow import apply_unchecked, awaiting, legal_actions
from engine.blood_rage.setup import new_game
from engine.blood_rage.snapshot import to_snapshot
from engine.blood_rage.state import GameState


def _in_a_battle(seed: int) -> tuple[GameState, random.Random]:
    """A 4-player game played at random until a battle is under way, recording events."""
    rng = random.Random(seed)
    state = new_game(4, seed)
    state.events = []
    while state.battle is None or not state.battle.participants:
        seat = rng.choice(awaiting(state))
        apply_unchecked(state, seat, rng.choice(legal_actions(state, seat)))
    assert state.events
    return state, rng


def _play_on(state: GameState, rng: random.Random, decisions: int) -> None:
    for _ in range(decisions):
        seats = awaiting(state)
        if not seats:
            return
        seat = rng.choice(seats)
        apply_unchecked(state, seat, rng.choice(legal_actions(state, seat)))


def test_deepcopy_is_equal_and_independent() -> None:
    state, _ = _in_a_battle(3)
    twin = copy.deepcopy(state)
    assert type(twin) is GameState and twin is not state
    assert to_snapshot(twin) == to_snapshot(state)
    assert twin.state_hash() == state.state_hash()
    assert twin.events == state.events and twin.events is not state.events
    assert twin.battle is not None and state.battle is not None
    assert twin.battle is not state.battle and twin.clans[0] is not state.clans[0]
    before = to_snapshot(state)
    # Changes to the copy, deep down, leave the original alone.
    twin.clans[0].hand.append(999)
    twin.battle.played[0].append(999)
    twin.packs[1].append(999)
    twin.events.append((-1, {"kind": "made up"}))
    assert to_snapshot(state) == before
    # Played on with the same decisions, both reach the same states.
    twin = copy.deepcopy(state)
    _play_on(state, random.Random(5), 40)
    _play_on(twin, random.Random(5), 40)
    assert twin.state_hash() == state.state_hash()


def test_deepcopy_of_the_parts_and_shared_references() -> None:
    state, _ = _in_a_battle(4)
    assert state.battle is not None
    clan = copy.deepcopy(state.clans[2])
    assert clan is not state.clans[2] and clan.seat == 2 and clan.hand == state.clans[2].hand
    battle = copy.deepcopy(state.battle)
    assert battle.province == state.battle.province and battle.played == state.battle.played
    # One deepcopy keeps what its original shared: the same list twice stays one list.
    pair = copy.deepcopy([state, state])
    assert pair[0] is pair[1]


def test_shallow_copy_shares_the_fields() -> None:
    state, _ = _in_a_battle(5)
    flat = copy.copy(state)
    assert flat is not state and to_snapshot(flat) == to_snapshot(state)
    assert flat.clans is state.clans and flat.battle is state.battle


def test_pickle_round_trip() -> None:
    state, _ = _in_a_battle(6)
    again = pickle.loads(pickle.dumps(state))
    assert to_snapshot(again) == to_snapshot(state) and again.events == state.events
    _play_on(state, random.Random(9), 30)
    _play_on(again, random.Random(9), 30)
    assert again.state_hash() == state.state_hash()
