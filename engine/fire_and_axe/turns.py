"""Starting and ending turns (F4.1, F9.4, F10, F12).

A turn starts with the Final Round marker (F12.2) and the out-of-the-game check (F9.4); it
ends in one of the three ways of F10 (declared, lost last crewmember, voluntary return), after
which the Losses chart and the Days track are cleared (F10.3) and play passes clockwise. The
game ends at the end of the turn in which the third Final Round marker was placed (F12.3), or
at once when every player is out of the game (F12.5); ``sagas`` ends it when the Saga spaces
run empty (F12.4).
"""

from __future__ import annotations

from typing import Final

from engine.fire_and_axe import scoring
from engine.fire_and_axe.ids import CREW, FINAL_MARKERS, WINTERING
from engine.fire_and_axe.state import END_REASON_NAMES, NONE, EndReason, GameState, Step

# How a turn ends (F10.1); handlers return one of these (GOES_ON: it does not end).
GOES_ON: Final = 0
DECLARED: Final = 1  # F10.2c: next turn starts where the ship is, cargo kept
LAST_CREW: Final = 2  # F10.2a: the ship lost its last crewmember, back to the Wintering Zone
VOLUNTARY: Final = 3  # F10.2b / F8.4: back to the Wintering Zone with one crewmember
END_NAMES: Final = ("", "declared", "last_crew", "voluntary")


def game_over(state: GameState, reason: EndReason) -> None:
    """End the game now and add the final scoring (F13)."""
    state.step = Step.GAME_OVER
    state.end_reason = reason
    state.window = []
    state.pending_losses = 0
    scoring.final_scoring(state)
    state.emit(
        -1,
        {
            "type": "game_over",
            "reason": END_REASON_NAMES[reason],
            "vp": [p.vp for p in state.seats],
        },
    )


def start_turn(state: GameState) -> None:
    """Begin the turn of ``state.turn``: place a Final Round marker if it holds them (F12.2),
    and skip it while it is out of the game (F9.4: all 15 crew are Settlements)."""
    n = state.players
    for _ in range(2 * n + 1):
        seat = state.turn
        state.turns += 1
        state.emit(-1, {"type": "turn_start", "seat": seat, "turn": state.turns})
        if state.markers_holder == seat and state.markers_placed < FINAL_MARKERS:
            state.markers_placed += 1
            state.emit(
                -1,
                {
                    "type": "final_marker_placed",
                    "seat": seat,
                    "placed": state.markers_placed,
                    "last_turn": state.markers_placed == FINAL_MARKERS,
                },
            )
        p = state.seats[seat]
        if not p.out and p.loc == WINTERING and p.crew == 0 and p.crew_supply == 0:
            p.out = True
            state.emit(-1, {"type": "player_out", "seat": seat})
            if all(q.out for q in state.seats):
                game_over(state, EndReason.ALL_OUT)
                return
        if not p.out:
            state.step = Step.MAIN
            return
        # Decision (F12.6 [GAP]): a holder out of the game still places its markers at the
        # start of each of its (skipped) turns, so the Final Rounds still end.
        state.emit(-1, {"type": "turn_skipped", "seat": seat})
        if _final_turn_over(state, seat):
            return
        state.turn = (seat + 1) % n
    raise AssertionError("no player can take a turn")  # every seat out ends the game above


def _final_turn_over(state: GameState, seat: int) -> bool:
    """F12.3: the turn in which the holder placed the third marker was the last one."""
    if state.markers_holder == seat and state.markers_placed == FINAL_MARKERS:
        game_over(state, EndReason.FINAL_ROUNDS)
        return True
    return False


def end_turn(state: GameState, how: int) -> None:
    """F10.3: clear the Losses chart (goods to the supply, crew to their owner) and the Days
    track, then pass the turn clockwise (or end the game, F12.3)."""
    seat = state.turn
    p = state.seats[seat]
    chart = state.chart
    for g in range(3):
        state.supply[g] += chart[g]
    p.crew_supply += chart[CREW]
    state.emit(
        -1,
        {
            "type": "turn_end",
            "seat": seat,
            "how": END_NAMES[how],
            "chart": list(chart),
        },
    )
    state.chart = [0, 0, 0, 0]
    state.prep = 0
    state.sail = 0
    state.tasks_done = []
    state.skulls_covered = 0
    state.pending_losses = 0
    state.attack_bonus = 0
    state.calm = False
    state.attack_port = NONE
    state.raid_rolls = 0
    if _final_turn_over(state, seat):
        return
    state.turn = (seat + 1) % state.players
    start_turn(state)


def ship_lost(state: GameState, seat: int, cause: str) -> int:
    """F10.2a / F9.2: the ship has no crew left: its goods go back to the supply, it returns to
    the Wintering Zone, and the turn ends (the caller ends it, after the Saga check)."""
    p = state.seats[seat]
    goods = p.cargo
    for g in range(3):
        state.supply[g] += goods[g]
    state.emit(
        -1,
        {
            "type": "ship_lost",
            "seat": seat,
            "cause": cause,
            "location": p.loc,
            "goods": list(goods),
        },
    )
    p.cargo = [0, 0, 0]
    p.loc = WINTERING
    state.pending_losses = 0
    state.attack_port = NONE
    state.step = Step.MAIN
    return LAST_CREW
