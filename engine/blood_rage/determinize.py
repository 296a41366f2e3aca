"""Determinization: sample a complete state consistent with what one seat may see.

Search under hidden information (ISMCTS and the like) plays out many guesses of the hidden
cards instead of peeking at them (OpenSpiel's ResampleFromInfostate). Every card the seat
cannot see — other hands, packs, committed quests, unrevealed battle cards, deck order,
unseen discards — is dealt again at random into the same places, keeping each place's size
and the one thing the seat knows about a hidden card's kind: committed quests are quests.
"""

from __future__ import annotations

import json
import random
from typing import Any

from engine.blood_rage.cards import CardType, card_of, deck_instances
from engine.blood_rage.snapshot import from_snapshot, to_snapshot
from engine.blood_rage.state import EMPTY, GameState


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
    for o in others:  # a pending keep choice or kept card: one of that seat's (resampled) cards
        hand = s.clans[o].hand
        if s.keep[o] >= 0:
            s.keep[o] = hand[rng.randrange(len(hand))]
        if s.clans[o].kept >= 0:
            s.clans[o].kept = hand[rng.randrange(len(hand))]
    return s


HIDDEN = -1  # a card the seat cannot see (in a redacted snapshot)
HIDDEN_CHOICE = -3  # another seat chose a card (battle card, keep) or holds a kept one, unseen


def redacted_snapshot(state: GameState, seat: int) -> dict[str, Any]:
    """The complete engine state as ``seat`` may know it: every card it cannot see is
    replaced by ``HIDDEN`` (places keep their sizes). A bot that only talks to the API can
    rebuild full states from it with ``sample_from_redacted`` and search."""
    snap = to_snapshot(state)
    snap.pop("hash")
    snap["seed"] = 0  # the seed would give away every shuffle
    others = [o for o in range(state.players) if o != seat]
    snap["decks"] = [[HIDDEN] * len(d) for d in state.decks]
    snap["unseen"] = [HIDDEN] * len(state.unseen)
    snap["packs"] = [p[:] if o == seat else [HIDDEN] * len(p) for o, p in enumerate(state.packs)]
    for o in others:
        c = snap["clans"][o] = dict(snap["clans"][o])
        c["hand"] = [HIDDEN] * len(state.clans[o].hand)
        c["quests"] = [HIDDEN] * len(state.clans[o].quests)
        c["kept"] = HIDDEN_CHOICE if state.clans[o].kept >= 0 else EMPTY
    snap["keep"] = [k if o == seat or k < 0 else HIDDEN_CHOICE for o, k in enumerate(state.keep)]
    b = snap["battle"]
    if b is not None:
        b = snap["battle"] = dict(b)
        if not state.battle or not state.battle.revealed:
            b["choice"] = [
                k if o == seat or k < 0 else HIDDEN_CHOICE for o, k in enumerate(b["choice"])
            ]
    snap["viewer"] = seat
    return snap


def sample_from_redacted(data: dict[str, Any], rng: random.Random) -> GameState:
    """A full state consistent with a redacted snapshot: hidden cards dealt at random from
    the cards the viewer has not seen (committed quests drawn from quest cards)."""
    snap = json.loads(json.dumps(data))
    players = int(snap["players"])
    seen: list[int] = []

    def visible(cards: list[int]) -> None:
        seen.extend(c for c in cards if c >= 0)

    for d in snap["decks"]:
        visible(d)
    for p in snap["packs"]:
        visible(p)
    visible(snap["unseen"])
    visible(snap["discard"])
    for c in snap["clans"]:
        visible(c["hand"])
        visible(c["quests"])
        visible(c["slots"])
    b = snap["battle"]
    if b is not None:
        for p in b["played"]:
            visible(p)
        if not b["revealed"]:
            visible(b["choice"])
    all_cards = [i for age in (1, 2, 3) for i in deck_instances(age, players)]
    pool = [c for c in all_cards if c not in set(seen)]
    rng.shuffle(pool)
    quests = [c for c in pool if card_of(c).type == CardType.QUEST]
    for c in snap["clans"]:
        for i, q in enumerate(c["quests"]):
            if q == HIDDEN:
                c["quests"][i] = quests.pop()
                pool.remove(c["quests"][i])
    it = iter(pool)

    def fill(cards: list[int]) -> None:
        for i, x in enumerate(cards):
            if x == HIDDEN:
                cards[i] = next(it)

    for d in snap["decks"]:
        fill(d)
    for p in snap["packs"]:
        fill(p)
    fill(snap["unseen"])
    for c in snap["clans"]:
        fill(c["hand"])
    if b is not None and not b["revealed"]:
        b["choice"] = [next(it) if k == HIDDEN_CHOICE else k for k in b["choice"]]
    for o, k in enumerate(snap["keep"]):
        if k == HIDDEN_CHOICE:
            hand = snap["clans"][o]["hand"]
            snap["keep"][o] = hand[rng.randrange(len(hand))]
    for c in snap["clans"]:
        if c.get("kept") == HIDDEN_CHOICE:
            c["kept"] = c["hand"][rng.randrange(len(c["hand"]))]
    snap.pop("viewer")
    return from_snapshot(snap)
