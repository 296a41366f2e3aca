"""Invariants every reachable state satisfies; the property tests check them after each action."""

from __future__ import annotations

from collections import Counter

from engine.blood_rage.board import FJORD_SUPPORTS, VILLAGES
from engine.blood_rage.cards import MONSTER_CARD, card_of, deck_instances
from engine.blood_rage.ids import BOX, FIG_UNIT, FJORDS, NUM_AREAS, NUM_FIGS
from engine.blood_rage.state import GameState, is_ship


def all_cards(state: GameState) -> Counter[int]:
    """Every physical card in every zone (a card counted twice or lost shows up here)."""
    zones: list[int] = []
    for d in state.decks:
        zones += d
    for p in state.packs:
        zones += p
    zones += state.discard + state.unseen
    for c in state.clans:
        zones += c.hand + c.quests + [x for x in c.slots if x >= 0]
    b = state.battle
    if b is not None:
        for played in b.played:
            zones += played
        if not b.revealed:
            zones += [x for x in b.choice if x >= 0]
    return Counter(zones)


def check_invariants(state: GameState) -> None:
    expected = Counter(i for age in (1, 2, 3) for i in deck_instances(age, state.players))
    assert all_cards(state) == expected, "cards not conserved"
    occupancy = [0] * NUM_AREAS
    for c in state.clans:
        assert c.rage >= 0, "negative Rage"
        assert c.on_board() <= c.horns, "more figures on the board than Horns"
        for fig in range(NUM_FIGS):
            where = c.loc[fig]
            if where < NUM_AREAS:
                occupancy[where] += 1
                if where in FJORDS:
                    assert is_ship(fig), "a non-ship in a fjord"
                    a, b = FJORD_SUPPORTS[where]
                    assert not (state.destroyed[a] and state.destroyed[b]), "ship in a dead fjord"
                else:
                    assert not is_ship(fig), "a ship in a province"
                    assert not state.destroyed[where], "a figure in a destroyed province"
            if fig >= 10:
                has_card = any(x >= 0 and card_of(x).unit == FIG_UNIT[fig] for x in c.slots)
                assert (where != BOX) == has_card, "monster figure without its card"
        for inst in c.slots:
            if inst >= 0:
                assert card_of(inst).type == 1, "a non-upgrade on a clan sheet"
        assert c.kept < 0 or c.kept in c.hand, "a kept card that is not in the hand"
    assert occupancy == state.occupancy, "occupancy cache out of date"
    for p in range(9):
        assert occupancy[p] <= VILLAGES[p], "village over capacity"
    assert set(MONSTER_CARD) == set(range(3, 12))
