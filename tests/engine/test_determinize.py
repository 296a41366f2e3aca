"""Determinization keeps everything a seat can see, and really resamples the rest."""

from __future__ import annotations

import json
import random

from engine.blood_rage import awaiting, legal_actions, new_game
from engine.blood_rage.cards import CardType, card_of
from engine.blood_rage.determinize import determinize
from engine.blood_rage.flow import apply_unchecked
from engine.blood_rage.ids import Step
from engine.blood_rage.view import view
from tests.engine.invariants import check_invariants


def test_determinized_states_look_the_same_to_the_seat_and_stay_playable() -> None:
    rng = random.Random(4)
    changed = possible = 0
    for seed in range(12):
        state = new_game(4, seed)
        for _ in range(rng.randrange(0, 300)):
            if state.step == Step.GAME_OVER:
                break
            seat = rng.choice(awaiting(state))
            apply_unchecked(state, seat, rng.choice(legal_actions(state, seat)))
        for seat in range(4):
            guess = determinize(state, seat, random.Random(seed * 10 + seat))
            check_invariants(guess)
            assert json.dumps(view(guess, seat), sort_keys=True) == json.dumps(
                view(state, seat), sort_keys=True
            )
            for other in range(4):
                assert all(card_of(q).type == CardType.QUEST for q in guess.clans[other].quests)
            hidden = sum(len(d) for d in state.decks) + sum(
                len(state.clans[o].hand) for o in range(4) if o != seat
            )
            if hidden >= 8:  # enough hidden cards that a resample must differ
                possible += 1
                if (
                    any(guess.clans[o].hand != state.clans[o].hand for o in range(4) if o != seat)
                    or guess.decks != state.decks
                ):
                    changed += 1
            # The guess plays on to the end.
            while guess.step != Step.GAME_OVER:
                s = awaiting(guess)[0]
                apply_unchecked(guess, s, rng.choice(legal_actions(guess, s)))
    assert possible >= 20 and changed >= possible - 1


def test_redacted_snapshot_rebuilds_consistent_states() -> None:
    from engine.blood_rage.determinize import HIDDEN_CHOICE, redacted_snapshot, sample_from_redacted
    from engine.blood_rage.snapshot import to_snapshot

    rng = random.Random(8)
    marked = 0
    for seed in range(10):
        state = new_game(3 + seed % 3, seed)
        for _ in range(rng.randrange(0, 400)):
            if state.step == Step.GAME_OVER:
                break
            seat = rng.choice(awaiting(state))
            apply_unchecked(state, seat, rng.choice(legal_actions(state, seat)))
        seat = seed % state.players
        redacted = json.loads(json.dumps(redacted_snapshot(state, seat)))
        text = json.dumps(redacted)
        assert redacted["seed"] == 0 and state.seed == seed
        for other in range(state.players):  # nothing secret of another seat is in it
            if other != seat:
                for card in state.clans[other].hand + state.clans[other].quests:
                    assert card not in redacted["clans"][other]["hand"]
                kept = state.clans[other].kept  # that there is one is public, not which
                assert redacted["clans"][other]["kept"] == (-1 if kept < 0 else HIDDEN_CHOICE)
                marked += kept >= 0
        assert json.dumps(to_snapshot(state)["decks"]) not in text or not any(state.decks)
        guess = sample_from_redacted(redacted, random.Random(seed))
        check_invariants(guess)
        assert json.dumps(view(guess, seat), sort_keys=True) == json.dumps(
            view(state, seat), sort_keys=True
        )
        assert legal_actions(guess, seat) == legal_actions(state, seat)
    assert marked, "some other seat held a kept card in one of the positions"
