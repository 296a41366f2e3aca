"""Who decides, what they may do, and applying it (F4, Appendix A "Legal moves").

Fire & Axe is played turn by turn: the active seat decides (its Actions, Tasks and Other
Activities in any order, F4.2) until its turn ends (F10). Its decisions inside a Task or a
weather check are separate steps (``state.Step``): the items lost to the weather (F6.5), rolling
a Raid again (F7.4a), converting the last crewmember into a Settlement (F7.5b.5). A weather loss
that leaves no choice (only crew aboard) is taken without asking. Nothing is simultaneous.

Under ``rune_timing = "any_time"`` (A8), after every decision of the active seat that leaves it
free to act, a *window* asks each other seat that may play Runes (``runes``), clockwise; each
plays or discards Runes until it passes.

After every decision: the Saga check (F11.3, ``sagas``), the all-Settlements end (F12.5), then
the end of the turn if the decision ended it (F10.3, ``turns``).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.core.errors import GameOverError, IllegalActionError, NotYourDecisionError
from engine.fire_and_axe import runes, sagas, sailing, tasks, turns, weather, wintering
from engine.fire_and_axe.actions import (
    CONVERT,
    DECLINE,
    DRAW_RUNE,
    END_TURN,
    PASS,
    RAID_AGAIN,
    RAID_STOP,
    WINTER,
    Action,
    ActionKind,
    describe,
)
from engine.fire_and_axe.explain import why_illegal
from engine.fire_and_axe.ids import CREW, CREW_PER_PLAYER, DAYS_PER_TURN, PORT, WINTERING
from engine.fire_and_axe.state import EndReason, GameState, Step

Handler = Callable[[GameState, int, Action], int]


def awaiting(state: GameState) -> list[int]:
    """The seat whose decision is awaited (one at a time); empty once the game is over."""
    step = state.step
    if step == Step.GAME_OVER:
        return []
    if step == Step.WINDOW:
        return [state.window[0]]
    return [state.turn]


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """The seat's legal actions now, in a stable order (empty if it is not awaited)."""
    step = state.step
    if step == Step.GAME_OVER:
        return []
    out: list[Action] = []
    if step == Step.WINDOW:
        if seat != state.window[0]:
            return []
        out.append(PASS)
        runes.legal(state, seat, False, out)
        return out
    if seat != state.turn:
        return []
    if step == Step.LOSSES:
        return weather.legal_losses(state, seat)
    if step == Step.RAID_AGAIN:
        out.append(RAID_AGAIN)
        out.append(RAID_STOP)
        runes.legal(state, seat, True, out)
        return out
    if step == Step.SETTLE_CONVERT:
        return [CONVERT, DECLINE]
    p = state.seats[seat]
    if p.loc == WINTERING:
        wintering.legal(state, seat, out)
        runes.legal(state, seat, True, out)
        return out
    if state.prep + state.sail < DAYS_PER_TURN:
        sailing.legal(state, seat, out)
        if runes.can_draw(state, seat):
            out.append(DRAW_RUNE)
    if state.board.kind[p.loc] == PORT:
        tasks.legal(state, seat, out)
    runes.legal(state, seat, True, out)
    out.append(WINTER)
    out.append(END_TURN)
    return out


# -- applying -----------------------------------------------------------------------------


def _load_crew(state: GameState, seat: int, action: Action) -> int:
    wintering.load(state, seat, CREW)
    return turns.GOES_ON


def _load_good(state: GameState, seat: int, action: Action) -> int:
    wintering.load(state, seat, action[1])
    return turns.GOES_ON


def _leave(state: GameState, seat: int, action: Action) -> int:
    wintering.leave(state, seat, action[1])
    return turns.GOES_ON


def _draw(state: GameState, seat: int, action: Action) -> int:
    runes.draw(state, seat)
    return turns.GOES_ON


def _sail(state: GameState, seat: int, action: Action) -> int:
    sailing.sail(state, seat, action[1])
    return weather.take_forced(state, seat)


def _trade(state: GameState, seat: int, action: Action) -> int:
    tasks.trade(state, seat, action[1])
    return turns.GOES_ON


def _raid(state: GameState, seat: int, action: Action) -> int:
    return tasks.raid(state, seat)


def _raid_again(state: GameState, seat: int, action: Action) -> int:
    state.step = Step.MAIN
    return tasks.raid_roll(state, seat)


def _raid_stop(state: GameState, seat: int, action: Action) -> int:
    tasks.raid_stop(state, seat)
    return turns.GOES_ON


def _settle(state: GameState, seat: int, action: Action) -> int:
    return tasks.settle(state, seat, action[1])


def _convert(state: GameState, seat: int, action: Action) -> int:
    return tasks.convert(state, seat)


def _decline(state: GameState, seat: int, action: Action) -> int:
    tasks.decline(state, seat)
    return turns.GOES_ON


def _lose(state: GameState, seat: int, action: Action) -> int:
    how = weather.lose(state, seat, action[1])
    return how if how != turns.GOES_ON else weather.take_forced(state, seat)


def _play(state: GameState, seat: int, action: Action) -> int:
    runes.play(state, seat, action[1], action[2], action[3])
    return turns.GOES_ON


def _discard(state: GameState, seat: int, action: Action) -> int:
    runes.discard(state, seat, action[1], action[2])
    return turns.GOES_ON


def _winter(state: GameState, seat: int, action: Action) -> int:
    return wintering.voluntary_return(state, seat)


def _end_turn(state: GameState, seat: int, action: Action) -> int:
    return turns.DECLARED


def _pass(state: GameState, seat: int, action: Action) -> int:
    state.window.pop(0)
    return turns.GOES_ON


HANDLERS: dict[int, Handler] = {
    ActionKind.LOAD_CREW: _load_crew,
    ActionKind.LOAD_GOOD: _load_good,
    ActionKind.LEAVE_WINTERING: _leave,
    ActionKind.DRAW_RUNE: _draw,
    ActionKind.SAIL: _sail,
    ActionKind.TRADE: _trade,
    ActionKind.RAID: _raid,
    ActionKind.RAID_AGAIN: _raid_again,
    ActionKind.RAID_STOP: _raid_stop,
    ActionKind.SETTLE: _settle,
    ActionKind.CONVERT: _convert,
    ActionKind.DECLINE: _decline,
    ActionKind.LOSE: _lose,
    ActionKind.PLAY_RUNE: _play,
    ActionKind.DISCARD_RUNE: _discard,
    ActionKind.WINTER: _winter,
    ActionKind.END_TURN: _end_turn,
    ActionKind.PASS: _pass,
}


# The decisions that can change what a Saga checks (F11.2): a goods token into a port, a town
# taken, a Settlement, or a Rune (Change of Demand moves a token out of the supply, which can
# make a Trade Saga impossible). No other decision moves goods into or out of ports, towns or
# Settlements, so the Saga check after them would find nothing new.
CHANGES_SAGAS = frozenset(
    {
        ActionKind.TRADE,
        ActionKind.RAID,
        ActionKind.RAID_AGAIN,
        ActionKind.SETTLE,
        ActionKind.CONVERT,
        ActionKind.PLAY_RUNE,
    }
)


def _may_respond(state: GameState, seat: int) -> bool:
    """A8 window: a seat other than the active one with a Rune it may play or discard."""
    p = state.seats[seat]
    return not p.out and bool(p.hand) and runes.may_use_runes(state, seat)


def _open_window(state: GameState) -> None:
    n = state.players
    turn = state.turn
    seats = [(turn + i) % n for i in range(1, n)]
    state.window = [s for s in seats if _may_respond(state, s)]
    if state.window:
        state.step = Step.WINDOW


def apply_unchecked(state: GameState, seat: int, action: Action) -> None:
    """Apply an action known to be legal (from ``legal_actions``). Fast; no validation."""
    if state.events is not None:
        board = state.board
        state.emit(
            -1,
            {
                "type": "action",
                "seat": seat,
                "action": action.code(),
                "text": describe(action, board.names, tuple(r.name for r in board.runes)),
            },
        )
    in_window = state.step == Step.WINDOW
    kind = action[0]
    how = HANDLERS[kind](state, seat, action)
    state.version += 1
    if kind in CHANGES_SAGAS and state.step != Step.GAME_OVER:
        sagas.update(state, seat)
        if state.step != Step.GAME_OVER and all(
            p.settlements == CREW_PER_PLAYER for p in state.seats
        ):
            turns.game_over(state, EndReason.ALL_OUT)  # F12.5: only a Settle changes it
    if state.step == Step.GAME_OVER:
        return
    if in_window:
        while state.window and not _may_respond(state, state.window[0]):
            state.window.pop(0)
        if not state.window:
            state.step = Step.MAIN
        return
    if how != turns.GOES_ON:
        turns.end_turn(state, how)
    if state.any_time and state.step == Step.MAIN:
        _open_window(state)


def apply(state: GameState, seat: int, action: Action) -> None:
    """Apply an action after checking it; on error the state is unchanged."""
    if state.step == Step.GAME_OVER:
        raise GameOverError("the game is over")
    waiting = awaiting(state)
    if seat not in waiting:
        raise NotYourDecisionError(
            f"seat {seat} has no decision to take now; waiting for seat(s) {waiting}"
        )
    try:
        action = Action(*action)
    except TypeError:
        raise IllegalActionError(f"{action!r} is not an action") from None
    legal = legal_actions(state, seat)
    if action not in legal:
        raise IllegalActionError(why_illegal(state, seat, action))
    apply_unchecked(state, seat, action)


DEFAULT_PREFERENCE: tuple[Action, ...] = (PASS, END_TURN, RAID_STOP, DECLINE)


def default_action(state: GameState, seat: int) -> Action:
    """The decision taken for a seat whose time ran out: give up what it can rather than
    spend anything (pass, end the turn, stop raiding, keep the crewmember), lose goods before
    crew to the weather, and leave the Wintering Zone as soon as the ship is crewed."""
    legal = legal_actions(state, seat)
    if not legal:
        raise ValueError(f"seat {seat} has no decision to default")
    for preferred in DEFAULT_PREFERENCE:
        if preferred in legal:
            return preferred
    for action in legal:
        if action[0] == ActionKind.LOSE and action[1] != CREW:
            return action
    for action in legal:
        if action[0] == ActionKind.LEAVE_WINTERING:
            return action
    return legal[0]
