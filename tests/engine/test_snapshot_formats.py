"""Snapshots of format 1 (written before the kept card, the doom's card, the march's units and
a battle's destroyed figures were kept for views and events) still restore, to the same hash."""

from __future__ import annotations

import json
import random

from engine.blood_rage import awaiting, legal_actions, new_game
from engine.blood_rage.flow import apply_unchecked
from engine.blood_rage.ids import Step
from engine.blood_rage.snapshot import FORMAT, from_snapshot, to_snapshot


def _as_format_1(data: dict) -> dict:
    old = json.loads(json.dumps(data))
    old["format"] = 1
    for clan in old["clans"]:
        del clan["kept"]
    del old["doom_card"], old["march_moved"]
    if old["battle"] is not None:
        del old["battle"]["destroyed"]
    return old


def test_format_1_snapshots_restore_with_the_same_hash_at_every_kind_of_step() -> None:
    assert FORMAT == 2
    rng = random.Random(5)
    battles = 0
    for seed in range(4):
        state = new_game(3 + seed % 3, seed)
        while state.step != Step.GAME_OVER:
            if rng.random() < 0.1 or state.battle is not None:
                restored = from_snapshot(_as_format_1(to_snapshot(state)))
                assert restored.state_hash() == state.state_hash()
                assert legal_actions(restored, awaiting(state)[0]) == legal_actions(
                    state, awaiting(state)[0]
                )
                assert all(c.kept == -1 for c in restored.clans) and restored.march_moved == []
                battles += state.battle is not None
            seat = awaiting(state)[0]
            actions = legal_actions(state, seat)
            apply_unchecked(state, seat, actions[rng.randrange(len(actions))])
    assert battles > 10
