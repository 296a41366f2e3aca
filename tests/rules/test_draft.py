"""§4 Gods' Gifts: deal 8, simultaneous secret picks, pass left, keep 6, last 2 unseen."""

from __future__ import annotations

from typing import Any

import pytest

from engine.blood_rage import new_game
from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.flow import apply, awaiting, is_simultaneous, legal_actions
from engine.blood_rage.ids import DraftMode, Phase, Step
from engine.blood_rage.setup import GameOptions, initial_state
from engine.blood_rage.view import view
from engine.core.errors import IllegalActionError, NotYourDecisionError

K = ActionKind


def visible_instances(v: Any) -> set[int]:
    """Every card instance a view shows (dicts with an 'instance' key, and '[#n]' labels)."""
    out: set[int] = set()
    if isinstance(v, dict):
        if "instance" in v:
            out.add(v["instance"])
        for key, x in v.items():
            if key == "label" and isinstance(x, str) and "[#" in x:
                out.add(int(x.split("[#")[1].split("]")[0]))
            out |= visible_instances(x)
    elif isinstance(v, list):
        for x in v:
            out |= visible_instances(x)
    return out


@pytest.mark.parametrize(("players", "leftover"), [(2, 4), (3, 2), (4, 2), (5, 2)])
def test_deal_eight_and_discard_the_rest_unseen(players, leftover):
    """§4: 8 cards each; the rest of the Age deck (2; 4 with 2 players) is discarded unseen."""
    before = initial_state(GameOptions(players, 21))
    deck = list(before.decks[0])
    state = new_game(players, 21)
    assert state.step == Step.DRAFT_PICK
    assert [len(p) for p in state.packs] == [8] * players
    assert all(c.hand == [] for c in state.clans)
    dealt = [c for p in state.packs for c in p]
    assert sorted(dealt + state.unseen) == sorted(deck)
    assert len(state.unseen) == leftover
    assert state.decks[0] == []
    v = view(state, 0)
    assert v["deck_sizes"][0] == 0
    assert v["unseen_count"] == leftover
    # Leftovers are seen by nobody; seat 0 sees its own pack only.
    assert visible_instances(v) == set(state.packs[0])
    assert not visible_instances(view(state)) & set(dealt + state.unseen)
    assert view(state)["private"] is None and view(state)["legal_actions"] == []


def test_pick_one_and_pass_left():
    """§4: pick 1, then pass the rest to the left: seat s's pack goes to seat s+1."""
    state = new_game(4, 8)
    old = [list(p) for p in state.packs]
    picks = {}
    for seat in range(4):
        card = legal_actions(state, seat)[-1].a
        picks[seat] = card
        apply(state, seat, Action(K.DRAFT_PICK, card))
    for seat in range(4):
        giver = (seat - 1) % 4
        expected = [c for c in old[giver] if c != picks[giver]]
        assert sorted(state.packs[seat]) == sorted(expected)
        assert state.clans[seat].hand == [picks[seat]]
    assert awaiting(state) == [0, 1, 2, 3]


def test_picks_are_simultaneous_and_secret():
    """§4/§11: until every seat has picked, nothing rotates, the picker has no further choice,
    and no other seat's view reveals the picked card."""
    state = new_game(3, 5)
    assert is_simultaneous(state)
    packs = [list(p) for p in state.packs]
    card = state.packs[0][3]
    apply(state, 0, Action(K.DRAFT_PICK, card))
    assert awaiting(state) == [1, 2]
    assert legal_actions(state, 0) == []
    assert state.packs[1] == packs[1] and state.packs[2] == packs[2]
    assert state.packs[0] == [c for c in packs[0] if c != card]
    with pytest.raises(NotYourDecisionError):
        apply(state, 0, Action(K.DRAFT_PICK, state.packs[0][0]))
    for other in (1, 2, -1):
        assert card not in visible_instances(view(state, other))
    mine = view(state, 0)
    assert [c["instance"] for c in mine["private"]["hand"]] == [card]
    assert view(state)["committed"] == [0]
    apply(state, 1, Action(K.DRAFT_PICK, state.packs[1][0]))
    assert state.packs[2] == packs[2], "no rotation before the last seat picks"
    apply(state, 2, Action(K.DRAFT_PICK, state.packs[2][0]))
    assert len(state.packs[1]) == 7 and set(state.packs[1]) < set(packs[0])


def test_cannot_pick_a_card_outside_the_pack():
    state = new_game(3, 5)
    foreign = state.packs[1][0]
    before = state.state_hash()
    with pytest.raises(IllegalActionError):
        apply(state, 0, Action(K.DRAFT_PICK, foreign))
    assert state.state_hash() == before


@pytest.mark.parametrize("players", [3, 4, 5])
def test_six_kept_and_last_two_of_each_pack_unseen(players):
    """§4: keep picking until each player has kept 6; the last 2 of each pack are discarded
    unseen; the Action phase follows."""
    state = new_game(players, 17)
    dealt = {c for p in state.packs for c in p}
    unseen_before = len(state.unseen)
    rounds = 0
    while state.step == Step.DRAFT_PICK:
        rounds += 1
        for seat in awaiting(state):
            apply(state, seat, legal_actions(state, seat)[0])
    assert rounds == 6
    hands = [c.hand for c in state.clans]
    assert all(len(h) == 6 for h in hands)
    kept = [c for h in hands for c in h]
    assert len(set(kept)) == 6 * players
    assert len(state.unseen) == unseen_before + 2 * players
    assert set(kept) | set(state.unseen[unseen_before:]) == dealt
    assert all(p == [] for p in state.packs)
    assert state.phase == Phase.ACTION


def test_two_players_pick_two_at_a_time():
    """§4 (seeds/000_3142a3a5a8184f45.txt, 2-player draft): with 2 players each keeps 2 per round
    and passes 6, then 4; after three rounds 6 are kept and the last 2 discarded."""
    state = new_game(2, 4)
    first = list(state.packs[0])
    apply(state, 0, Action(K.DRAFT_PICK, first[0]))
    assert awaiting(state) == [0, 1], "seat 0 still owes a second pick"
    assert view(state, 0)["private"]["picks_left"] == 1
    apply(state, 0, Action(K.DRAFT_PICK, first[1]))
    assert awaiting(state) == [1]
    apply(state, 1, legal_actions(state, 1)[0])
    apply(state, 1, legal_actions(state, 1)[0])
    assert sorted(state.packs[1]) == sorted(first[2:]), "the 6 left go to the opponent"
    assert [len(p) for p in state.packs] == [6, 6]
    unseen = len(state.unseen)
    while state.step == Step.DRAFT_PICK:
        for seat in awaiting(state):
            apply(state, seat, legal_actions(state, seat)[0])
    assert [len(c.hand) for c in state.clans] == [6, 6]
    assert len(state.unseen) == unseen + 4
    assert state.phase == Phase.ACTION


@pytest.mark.parametrize("players", [2, 4])
def test_no_draft_option_keeps_six_of_the_eight_dealt(players):
    """§4 option (003 'first game'): no passing; each keeps 6 of its own 8 and discards 2."""
    state = new_game(players, 9, DraftMode.NO_DRAFT)
    own = [set(p) for p in state.packs]
    unseen = len(state.unseen)
    for _ in range(6):
        assert 0 in awaiting(state)
        apply(state, 0, legal_actions(state, 0)[0])
    assert 0 not in awaiting(state)
    while state.step == Step.DRAFT_PICK:
        for seat in awaiting(state):
            apply(state, seat, legal_actions(state, seat)[0])
    for seat, clan in enumerate(state.clans):
        assert len(clan.hand) == 6
        assert set(clan.hand) <= own[seat]
    assert len(state.unseen) == unseen + 2 * players
    assert state.phase == Phase.ACTION


def test_card_kept_from_previous_age_stays_in_hand_out_of_the_draft(h):
    """§4: in Ages 2 and 3 the card kept from the previous Age stays in its owner's hand and
    takes no part in the draft; after the draft the hand holds 6 + 1 cards."""
    state = h.scenario(
        3,
        [{"hand": ["tyrs_bash", "tyrs_smite"]}, {"hand": ["lokis_domain"]}, {}],
        phase="discard",
    )
    kept = h.card(state, 0, "tyrs_smite")
    h.act(state, 0, K.KEEP_CARD, kept)
    h.act(state, 1, K.KEEP_NONE)
    assert state.age == 2
    assert state.step == Step.DRAFT_PICK
    assert state.clans[0].hand == [kept]
    assert state.clans[1].hand == []
    assert [len(p) for p in state.packs] == [8, 8, 8]
    assert kept not in {c for p in state.packs for c in p}
    assert Action(K.DRAFT_PICK, kept) not in legal_actions(state, 0)
    h.draft_all(state)
    assert kept in state.clans[0].hand
    assert [len(c.hand) for c in state.clans] == [7, 6, 6]


def test_with_two_players_a_draft_round_takes_two_picks() -> None:
    """§4 with 2 players: each round a seat keeps 2 cards of its pack, so the 6 kept take 3
    rounds, and the events number them 1, 2, 3 (the last passes no pack)."""
    state = new_game(2, 4)
    state.events = []
    while state.step == Step.DRAFT_PICK:
        for seat in awaiting(state):
            apply(state, seat, legal_actions(state, seat)[0])
    rounds = [p for _, p in state.events if p["type"] == "draft_round"]
    assert rounds == [
        {"type": "draft_round", "age": 1, "round": r, "passed": r < 3} for r in (1, 2, 3)
    ]
