"""Choices made in secret stay secret in determinization and redacted snapshots: another
seat's battle card chosen but not revealed, another seat's card kept for the next Age.

The secret card here is the Troll, card instance 0 (an upgrade card may be played as a
battle card and kept like any card), so that a test for "a card was chosen" written as
``> 0`` instead of ``>= 0`` shows."""

from __future__ import annotations

import json
import random

from engine.blood_rage.actions import Action, ActionKind
from engine.blood_rage.cards import CardType, card_of
from engine.blood_rage.determinize import (
    HIDDEN_CHOICE,
    determinize,
    redacted_snapshot,
    sample_from_redacted,
)
from engine.blood_rage.flow import apply, awaiting
from engine.blood_rage.ids import Area, Step
from engine.blood_rage.scenario import from_scenario
from engine.blood_rage.state import GameState

TROLL = 0  # card instance 0
NOT_CHOSEN = -1


def _battle_with_a_secret_troll() -> GameState:
    """Seat 1 has committed the Troll card as its battle card; seat 0 still chooses."""
    state = from_scenario(
        {
            "players": 3,
            "clans": [
                {"hand": ["tyrs_bash_1", "tyrs_smash_1"], "figures": {"Elvagar": ["leader"]}},
                {"hand": ["troll", "tyrs_crush_2"], "figures": {"Elvagar": ["warrior"]}},
                {"hand": ["thors_hammer", "lokis_trickery"]},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    while state.step == Step.CALL_TO_BATTLE:
        apply(state, awaiting(state)[0], Action(ActionKind.DECLINE))
    apply(state, 1, Action(ActionKind.BATTLE_CARD, TROLL))
    assert awaiting(state) == [0] and state.battle is not None
    assert state.battle.choice[:2] == [NOT_CHOSEN, TROLL]
    return state


def _discard_with_a_kept_troll() -> GameState:
    """Seat 1 has chosen to keep the Troll card for Age 2; seat 0 still chooses."""
    state = from_scenario(
        {
            "players": 3,
            "phase": "discard",
            "clans": [
                {"hand": ["tyrs_bash_1", "tyrs_smash_1"]},
                {"hand": ["troll", "tyrs_crush_2", "manheim"]},
                {},
            ],
        }
    )
    apply(state, 1, Action(ActionKind.KEEP_CARD, TROLL))
    assert awaiting(state) == [0] and state.keep[:2] == [NOT_CHOSEN, TROLL]
    return state


def test_a_secret_battle_card_is_hidden_from_the_others_only():
    state = _battle_with_a_secret_troll()
    mine = redacted_snapshot(state, 1)["battle"]["choice"]
    theirs = json.loads(json.dumps(redacted_snapshot(state, 0)))["battle"]["choice"]
    assert mine[:2] == [NOT_CHOSEN, TROLL]
    assert theirs[:2] == [NOT_CHOSEN, HIDDEN_CHOICE]


def test_a_kept_card_is_hidden_from_the_others_only():
    state = _discard_with_a_kept_troll()
    assert redacted_snapshot(state, 1)["keep"][:2] == [NOT_CHOSEN, TROLL]
    redacted = json.loads(json.dumps(redacted_snapshot(state, 0)))
    assert redacted["keep"][:2] == [NOT_CHOSEN, HIDDEN_CHOICE]
    assert TROLL not in redacted["clans"][1]["hand"]


def test_determinization_deals_the_secret_battle_card_again():
    state = _battle_with_a_secret_troll()
    for guesses in _both_ways(state, 0, 12):
        dealt = set()
        for guess in guesses:
            assert guess.battle is not None and not guess.battle.revealed
            choice = guess.battle.choice
            assert choice[0] == NOT_CHOSEN, "seat 0's own (open) choice is kept"
            assert choice[1] >= 0 and choice[1] not in guess.clans[0].hand
            assert choice[1] not in guess.clans[1].hand
            _no_card_twice(guess)
            dealt.add(choice[1])
        assert len(dealt) > 3, "the hidden card is dealt at random, not kept"


def test_the_chooser_keeps_its_own_secret_card():
    """From seat 1's side its Troll is known: every guess keeps it, and deals it nowhere
    else."""
    state = _battle_with_a_secret_troll()
    for guesses in _both_ways(state, 1, 6):
        for guess in guesses:
            assert guess.battle is not None and guess.battle.choice[:2] == [NOT_CHOSEN, TROLL]
            _no_card_twice(guess)


def test_revealed_battle_cards_are_not_hidden():
    """After the reveal (here seat 0 may still play Heimdall's Eye late) the cards chosen
    are public: a redacted snapshot hides none of them."""
    state = from_scenario(
        {
            "players": 3,
            "clans": [
                {"hand": ["tyrs_bash_1", "heimdalls_eye"], "figures": {"Elvagar": ["leader"]}},
                {"hand": ["troll"], "figures": {"Elvagar": ["warrior"]}},
                {},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    while state.step == Step.CALL_TO_BATTLE:
        apply(state, awaiting(state)[0], Action(ActionKind.DECLINE))
    apply(state, 1, Action(ActionKind.BATTLE_CARD, TROLL))
    bash = state.clans[0].hand[0]
    apply(state, 0, Action(ActionKind.BATTLE_CARD, bash))
    assert state.battle is not None and state.battle.revealed and awaiting(state) == [0]
    for viewer in (0, 2):
        assert redacted_snapshot(state, viewer)["battle"]["choice"] == [bash, TROLL, -2]


def _both_ways(state: GameState, seat: int, count: int) -> list[list[GameState]]:
    """``count`` guesses of the state for ``seat`` by ``determinize``, then as many from its
    redacted snapshot (``sample_from_redacted``, what a bot behind the API does)."""
    redacted = json.loads(json.dumps(redacted_snapshot(state, seat)))
    return [
        [determinize(state, seat, random.Random(seed)) for seed in range(count)],
        [sample_from_redacted(redacted, random.Random(seed)) for seed in range(count)],
    ]


def _no_card_twice(state: GameState) -> None:
    places: list[int] = [*state.unseen, *state.discard]
    for deck in state.decks:
        places += deck
    for seat, clan in enumerate(state.clans):
        places += clan.hand + clan.quests + [c for c in clan.slots if c >= 0]
        places += state.packs[seat]
    if state.battle is not None:
        if not state.battle.revealed:  # after the reveal the chosen cards are the played
            places += [c for c in state.battle.choice if c >= 0]
        for played in state.battle.played:
            places += played
    assert len(places) == len(set(places)), "a card is in two places"


def test_determinization_keeps_a_kept_card_in_its_owners_hand():
    state = _discard_with_a_kept_troll()
    for guesses in _both_ways(state, 0, 12):
        kept = set()
        for guess in guesses:
            assert guess.keep[0] == NOT_CHOSEN
            assert guess.keep[1] in guess.clans[1].hand
            kept.add(guess.keep[1])
        assert len(kept) > 3, "the kept card is one of the resampled hand, not the true one"


def test_hidden_committed_quests_are_dealt_quest_cards():
    state = from_scenario(
        {
            "players": 3,
            "clans": [{}, {"quests": ["manheim", "alfheim"], "hand": ["tyrs_bash_1"]}, {}],
        }
    )
    redacted = json.loads(json.dumps(redacted_snapshot(state, 0)))
    assert redacted["clans"][1]["quests"] == [-1, -1]
    for seed in range(8):
        guess = sample_from_redacted(redacted, random.Random(seed))
        assert [card_of(q).type for q in guess.clans[1].quests] == [CardType.QUEST] * 2
        _no_card_twice(guess)


def test_another_seats_kept_troll_stays_a_kept_card_of_its_hand():
    """In Age 2 seat 1 still holds the Troll it kept: guesses for seat 0 deal seat 1 a new
    hand and mark one of its cards kept (the Troll itself is not known to seat 0)."""
    state = from_scenario(
        {
            "players": 3,
            "age": 2,
            "clans": [{}, {"hand": ["troll", "tyrs_crush_2", "odins_tide"], "kept": "troll"}, {}],
        }
    )
    assert state.clans[1].kept == TROLL
    for guesses in _both_ways(state, 0, 12):
        kept = set()
        for guess in guesses:
            assert guess.clans[1].kept in guess.clans[1].hand
            kept.add(guess.clans[1].kept)
        assert len(kept) > 3


def test_the_hidden_choice_is_minus_3_on_the_wire():
    """A redacted snapshot travels in views (``engine_state``) to bots in any language: a
    secret choice reads -3, apart from -1 (none, or a hidden card) and -2 (nothing to play)."""
    redacted = redacted_snapshot(_battle_with_a_secret_troll(), 0)
    assert redacted["battle"]["choice"] == [NOT_CHOSEN, -3, -2]


def _revealed_battle() -> GameState:
    """After the reveal: seat 0 may still play Heimdall's Eye late (the battle waits)."""
    state = from_scenario(
        {
            "players": 3,
            "clans": [
                {"hand": ["tyrs_bash_1", "heimdalls_eye"], "figures": {"Elvagar": ["leader"]}},
                {"hand": ["troll", "tyrs_crush_2"], "figures": {"Elvagar": ["warrior"]}},
                {"hand": ["thors_hammer"]},
            ],
        }
    )
    apply(state, 0, Action(ActionKind.PILLAGE, Area.ELVAGAR))
    while state.step == Step.CALL_TO_BATTLE:
        apply(state, awaiting(state)[0], Action(ActionKind.DECLINE))
    apply(state, 1, Action(ActionKind.BATTLE_CARD, TROLL))
    apply(state, 0, Action(ActionKind.BATTLE_CARD, state.clans[0].hand[0]))
    assert state.battle is not None and state.battle.revealed
    return state


def test_guesses_after_the_reveal_keep_the_revealed_cards_where_they_are():
    """Revealed cards are public: no guess deals them again into a hand or a deck."""
    state = _revealed_battle()
    assert state.battle is not None
    played = [list(p) for p in state.battle.played]
    for guesses in _both_ways(state, 2, 6):
        for guess in guesses:
            assert guess.battle is not None and [list(p) for p in guess.battle.played] == played
            _no_card_twice(guess)


def test_guesses_deal_the_other_seats_packs_and_quests_again():
    """In the draft the other seats' packs, and their committed quests, are unknown: the
    guesses differ from the truth and from each other; the seat's own pack stays."""
    state = from_scenario(
        {"players": 3, "phase": "draft", "clans": [{}, {"quests": ["manheim"]}, {}]}
    )
    for guesses in _both_ways(state, 0, 8):
        assert all(g.packs[0] == state.packs[0] for g in guesses)
        assert len({tuple(g.packs[1]) for g in guesses}) > 3
        assert len({g.clans[1].quests[0] for g in guesses}) > 1
        for guess in guesses:
            _no_card_twice(guess)
