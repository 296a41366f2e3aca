"""Rune cards in play: the Draw Rune Action and playing or discarding them (F5.4-F5.5, F8.1-
F8.3, A8).

Draw Rune costs 1 Day, only in a Homeland, with fewer than 3 Runes in hand (F5.4, F5.5).
Playing or discarding a Rune costs nothing and is allowed anywhere but in a Homeland (F5.5,
F8.1), within the card's own limits (``when``, ``where``); either may come with a quarter turn
of the Wind Dial cover, either way, before the card's effect (F8.2). A played card's effects
then act in order and the card goes face up on the discard pile (F8.3).

**Option** ``rune_timing`` (A8): ``"own_turn"`` (default) lets a player play or discard Runes
in their own turn only, at any moment of it but the weather losses (F5.6a: «before doing
anything else») and the answer to a Settle; ``"any_time"`` also lets the other players play
cards whose ``when`` is ``"any"`` (and discard any card) in others' turns: after each decision
of the player whose turn it is, each other player whose ship is not in a Homeland and who
holds a Rune, clockwise, may play or discard Runes until they pass (``flow``).
"""

from __future__ import annotations

from engine.fire_and_axe import rune_effects, runes_deck, weather
from engine.fire_and_axe.actions import Action, ActionKind
from engine.fire_and_axe.data_pack import Rune
from engine.fire_and_axe.effect_kinds import NO_CHOICE
from engine.fire_and_axe.ids import DAYS_PER_TURN, HAND_LIMIT, HOMELAND, PORT, WATER, WINTERING
from engine.fire_and_axe.state import GameState

DIAL_QUARTERS = (0, 1, -1)  # Action.b: no turn, clockwise, counter-clockwise


def may_use_runes(state: GameState, seat: int) -> bool:
    """F5.5 / F8.1: never while the ship is in a Homeland."""
    loc = state.seats[seat].loc
    return loc == WINTERING or state.board.kind[loc] != HOMELAND


def where_allows(state: GameState, seat: int, where: str) -> bool:
    """The card's own place limit (the Homeland rule is checked by ``may_use_runes``)."""
    loc = state.seats[seat].loc
    if where == "anywhere":
        return True
    if where == "wintering":
        return loc == WINTERING
    if loc == WINTERING:
        return False
    if where == "map":
        return True
    return state.board.kind[loc] == (PORT if where == "port" else WATER)


def play_choices(state: GameState, seat: int, rune: Rune) -> list[int]:
    """The choices a play of ``rune`` may carry now (empty: it cannot be played now)."""
    choices: list[int] = [0]
    for effect in rune.effects:
        options = rune_effects.EFFECTS[effect.kind][0](state, seat, effect)
        if not options:
            return []
        if effect.choice != NO_CHOICE:
            choices = options
    return choices


def legal(state: GameState, seat: int, own_turn: bool, out: list[Action]) -> None:
    """Discard and Play actions of the seat's hand (appended to ``out``)."""
    hand = state.seats[seat].hand
    if not hand or not may_use_runes(state, seat):
        return
    runes = state.board.runes
    for r in sorted(set(hand)):
        rune = runes[r]
        out.extend(Action(ActionKind.DISCARD_RUNE, r, d) for d in range(3))
        if not own_turn and rune.when != "any":
            continue
        if not where_allows(state, seat, rune.where):
            continue
        for c in play_choices(state, seat, rune):
            out.extend(Action(ActionKind.PLAY_RUNE, r, d, c) for d in range(3))


def can_draw(state: GameState, seat: int) -> bool:
    """F5.4-F5.5: in a Homeland, a Day left, fewer than 3 Runes, and a card to draw."""
    loc = state.seats[seat].loc
    return (
        loc != WINTERING
        and state.board.kind[loc] == HOMELAND
        and state.prep + state.sail < DAYS_PER_TURN
        and len(state.seats[seat].hand) < HAND_LIMIT
        and runes_deck.can_draw(state)
    )


def draw(state: GameState, seat: int) -> None:
    """The Draw Rune Action: Preparation +1, the top card into the hand."""
    state.prep += 1
    runes_deck.draw_one(state, seat)


def _leave_hand(state: GameState, seat: int, rune: int, dial: int, verb: str) -> None:
    state.seats[seat].hand.remove(rune)
    card = state.board.runes[rune]
    state.emit(
        -1,
        {
            "type": verb,
            "seat": seat,
            "rune": rune,
            "id": card.id,
            "name": card.name,
            "dial": DIAL_QUARTERS[dial],
        },
    )
    weather.turn_dial(state, seat, DIAL_QUARTERS[dial], verb)


def discard(state: GameState, seat: int, rune: int, dial: int) -> None:
    """F8.3: face up on the discard pile, without its effect (the dial may turn, F8.2)."""
    _leave_hand(state, seat, rune, dial, "rune_discarded")
    state.rune_discard.append(rune)


def play(state: GameState, seat: int, rune: int, dial: int, choice: int) -> None:
    """F8.2-F8.3: the dial turn first, then the effects in order, then the discard pile."""
    _leave_hand(state, seat, rune, dial, "rune_played")
    for effect in state.board.runes[rune].effects:
        c = choice if effect.choice != NO_CHOICE else 0
        rune_effects.EFFECTS[effect.kind][1](state, seat, effect, c)
    state.rune_discard.append(rune)
