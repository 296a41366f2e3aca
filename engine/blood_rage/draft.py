"""Phase 1 — Gods' Gifts: deal 8, pick simultaneously and pass left (blood-rage.md §4)."""

from __future__ import annotations

from engine.blood_rage.actions import CARD_ACTIONS, Action, ActionKind
from engine.blood_rage.board import DRAFT_KEEP, HAND_DEAL
from engine.blood_rage.ids import DraftMode, Phase, Step
from engine.blood_rage.state import GameState


def picks_per_round(state: GameState) -> int:
    if state.draft_mode == DraftMode.NO_DRAFT:
        return DRAFT_KEEP  # keep 6 of the 8 dealt at once
    return 2 if state.players == 2 else 1


def deal(state: GameState) -> None:
    """Deal 8 to each seat; the rest of the Age deck is discarded unseen."""
    state.phase = Phase.DRAFT
    deck = state.decks[state.age - 1]
    for seat in range(state.players):
        state.packs[seat] = deck[:HAND_DEAL]
        del deck[:HAND_DEAL]
    state.unseen.extend(deck)
    deck.clear()
    state.picks = [picks_per_round(state)] * state.players
    state.emit(-1, {"type": "phase", "age": state.age, "phase": "draft"})
    state.step = Step.DRAFT_PICK


def awaiting(state: GameState) -> list[int]:
    return [s for s in range(state.players) if state.picks[s] > 0]


def legal(state: GameState, seat: int) -> list[Action]:
    if state.picks[seat] <= 0:
        return []
    table = CARD_ACTIONS[ActionKind.DRAFT_PICK]
    return [table[c] for c in state.packs[seat]]


def apply(state: GameState, seat: int, action: Action) -> None:
    """Keep one card of the pack. Once every seat has picked, packs pass left together."""
    card = action[1]
    state.packs[seat].remove(card)
    state.clans[seat].hand.append(card)
    state.picks[seat] -= 1
    if state.events is not None:  # events are built only for a game that records them
        state.emit(seat, {"type": "picked", "seat": seat, "card": card})
    if any(state.picks):
        return
    last = len(state.packs[0]) <= HAND_DEAL - DRAFT_KEEP
    if state.events is not None:
        state.emit(
            -1,
            {
                "type": "draft_round",
                "age": state.age,
                "round": (HAND_DEAL - len(state.packs[0])) // picks_per_round(state),
                "passed": not last,  # the packs move on to the left; else what is left goes
            },
        )
    if last:
        for pack in state.packs:  # the last 2 cards of each pack go unseen
            state.unseen.extend(pack)
            pack.clear()
        state.step = Step.ACTION_START
        return
    n = state.players
    state.packs = [state.packs[(s - 1) % n] for s in range(n)]  # pass to the left
    state.picks = [picks_per_round(state)] * n
