"""Sagas, Ages and the Final Round markers (F3.4, F11, F12.4).

After every decision the face-up Sagas are checked in space order (F11.3, Appendix A): one
whose requirement holds at every listed port — a goods token (Trade), its town gone (Raid,
A3: from each listed port), a Settlement of anyone (Settle) — goes to the seat that took the
decision, with its immediate VP, and the space is refilled from the deck at once (F11.4). A
revealed card whose requirements already hold is discarded and the next one revealed. The
first card of a later Age to be placed — counting one discarded on reveal (A10) — starts that
Age (F11.5). Revealing the last card of the deck gives the revealer the three Final Round
markers (F11.7); once the spaces are empty the game ends at once (F12.4).

**Decision** [GAP]: a Trade Saga can become impossible for good, when no goods token that could
still reach one of its empty ports exists any more (goods in ports never leave them, F9.3; the
region rule forbids a second token of a type, F7.3.4). Such a card would stall the Saga row and
so the end of the game; it is treated like a card «impossible to complete» under F11.4:
discarded (face up, out of the game) and replaced, whether it was just revealed or already face
up. Raid and Settle Sagas can always still be completed.
"""

from __future__ import annotations

from engine.fire_and_axe.board import SagaCard
from engine.fire_and_axe.ids import FINAL_MARKERS, RAID, SAGA_SPACES, SAGAS_REMOVED_PER_AGE, TRADE
from engine.fire_and_axe.state import NONE, EndReason, GameState
from engine.fire_and_axe.turns import game_over


def fulfilled(state: GameState, saga: SagaCard) -> bool:
    """F11.2: the requirement of the Saga's type holds at every listed port."""
    if saga.type == TRADE:
        goods = state.goods
        return all(goods[p] != NONE for p in saga.ports)
    if saga.type == RAID:
        town = state.town
        return all(town[p] == 0 for p in saga.ports)
    settler = state.settler
    return all(settler[p] != NONE for p in saga.ports)


def impossible(state: GameState, saga: SagaCard) -> bool:
    """A Trade Saga none of whose tokens can reach some empty listed port any more (see the
    module's Decision); Raid and Settle Sagas never are."""
    if saga.type != TRADE:
        return False
    goods = state.goods
    free = [state.supply[g] + state.chart[g] for g in range(3)]
    for p in state.seats:
        for g in range(3):
            free[g] += p.cargo[g]
    others = state.board.region_others
    for port in saga.ports:
        if goods[port] != NONE:
            continue
        if not any(free[g] and all(goods[q] != g for q in others[port]) for g in range(3)):
            return True
    return False


def reveal(state: GameState, space: int, seat: int) -> None:
    """Fill an empty space from the deck (F11.4-F11.7); ``seat`` revealed it (NONE: set-up)."""
    sagas = state.board.sagas
    deck = state.saga_deck
    while deck:
        card = deck.pop()
        saga = sagas[card]
        state.emit(-1, {"type": "saga_revealed", "saga": card, "id": saga.id, "space": space})
        if saga.age > state.age:
            state.age = saga.age
            state.emit(-1, {"type": "age", "age": saga.age, "seat": seat})
        if not deck and seat != NONE:
            state.markers_holder = seat
            state.emit(-1, {"type": "final_markers_taken", "seat": seat, "markers": FINAL_MARKERS})
        if fulfilled(state, saga) or impossible(state, saga):
            _discard(state, card, "fulfilled" if fulfilled(state, saga) else "impossible")
            continue
        state.saga_spaces[space] = card
        return


def _discard(state: GameState, card: int, why: str) -> None:
    state.saga_discard.append(card)
    state.emit(
        -1, {"type": "saga_discarded", "saga": card, "id": state.board.sagas[card].id, "why": why}
    )


def update(state: GameState, seat: int) -> None:
    """Take every fulfilled face-up Saga for ``seat``, discard the impossible ones, refill,
    and end the game if the spaces are empty (F12.4)."""
    sagas = state.board.sagas
    spaces = state.saga_spaces
    for space in range(SAGA_SPACES):
        card = spaces[space]
        if card == NONE:
            continue
        saga = sagas[card]
        if fulfilled(state, saga):
            spaces[space] = NONE
            state.seats[seat].sagas.append(card)
            state.emit(
                -1,
                {
                    "type": "saga_completed",
                    "seat": seat,
                    "saga": card,
                    "id": saga.id,
                    "bonus_vp": saga.bonus_vp,
                },
            )
            state.gain_vp(seat, saga.bonus_vp, "saga", saga=card)
            reveal(state, space, seat)
        elif impossible(state, saga):
            spaces[space] = NONE
            _discard(state, card, "impossible")
            reveal(state, space, seat)
    if all(c == NONE for c in spaces):
        game_over(state, EndReason.SAGAS_DONE)


def deal(state: GameState) -> None:
    """F3.4: shuffle each Age, remove 3 unseen, stack III under II under I, reveal 3."""
    by_age: list[list[int]] = [[], [], []]
    for saga in state.board.sagas:
        by_age[saga.age - 1].append(saga.index)
    for cards in by_age:
        state.rng.shuffle(cards)
        state.saga_removed.extend(cards[:SAGAS_REMOVED_PER_AGE])
    state.saga_deck = _stack(by_age)
    for space in range(SAGA_SPACES):
        reveal(state, space, NONE)


def _stack(by_age: list[list[int]]) -> list[int]:
    """The deck with Age III at the bottom and Age I on top (top = last element), each Age
    in its shuffled order (its first card on top)."""
    out: list[int] = []
    for cards in reversed(by_age):
        out.extend(reversed(cards[SAGAS_REMOVED_PER_AGE:]))
    return out
