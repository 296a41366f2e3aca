"""A seat's view depends only on what that seat may see (blood-rage.md §11).

Changing anything hidden from a seat — other hands, packs, committed quests, unrevealed
battle cards, keep choices, deck order, unseen discards — must leave its view byte-identical.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.blood_rage import awaiting, legal_actions, new_game
from engine.blood_rage.flow import apply_unchecked
from engine.blood_rage.ids import Step
from engine.blood_rage.state import GameState
from engine.blood_rage.view import SPECTATOR, view


def advance_randomly(players: int, seed: int, steps: int) -> GameState:
    rng = random.Random(seed)
    state = new_game(players, seed)
    for _ in range(steps):
        if state.step == Step.GAME_OVER:
            break
        seat = rng.choice(awaiting(state))
        apply_unchecked(state, seat, rng.choice(legal_actions(state, seat)))
    return state


def scramble_hidden_from(state: GameState, seat: int, rng: random.Random) -> GameState:
    """Shuffle every card the seat cannot see among the places the seat cannot see."""
    s = state.copy()
    holders: list[list[int]] = [*s.decks, s.unseen]
    for other, clan in enumerate(s.clans):
        if other != seat:
            holders += [clan.hand, clan.quests, s.packs[other]]
    pool = [c for h in holders for c in h]
    b = s.battle
    hidden_choices = []
    if b is not None and not b.revealed:
        hidden_choices = [o for o in range(s.players) if o != seat and b.choice[o] >= 0]
        pool += [b.choice[o] for o in hidden_choices]
    hidden_keeps = [o for o in range(s.players) if o != seat and s.keep[o] >= 0]
    rng.shuffle(pool)
    it = iter(pool)
    for h in holders:
        h[:] = [next(it) for _ in h]
    for o in hidden_choices:
        assert b is not None
        b.choice[o] = next(it)
    for o in hidden_keeps:  # the keep choice is one of that seat's (now scrambled) hand cards
        s.keep[o] = s.clans[o].hand[0] if s.clans[o].hand else -2
    return s


def dumps(v: object) -> str:
    return json.dumps(v, sort_keys=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 5),
    seed=st.integers(0, 10**9),
    steps=st.integers(0, 400),
    viewer=st.integers(-1, 4),
)
def test_view_ignores_hidden_information(players: int, seed: int, steps: int, viewer: int) -> None:
    viewer = viewer if viewer < players else SPECTATOR
    state = advance_randomly(players, seed, steps)
    scrambled = scramble_hidden_from(state, viewer, random.Random(seed + 1))
    assert dumps(view(state, viewer, include_state=True)) == dumps(
        view(scrambled, viewer, include_state=True)
    )


def test_view_shows_own_hand_and_hides_others() -> None:
    state = new_game(4, 3)
    mine = view(state, 1)
    assert [c["instance"] for c in mine["private"]["pack"]] == state.packs[1]
    assert mine["legal_actions"] and all(a["kind"] == 0 for a in mine["legal_actions"])
    spectator = view(state, SPECTATOR)
    assert spectator["private"] is None and spectator["legal_actions"] == []
    text = dumps(spectator)
    for seat in range(4):
        for card in state.packs[seat]:
            assert f'"instance": {card}' not in text


def test_pick_is_secret_until_revealed() -> None:
    state = new_game(3, 9)
    before_other = dumps(view(state, 1))
    pick = legal_actions(state, 0)[3]
    apply_unchecked(state, 0, pick)
    after_other = json.loads(dumps(view(state, 1)))
    assert after_other["committed"] == [0]
    assert f'"instance": {pick[1]}' not in dumps(after_other)
    assert json.loads(before_other)["committed"] == []
    assert any(c["instance"] == pick[1] for c in view(state, 0)["private"]["hand"])


def test_pending_picks_are_the_cards_taken_this_round_until_the_packs_move() -> None:
    from engine.blood_rage.actions import Action, ActionKind

    state = new_game(2, 3)  # two players take 2 cards a round
    first, second = state.packs[0][:2]
    for taken in ([first], [first, second]):
        apply_unchecked(state, 0, Action(ActionKind.DRAFT_PICK, taken[-1]))
        assert [c["instance"] for c in view(state, 0)["private"]["pending_picks"]] == taken
    assert view(state, 1)["private"]["pending_picks"] == []
    assert view(state, SPECTATOR)["private"] is None
    for card in state.packs[1][:2]:
        apply_unchecked(state, 1, Action(ActionKind.DRAFT_PICK, card))
    assert view(state, 0)["private"]["pending_picks"] == [], "the packs moved on"
    assert sorted(c["instance"] for c in view(state, 0)["private"]["hand"]) == sorted(
        [first, second]
    )


def test_a_march_under_way_lists_the_figures_moved_so_far() -> None:
    from engine.blood_rage.actions import Action, ActionKind
    from engine.blood_rage.ids import Area, Unit
    from engine.blood_rage.scenario import from_scenario
    from engine.blood_rage.snapshot import from_snapshot, to_snapshot

    state = from_scenario(
        {
            "players": 3,
            "phase": "action",
            "turn": 0,
            "clans": [
                {"figures": {"Elvagar": ["leader", "warrior", "warrior", "warrior"]}},
                {},
                {},
            ],
        }
    )
    apply_unchecked(state, 0, Action(ActionKind.MARCH, Area.ELVAGAR, Area.ANGERBODA, Unit.WARRIOR))
    apply_unchecked(state, 0, Action(ActionKind.MARCH_MORE, Unit.LEADER))
    apply_unchecked(state, 0, Action(ActionKind.MARCH_MORE, Unit.WARRIOR))
    assert view(state, SPECTATOR)["march_moved"] == ["warrior", "leader", "warrior"]
    restored = from_snapshot(to_snapshot(state))
    assert view(restored, SPECTATOR)["march_moved"] == ["warrior", "leader", "warrior"]
    apply_unchecked(state, 0, Action(ActionKind.MARCH_DONE))
    assert view(state, SPECTATOR)["march"] is None and view(state, SPECTATOR)["march_moved"] == []
