"""The Rune deck (F3.6, F5.4-F5.5): drawing its top card, reshuffling the discards.

The deck's order is secret; a drawn card is its drawer's secret (``rune_card`` goes to that
seat only; everyone learns that a card was drawn). When the deck runs out, the face-up discard
pile is shuffled with the game's generator to form a new deck (F5.5).
"""

from __future__ import annotations

from engine.fire_and_axe.state import GameState


def can_draw(state: GameState) -> bool:
    return bool(state.rune_deck or state.rune_discard)


def draw_one(state: GameState, seat: int) -> bool:
    """The top card into the seat's hand (False if deck and discards are both empty). The
    caller checks the hand limit."""
    if not state.rune_deck:
        if not state.rune_discard:
            return False
        state.rune_deck = state.rune_discard
        state.rune_discard = []
        state.rng.shuffle(state.rune_deck)
        state.emit(-1, {"type": "runes_reshuffled", "deck": len(state.rune_deck)})
    card = state.rune_deck.pop()
    hand = state.seats[seat].hand
    hand.append(card)
    state.emit(-1, {"type": "rune_drawn", "seat": seat, "hand": len(hand)})
    if state.events is not None:
        rune = state.board.runes[card]
        state.events.append(
            (
                seat,
                {"type": "rune_card", "seat": seat, "rune": card, "id": rune.id, "name": rune.name},
            )
        )
    return True
