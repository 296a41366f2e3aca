"""The Wind Dial and the weather check (F6).

The dial is the Weather Zone under the blue hole (``state.dial``, zones in compass order, so a
clockwise quarter turn is +1, F6.1); ``board.fwd`` gives each zone's Fair Weather Days for
each position. After every Sail the Sailing marker is compared with the FWD of the zone the
ship moved into (F6.3); every skull at an excess position not yet covered this turn must then
be covered by one item from the ship (F6.4, A6), chosen by the player (F6.5).
"""

from __future__ import annotations

from engine.fire_and_axe import turns
from engine.fire_and_axe.actions import LOSE, Action
from engine.fire_and_axe.ids import CREW, ITEM_NAMES, ZONE_NAMES
from engine.fire_and_axe.state import GameState, Step


def fwd(state: GameState, zone: int) -> int:
    """Fair Weather Days of a zone now (F6.2)."""
    return state.board.fwd[state.dial][zone]


def fwd_all(state: GameState) -> list[int]:
    return list(state.board.fwd[state.dial])


def turn_dial(state: GameState, seat: int, quarters: int, cause: str) -> None:
    """Turn the cover ``quarters`` quarter turns clockwise (negative: counter-clockwise)."""
    if quarters % 4 == 0:
        return
    state.dial = (state.dial + quarters) % 4
    state.emit(
        -1,
        {
            "type": "dial_turned",
            "seat": seat,
            "quarters": quarters,
            "cause": cause,
            "blue": ZONE_NAMES[state.dial],
            "red": ZONE_NAMES[(state.dial + 2) % 4],
            "fwd": fwd_all(state),
        },
    )


def check(state: GameState, seat: int, dest: int) -> None:
    """F6.3-F6.4: after a Sail into ``dest``, the skulls the excess reaches that are still
    uncovered this turn become losses to take now."""
    zone = state.board.zone[dest]
    days = fwd(state, zone)
    excess = state.sail - days
    if excess <= 0:
        return
    new = [s for s in state.board.skulls if s <= excess and not state.skulls_covered >> s & 1]
    for s in new:
        state.skulls_covered |= 1 << s
    state.emit(
        -1,
        {
            "type": "weather",
            "seat": seat,
            "zone": ZONE_NAMES[zone],
            "fwd": days,
            "sailing": state.sail,
            "excess": excess,
            "skulls": new,
        },
    )
    if new:
        state.pending_losses = len(new)
        state.step = Step.LOSSES


def legal_losses(state: GameState, seat: int) -> list[Action]:
    """F6.5: one item of the player's choice per skull: any goods type aboard, or crew."""
    p = state.seats[seat]
    out = [LOSE[g] for g in range(3) if p.cargo[g]]
    out.append(LOSE[CREW])
    return out


def lose(state: GameState, seat: int, item: int) -> int:
    """Put one item on the Losses chart (discarded at the end of the turn, F6.6). Losing the
    last crewmember sends the ship home and ends the turn (F6.5, F10.2a; A7: allowed)."""
    p = state.seats[seat]
    if item == CREW:
        p.crew -= 1
    else:
        p.cargo[item] -= 1
    state.chart[item] += 1
    state.pending_losses -= 1
    state.emit(
        -1, {"type": "item_lost", "seat": seat, "item": ITEM_NAMES[item], "cause": "weather"}
    )
    if p.crew == 0:
        return turns.ship_lost(state, seat, "weather")
    if state.pending_losses == 0:
        state.step = Step.MAIN
    return turns.GOES_ON


def take_forced(state: GameState, seat: int) -> int:
    """Take the losses that leave no choice (only crew aboard) without asking."""
    p = state.seats[seat]
    while state.step == Step.LOSSES and not (p.cargo[0] or p.cargo[1] or p.cargo[2]):
        how = lose(state, seat, CREW)
        if how != turns.GOES_ON:
            return how
    return turns.GOES_ON
