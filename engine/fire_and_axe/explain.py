"""Why an action is illegal, in words (the checked ``flow.apply`` puts it in its refusal)."""

from __future__ import annotations

from engine.fire_and_axe import runes
from engine.fire_and_axe.actions import Action, ActionKind, describe
from engine.fire_and_axe.ids import DAYS_PER_TURN, HAND_LIMIT, HOMELAND, PORT, WINTERING
from engine.fire_and_axe.state import GameState, Step

K = ActionKind
_DAY_ACTIONS = frozenset({K.LOAD_CREW, K.LOAD_GOOD, K.DRAW_RUNE, K.SAIL})
_TASKS = frozenset({K.TRADE, K.RAID, K.SETTLE})
_STEP_WORDS: dict[int, str] = {
    Step.LOSSES: "the weather losses must be taken first (F5.6a, F6.4)",
    Step.RAID_AGAIN: "the Raid under way asks: roll again or stop (F7.4a)",
    Step.SETTLE_CONVERT: "the Settle asks: convert the last crewmember or not (F7.5b)",
    Step.WINDOW: "another player may play Runes now (A8)",
}


def _reason(state: GameState, seat: int, action: Action) -> str:
    kind = action[0]
    step = state.step
    if step != Step.MAIN and step in _STEP_WORDS:
        return _STEP_WORDS[step]
    p = state.seats[seat]
    board = state.board
    here = p.loc
    in_wintering = here == WINTERING
    if kind in _DAY_ACTIONS and state.prep + state.sail >= DAYS_PER_TURN:
        return "no Day is left this turn (F4.3)"
    if kind in (K.LOAD_CREW, K.LOAD_GOOD):
        if not in_wintering:
            return "Loading is done only in the Wintering Zone (F5.1)"
        return (
            "no free slot of this Age, none of that in the supply, or a crewmember must be "
            "loaded first (F5.1-F5.2)"
        )
    if kind == K.LEAVE_WINTERING:
        return "only a crewed ship in the Wintering Zone leaves it, for a Homeland (F5.1b, F5.3)"
    if in_wintering and kind in (K.SAIL, K.DRAW_RUNE, K.END_TURN, K.WINTER, *_TASKS):
        return "a ship in the Wintering Zone must Load and leave for a Homeland first (F5.3)"
    if kind == K.DRAW_RUNE:
        if board.kind[here] != HOMELAND:
            return "Runes are drawn only in a Homeland (F5.4)"
        if len(p.hand) >= HAND_LIMIT:
            return "a hand holds at most 3 Runes (F5.5)"
        return "the Rune deck and its discards are empty (F5.5)"
    if kind == K.SAIL:
        dest = action[1]
        if dest not in board.adjacent[here]:
            return "that place is not adjacent (F5.6)"
        return "another ship is in that port (F2.6)"
    if kind in _TASKS:
        if board.kind[here] != PORT:
            return "Tasks are done only in a port (F7.1)"
        if here in state.tasks_done:
            return "a Task was done at this port this turn (F7.2)"
        return "this Task's conditions do not hold here (F7.3-F7.5)"
    if kind in (K.PLAY_RUNE, K.DISCARD_RUNE):
        if not runes.may_use_runes(state, seat):
            return "no Rune is played or discarded in a Homeland (F5.5, F8.1)"
        if action[1] not in p.hand:
            return "that Rune is not in the hand"
        return "the card's own limits or its effect do not allow that now (F8.1)"
    return "it is not among the legal actions now"


def why_illegal(state: GameState, seat: int, action: Action) -> str:
    board = state.board
    text = describe(action, board.names, tuple(r.name for r in board.runes))
    return f"seat {seat} cannot {text}: {_reason(state, seat, action)}"
