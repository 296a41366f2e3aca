"""Determinization: sample a complete state consistent with what one seat may see.

Search under hidden information (ISMCTS and the like) plays out many guesses of the hidden
cards instead of peeking at them (OpenSpiel's ResampleFromInfostate). Every card the seat
cannot see — other hands, packs, committed quests, unrevealed battle cards, deck order,
unseen discards — is dealt again at random into the same places, keeping each place's size
and the one thing the seat knows about a hidden card's kind: committed quests are quests.
"""

from __future__ import annotations

import random

from engine.cards import CardType, card_of
from engine.state import GameState


def determinize(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A copy of ``state`` whose hidden information (for ``seat``) is resampled."""
    s = state.copy()
    others = [o for o in range(s.players) if o != seat]
    # Places holding cards the seat cannot see (each keeps its size).
    quests = [s.clans[o].quests for o in others]
    holders: list[list[int]] = [*s.decks, s.unseen]
    holders += [s.clans[o].hand for o in others]
    holders += [s.packs[o] for o in others]
    b = s.battle
    hidden_choice = []
    if b is not None and not b.revealed:
        hidden_choice = [o for o in others if b.choice[o] >= 0]
    pool = [c for h in holders for c in h] + [c for q in quests for c in q]
    pool += [b.choice[o] for o in hidden_choice] if b is not None else []
    rng.shuffle(pool)
    quest_cards = [c for c in pool if card_of(c).type == CardType.QUEST]
    for q in quests:  # committed quests are known to be quests
        for i in range(len(q)):
            q[i] = quest_cards.pop()
    taken = {c for q in quests for c in q}
    rest = iter([c for c in pool if c not in taken])
    for h in holders:
        h[:] = [next(rest) for _ in h]
    for o in hidden_choice:
        assert b is not None
        b.choice[o] = next(rest)
    for o in others:  # a pending keep choice is one of that seat's own (resampled) cards
        if s.keep[o] >= 0:
            hand = s.clans[o].hand
            s.keep[o] = hand[rng.randrange(len(hand))]
    return s
